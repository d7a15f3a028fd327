// advise_huge_pages (include/flamefold/heap.h): the 2 MB-aligned part of a buffer is marked for
// transparent huge pages (the kernel's "hg" flag on its mapping), small buffers are left alone.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "flamefold/heap.h"

using namespace flamefold;

namespace {

// The VmFlags of the mapping holding `address`, from /proc/self/smaps ("" when not found).
std::string vm_flags_at(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = a >= lo && a < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

bool marked_huge(const std::string& flags) { return flags.find(" hg") != std::string::npos; }

}  // namespace

TEST(Heap, BigBuffersAreMarkedForHugePagesSmallOnesAreNot) {
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) GTEST_SKIP() << "this kernel has no transparent huge pages";
  std::vector<char> big(size_t(16) << 20);
  advise_huge_pages(big.data(), big.size());
  const char* middle = big.data() + big.size() / 2;  // inside the 2 MB-aligned part
  EXPECT_TRUE(marked_huge(vm_flags_at(middle))) << vm_flags_at(middle);

  std::vector<char> small(size_t(1) << 20);  // no whole 2 MB page inside: nothing to mark
  const std::string before = vm_flags_at(small.data());
  advise_huge_pages(small.data(), small.size());
  EXPECT_EQ(vm_flags_at(small.data()), before);
  advise_huge_pages(nullptr, 0);  // harmless
}
