#include "flamefold/heap.h"

#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>

namespace flamefold {

void heap_prefer_huge_pages() {
  // Once per process, whichever thread asks first (diff reads its two sides on two threads).
  static std::once_flag once;
  std::call_once(once, [] {
    // Reserve address space at the top of the heap, mark it for huge pages and free it again:
    // with trimming pushed out of the way it stays the heap's top, and later allocations are
    // carved from it. Untouched parts cost no memory.
    constexpr size_t kReserve = size_t(256) << 20, kHuge = size_t(2) << 20;
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_ARENA_MAX, 1);  // worker threads too (their own arenas would be plain mmap)
    char* p = static_cast<char*>(std::malloc(kReserve));
    if (!p) return;
    uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    uintptr_t end = (reinterpret_cast<uintptr_t>(p) + kReserve) & ~(kHuge - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // a no-op without THP
    std::free(p);
    // Past the reserve, big arrays get mappings of their own again, returned when freed.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
  });
}

void advise_huge_pages(const void* data, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

void heap_prefer_huge_pages_for_input(uint64_t input_bytes) {
  if (input_bytes != 0 && input_bytes < (uint64_t(256) << 20)) heap_prefer_huge_pages();
}

}  // namespace flamefold
