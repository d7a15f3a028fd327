#include "flamefold/heap.h"

#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>

namespace flamefold {

void heap_reuse_freed_memory() {
  // Once per process, whichever thread asks first (diff reads its two sides on two threads).
  static std::once_flag once;
  std::call_once(once, [] {
    // The reserve comes from the heap's top (not a mapping of its own) and stays its top once
    // freed; untouched parts of it cost no memory.
    // glibc takes no mmap threshold above 32 MB, so the reserve is made with mmap turned off;
    // later, a block of any size is carved from the heap while its top has room. The pointer is
    // volatile because the compiler may drop a malloc whose block is only freed (GCC did, once
    // the huge-page advice that used the block was gone: there was then no reserve, and blocks
    // of 32 MB and more were mappings of their own, fresh pages each time).
    constexpr size_t kReserve = size_t(256) << 20;
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_ARENA_MAX, 1);  // worker threads too (their own arenas would be plain mmap)
    mallopt(M_MMAP_MAX, 0);
    void* volatile reserve = std::malloc(kReserve);
    std::free(reserve);
    mallopt(M_MMAP_MAX, 65536);  // glibc's default
    // Past the reserve, big arrays get mappings of their own again, returned when freed.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
  });
}

void heap_reuse_freed_memory_for_input(uint64_t input_bytes) {
  if (input_bytes != 0 && input_bytes < (uint64_t(256) << 20)) heap_reuse_freed_memory();
}

}  // namespace flamefold
