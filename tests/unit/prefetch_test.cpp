// flamefold::prefetch (include/flamefold/prefetch.h): the one way sources ask for a cache line
// ahead, because GCC deleted __builtin_prefetch wherever the code around it did nothing else.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "flamefold/prefetch.h"
#include "test_support.h"

namespace {

// A request is a hint: addresses past an array's end, or null, never fault.
TEST(Prefetch, AnyAddressIsOnlyAHint) {
  std::vector<int> v(16, 7);
  flamefold::prefetch(v.data());
  flamefold::prefetch(v.data() + v.size() + 4096);
  flamefold::prefetch(nullptr);
  EXPECT_EQ(v[15], 7);
}

// No source calls __builtin_prefetch directly: such calls vanished from the binary (make_frames
// had none of its own, LineTree::add one of three) and nothing failed.
TEST(Prefetch, SourcesUseFlamefoldPrefetch) {
  namespace fs = std::filesystem;
  std::vector<std::string> direct;
  size_t files = 0;
  for (const char* dir : {"src", "include"})
    for (const auto& e : fs::recursive_directory_iterator(fs::path(test::source_dir()) / dir)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".inc")) continue;
      if (e.path().filename() == "prefetch.h") continue;
      ++files;
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      if (text.str().find("__builtin_prefetch(") != std::string::npos) direct.push_back(e.path().string());
    }
  EXPECT_GT(files, 50u);
  EXPECT_TRUE(direct.empty()) << "use flamefold::prefetch in " << direct.front();
}

}  // namespace
