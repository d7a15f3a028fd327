// The Kineto reader's AVX2 build must not leak AVX2 code to other callers: its weak copies of
// inline functions (std::vector, std::string, simdjson, flamefold headers) are renamed at build
// time (cmake/private_weak_symbols.cmake). Checked on the built binary: every function that
// uses an instruction beyond the x86-64 baseline belongs to that object. Before the renaming
// the linker kept the AVX2 copies of std::vector<char>'s constructors for the whole program.
#include <set>
#include <sstream>
#include <string>

#include "test_support.h"

namespace {

bool beyond_baseline(const std::string& line) {
  // "  4a1b20:\tvmovdqu (%rdi),%ymm0": the mnemonic follows the first tab.
  size_t tab = line.find('\t');
  if (tab == std::string::npos) return false;
  size_t end = line.find_first_of(" \t", tab + 1);
  std::string op = line.substr(tab + 1, end == std::string::npos ? std::string::npos : end - tab - 1);
  // AVX/AVX2 (VEX-encoded, ymm), BMI1/2, LZCNT, POPCNT, PCLMUL. Not "tzcnt": GCC emits
  // "rep bsf" for __builtin_ctz on the baseline (it runs as bsf on older CPUs), which objdump
  // prints as tzcnt.
  static const std::set<std::string> extensions = {"andn", "bextr", "blsi",  "blsmsk", "blsr",  "bzhi",  "mulx",
                                                   "pdep", "pext",  "rorx", "sarx",   "shlx",  "shrx",  "lzcnt",
                                                   "popcnt", "pclmulqdq"};
  return (op.size() > 1 && op[0] == 'v') || extensions.count(op) || line.find("%ymm") != std::string::npos;
}

}  // namespace

TEST(MiscAvx2Symbols, OnlyTheAvx2ReaderUsesAvx2Instructions) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "x86-64 only";
#endif
  test::RunResult which = test::run("command -v objdump");
  if (which.exit_code != 0) GTEST_SKIP() << "objdump (binutils) is not installed";
  test::RunResult r = test::run("objdump -d --no-show-raw-insn " + test::binary());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Local functions (nm type 't': compiler clones such as .isra.0 in a sanitizer build) cannot
  // be bound from another object, and only the AVX2 object is compiled for AVX2: not leaks.
  test::RunResult symbols = test::run("nm --defined-only " + test::binary());
  ASSERT_EQ(symbols.exit_code, 0) << symbols.err;
  std::set<std::string> local;
  {
    std::istringstream nm(symbols.out);
    std::string address, type, name;
    while (nm >> address >> type >> name)
      if (type == "t") local.insert(name);
  }
  std::istringstream in(r.out);
  std::string line, function;
  std::set<std::string> own, others;
  while (std::getline(in, line)) {
    // "00000000004a1b20 <_ZN9flamefold...>:"
    size_t open = line.find(" <");
    if (!line.empty() && line[0] != ' ' && open != std::string::npos && line.size() > open + 4 &&
        line.compare(line.size() - 2, 2, ">:") == 0) {
      function = line.substr(open + 2, line.size() - open - 4);
      continue;
    }
    if (function.empty() || line.size() < 4 || !beyond_baseline(line)) continue;
    // The AVX2 object's own functions, and its renamed copies of inline ones.
    bool mine = function.find("kineto_avx2") != std::string::npos ||
                function.size() > 8 && function.compare(function.size() - 8, 8, ".ff_avx2") == 0 ||
                local.count(function);
    (mine ? own : others).insert(function);
  }
  EXPECT_GT(own.size(), 5u) << "the AVX2 Kineto reader is not in the binary, or not built for AVX2";
  std::string list;
  for (const std::string& f : others) list += "\n  " + f;
  EXPECT_TRUE(others.empty()) << "functions outside the AVX2 Kineto reader use AVX2/BMI instructions:" << list;
}
