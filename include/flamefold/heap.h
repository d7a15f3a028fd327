// Process-wide malloc policy. Readers whose output is a big call tree built in one go pick
// speed; the default (set in main) returns big freed buffers to the OS, for peak memory.
#pragma once
#include <cstddef>
#include <cstdint>

namespace flamefold {

// Freed memory stays in the heap for the next allocation instead of going back to the kernel:
// 256 MB of address space is added to the heap's top and freed, and with trimming pushed out of
// the way later allocations (of any size while the top has room; past it, blocks of 32 MB and
// more are mappings of their own again) are carved from it, reusing what earlier ones touched. Every page the process touches for the first time is zeroed by the kernel, and on
// this VM (whose free memory the host takes back after a pause) that costs 1-2 ms per MB. Freed
// blocks stay resident, so peak RSS grows: readers use it for inputs of moderate size only.
// Idempotent; call before the big allocations, from one thread.
//
// The reserve is on ordinary 4 KB pages. It was on transparent huge pages until 2026-11-28:
// fewer faults and TLB misses, ~10 % faster when runs follow one another at once, but here a
// fresh 2 MB page costs twice what 512 fresh small ones do, and right after another program ran
// every folded path was 3-16 % slower (even after a pause; docs/design.md, bench/RESULTS.md).
void heap_reuse_freed_memory();

// heap_reuse_freed_memory() when an input of this many bytes (0 = unknown) is of moderate size
// (under 256 MB); otherwise the default policy stays.
void heap_reuse_freed_memory_for_input(uint64_t input_bytes);

}  // namespace flamefold
