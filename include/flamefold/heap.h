// Process-wide malloc policy. Readers whose output is a big call tree built in one go pick
// speed; the default (set in main) returns big freed buffers to the OS, for peak memory.
#pragma once
#include <cstddef>
#include <cstdint>

namespace flamefold {

// The next 256 MB of heap on transparent huge pages (2 MB), where the kernel has them on
// request (THP "madvise" mode): an 80 MB tree then costs a few hundred page faults instead of
// ~20,000 (a third of folded -> SVG time). Freed blocks there stay resident, so peak RSS grows
// (57 -> 70 MB on a 79 MB folded file; +35 % on a 530 MB one): readers use it for inputs of
// moderate size only. Idempotent; call before the big allocations, from one thread.
void heap_prefer_huge_pages();

// heap_prefer_huge_pages() when an input of this many bytes (0 = unknown) is of moderate size
// (under 256 MB); otherwise the default policy stays.
void heap_prefer_huge_pages_for_input(uint64_t input_bytes);

// A big buffer about to be filled (a string or vector's reserved capacity): the 2 MB-aligned
// part of it on transparent huge pages. Page faults cost ~10 us each in a VM: filling 70 MB of
// fresh 4 KB pages took the HTML writer 0.2 s. A no-op for small buffers and without THP.
void advise_huge_pages(const void* data, size_t bytes);

}  // namespace flamefold
