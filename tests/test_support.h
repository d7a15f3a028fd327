// Helpers shared by the tests: temporary files, running the flamefold binary, ../shared.
#pragma once
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace test {

inline std::string source_dir() { return FLAMEFOLD_SOURCE_DIR; }
inline std::string binary() { return FLAMEFOLD_BINARY; }

// ../shared when it exists, otherwise "" (callers skip with a message).
inline std::string shared_dir() {
  std::filesystem::path p(FLAMEFOLD_SHARED_DIR);
  return std::filesystem::exists(p) ? std::filesystem::canonical(p).string() : std::string();
}
#define REQUIRE_SHARED(sub)                                                                 \
  std::string shared_path = test::shared_dir();                                             \
  if (shared_path.empty() || !std::filesystem::exists(shared_path + "/" + (sub)))           \
    GTEST_SKIP() << "../shared/" << (sub) << " is not present: skipping this real-data test"; \
  shared_path += "/";

// A fresh path under the build's test-tmp directory.
inline std::string tmp_path(const std::string& name) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string dir = std::string(FLAMEFOLD_TEST_TMP) + "/" + info->test_suite_name() + "." + info->name();
  std::filesystem::create_directories(dir);
  return dir + "/" + name;
}

inline std::string write_file(const std::string& name, const std::string& content) {
  std::string path = tmp_path(name);
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs a shell command line, capturing stdout and stderr.
inline RunResult run(const std::string& command) {
  std::string out_file = tmp_path("run.stdout"), err_file = tmp_path("run.stderr");
  std::string cmd = command + " >" + out_file + " 2>" + err_file;
  int rc = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
  r.out = read_file(out_file);
  r.err = read_file(err_file);
  return r;
}

// Runs the flamefold binary with arguments (already shell-quoted by the caller).
inline RunResult flamefold(const std::string& args) { return run(binary() + " " + args); }

// Folded lines with their first `levels` frames removed, equal stacks added up, sorted: what
// the output of a coarser --group-by must be. Lines with no frames left are dropped.
inline std::string drop_root_frames(const std::string& folded, int levels) {
  std::map<std::string, double> merged;
  std::istringstream in(folded);
  for (std::string line; std::getline(in, line);) {
    size_t sp = line.rfind(' ');
    if (sp == std::string::npos) continue;
    std::string stack = line.substr(0, sp);
    bool kept = true;
    for (int k = 0; k < levels && kept; ++k) {
      size_t semi = stack.find(';');
      kept = semi != std::string::npos;
      if (kept) stack.erase(0, semi + 1);
    }
    if (kept) merged[stack] += std::stod(line.substr(sp + 1));
  }
  std::string out;
  for (const auto& [stack, w] : merged) {
    char num[64];
    std::snprintf(num, sizeof num, "%.17g", w);
    out += stack + " " + num + "\n";
  }
  return out;
}

}  // namespace test
