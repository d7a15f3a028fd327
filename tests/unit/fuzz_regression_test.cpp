// Replays every input the fuzzers found a bug with (tests/fuzz_regressions/<target>/<input>,
// kept when the bug was fixed) through the same target code (fuzz/targets.h), in the normal
// build: each must now read cleanly or be refused with a one-line error. A regression aborts
// this test (targets.h calls abort() on anything else) or trips the sanitizer build
// (`make test-sanitize`), where these inputs found their bugs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "targets.h"
#include "test_support.h"

namespace fs = std::filesystem;

TEST(FuzzRegressions, EveryKeptInputReadsOrIsRefusedCleanly) {
  fs::path root = fs::path(test::source_dir()) / "tests" / "fuzz_regressions";
  ASSERT_TRUE(fs::is_directory(root)) << root;
  size_t replayed = 0;
  for (const fs::directory_entry& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    std::string target = dir.path().filename().string();
    for (const fs::directory_entry& f : fs::directory_iterator(dir.path())) {
      std::ifstream in(f.path(), std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      SCOPED_TRACE(f.path().string());
      flamefold::fuzz::run_target(target, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  std::cout << "replayed " << replayed << " fuzz findings\n";
  SUCCEED();
}
