// Hostile and broken inputs through the binary: an error line (exit 2, no output file) or
// correct output, never a crash.
#include <algorithm>
#include <filesystem>
#include <string>

#include "test_support.h"

namespace {

std::string shell_quoted(const std::string& s) { return "'" + s + "'"; }

// exit 2 with one "flamefold: error:" line naming the file, and no output file left behind.
void expect_clean_error(const std::string& input, const std::string& what) {
  std::string out = test::tmp_path("out.folded");
  std::filesystem::remove(out);
  test::RunResult r = test::flamefold("collapse " + shell_quoted(input) + " -o " + shell_quoted(out));
  EXPECT_EQ(r.exit_code, 2) << what << ": " << r.err;
  EXPECT_EQ(r.err.rfind("flamefold: error: ", 0), 0u) << what << ": " << r.err;
  EXPECT_NE(r.err.find(input), std::string::npos) << what << ": the message names the file: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": one line: " << r.err;
  EXPECT_FALSE(std::filesystem::exists(out)) << what;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(out).parent_path()))
    EXPECT_EQ(entry.path().filename().string().find("flamefold-tmp"), std::string::npos) << what;
}

// Every command and output kind either succeeds or fails cleanly (no signal, no abort).
void expect_no_crash(const std::string& input, const std::string& what) {
  for (const char* args : {"collapse", "info", "top", "flamegraph -o OUT.svg", "flamegraph -o OUT.html"}) {
    std::string a = args;
    size_t at = a.find("OUT");
    if (at != std::string::npos) a.replace(at, 3, test::tmp_path("graph"));
    test::RunResult r = test::flamefold(a + " " + shell_quoted(input));
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << what << " / " << args << ": exit " << r.exit_code << " " << r.err;
  }
}

}  // namespace

TEST(BadInput, EmptyFileIsAnError) {
  std::string path = test::write_file("empty.txt", "");
  expect_clean_error(path, "empty");
  expect_no_crash(path, "empty");
}

TEST(BadInput, BinaryGarbageIsAnError) {
  std::string garbage;
  uint32_t x = 2463534242u;
  for (int i = 0; i < 200000; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    garbage.push_back(static_cast<char>(x));
  }
  std::string path = test::write_file("garbage.bin", garbage);
  expect_clean_error(path, "garbage");
  expect_no_crash(path, "garbage");
  // Forced to be read as perf script, it is still not perf script.
  test::RunResult r = test::flamefold("collapse --format perf " + shell_quoted(path));
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.err;
}

TEST(BadInput, MissingFileAndDirectoryAreErrors) {
  expect_clean_error(test::tmp_path("does-not-exist.txt"), "missing");
  std::string dir = test::tmp_path("a-directory");
  std::filesystem::create_directories(dir);
  expect_clean_error(dir, "directory");
}

TEST(BadInput, TruncatedLastSampleIsDroppedAndReported) {
  std::string path = test::write_file("truncated.perf",
                                      "prog 10 1.0: 1 cycles:\n\t1 main (/bin/prog)\n\n"
                                      "prog 10 1.1: 1 cycles:\n\t1 work (/bin/prog)\n\t1 ma");
  test::RunResult r = test::flamefold("collapse " + shell_quoted(path));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "prog;main 1\n");
  EXPECT_NE(r.err.find("last sample not ended by a blank line"), std::string::npos) << r.err;
  expect_no_crash(path, "truncated");
  // A folded file cut in the middle of a line: the cut line has no count.
  std::string folded = test::write_file("truncated.folded", "a;b 3\na;c 4\na;d;e");
  r = test::flamefold("collapse " + shell_quoted(folded));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "a;b 3\na;c 4\n");
  EXPECT_NE(r.err.find("lines without a trailing count"), std::string::npos) << r.err;
}

TEST(BadInput, HundredThousandDeepStack) {
  std::string perf = "deep 1 1.0: 1 cycles:\n";
  for (int i = 100000; i-- > 0;) perf += "\t" + std::to_string(1000 + i) + " f" + std::to_string(i) + " (/bin/deep)\n";
  perf += "\n";
  std::string path = test::write_file("deep.perf", perf);
  test::RunResult r = test::flamefold("collapse " + shell_quoted(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), ';'), 100000);
  EXPECT_EQ(r.out.rfind("deep;f0;f1;f2;", 0), 0u);
  EXPECT_EQ(r.out.substr(r.out.size() - 10), ";f99999 1\n");
  // The same stack as folded input.
  std::string folded_path = test::write_file("deep.folded", r.out);
  test::RunResult again = test::flamefold("collapse " + shell_quoted(folded_path));
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, r.out);
  expect_no_crash(path, "deep perf");
  expect_no_crash(folded_path, "deep folded");
}

TEST(BadInput, TenMegabyteFrameName) {
  std::string name(10 << 20, 'x');
  std::string path = test::write_file("bigname.perf", "big 1 1.0: 1 cycles:\n\t1 " + name + " (/x)\n\t2 main (/x)\n\n");
  test::RunResult r = test::flamefold("collapse " + shell_quoted(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "big;main;" + name + " 1\n");
  std::string folded_path = test::write_file("bigname.folded", "main;" + name + " 7\n");
  r = test::flamefold("collapse " + shell_quoted(folded_path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "main;" + name + " 7\n");
  expect_no_crash(path, "big name");
}

TEST(BadInput, InvalidUtf8IsPassedThroughLikeThePerlTools) {
  std::string perf = "pr\xC3\x28g 5 1.0: 1 cycles:\n\t1 f\xFF\xC0 (/x)\n\t2 caf\xC3\xA9 (/x)\n\n";
  std::string path = test::write_file("bad-utf8.perf", perf);
  test::RunResult r = test::flamefold("collapse " + shell_quoted(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "pr\xC3\x28g;caf\xC3\xA9;f\xFF\xC0 1\n");
  expect_no_crash(path, "invalid UTF-8 perf");
  std::string folded_path = test::write_file("bad-utf8.folded", "a;\xED\xA0\x80;\xFE 2\n\xC0\xAF 1\n");
  r = test::flamefold("collapse " + shell_quoted(folded_path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "a;\xED\xA0\x80;\xFE 2\n\xC0\xAF 1\n");
  expect_no_crash(folded_path, "invalid UTF-8 folded");
}
