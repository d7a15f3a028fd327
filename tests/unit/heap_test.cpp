// heap_reuse_freed_memory (include/flamefold/heap.h): memory a reader frees is handed out again
// from the heap, without the kernel faulting in (and zeroing) fresh pages for it.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>

#include "flamefold/heap.h"

using namespace flamefold;

namespace {

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Writes a byte on every 4 KB page of [p, p + bytes) (volatile: the stores are not optimised away
// with the block).
void touch(void* p, size_t bytes) {
  volatile char* c = static_cast<volatile char*>(p);
  for (size_t i = 0; i < bytes; i += 4096) c[i] = 1;
}

// Page faults taken by touching a block of `bytes` allocated right after one of the same size
// was touched and freed (-1 when malloc failed).
long faults_of_reused_block(size_t bytes) {
  void* first = std::malloc(bytes);
  if (!first) return -1;
  touch(first, bytes);
  std::free(first);
  const long before = minor_faults();
  void* second = std::malloc(bytes);
  if (!second) return -1;
  touch(second, bytes);
  const long faults = minor_faults() - before;
  std::free(second);
  return faults;
}

}  // namespace

TEST(Heap, FreedBlocksAreReusedWithoutFreshPages) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's allocator takes no malloc policy";
#endif
  heap_reuse_freed_memory();
  heap_reuse_freed_memory();  // idempotent
  // 2,048 pages; under the 32 MB of a mapping of its own. Given back to the kernel (glibc's
  // default for a block this big), the second block would take a fault per page.
  const long faults = faults_of_reused_block(size_t(8) << 20);
  ASSERT_GE(faults, 0) << "malloc failed";
  EXPECT_LT(faults, 64) << "touching a reused 8 MB block took " << faults << " page faults";
}

// Blocks of 32 MB and more, which glibc otherwise maps and unmaps on their own, come from the
// reserve made at the heap's top and go back to it: the reader's 32 MB lookup table, freed, is
// the HTML writer's sort keys. (The reserve was once a malloc whose block was only freed, which
// GCC dropped: every such block then took a fault per page.)
TEST(Heap, BigFreedBlocksAreReusedWithoutFreshPages) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's allocator takes no malloc policy";
#endif
  heap_reuse_freed_memory();
  const long faults = faults_of_reused_block(size_t(48) << 20);  // 12,288 pages; past the 32 MB threshold
  ASSERT_GE(faults, 0) << "malloc failed";
  EXPECT_LT(faults, 64) << "touching a reused 48 MB block took " << faults << " page faults";
}
