// OutputFile: written beside the target, then moved into place in one step. Replacing an
// existing file swaps the names and removes the old file on a thread of its own; every case must
// end as a plain rename() over the target would.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>

#include "flamefold/output.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace {

// A fresh directory of its own, so that listing it shows every file an OutputFile left.
fs::path fresh_dir(const std::string& name) {
  fs::path d = test::tmp_path(name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write_output(const fs::path& target, const std::string& content) {
  flamefold::OutputFile out(target.string());
  out.write(content);
  out.commit();
}

size_t entries(const fs::path& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    (void)e;
    ++n;
  }
  return n;
}

}  // namespace

TEST(OutputFile, NewTargetIsCreated) {
  fs::path d = fresh_dir("out_new");
  write_output(d / "a.svg", "new");
  flamefold::wait_for_replaced_outputs();
  EXPECT_EQ(test::read_file((d / "a.svg").string()), "new");
  EXPECT_EQ(entries(d), 1u);
}

TEST(OutputFile, ExistingFileIsReplacedAndTheOldOneRemoved) {
  fs::path d = fresh_dir("out_replace");
  test::write_file("out_replace/a.html", std::string(1 << 20, 'o'));
  fs::create_hard_link(d / "a.html", d / "old-link");  // sees the old file's data, if it lives on
  write_output(d / "a.html", "new");
  flamefold::wait_for_replaced_outputs();
  EXPECT_EQ(test::read_file((d / "a.html").string()), "new");
  // A new file took the name: the old one is untouched, not written over in place ...
  EXPECT_EQ(test::read_file((d / "old-link").string()), std::string(1 << 20, 'o'));
  EXPECT_EQ(fs::hard_link_count(d / "old-link"), 1u);  // ... and its other name is gone
  EXPECT_EQ(entries(d), 2u) << "no temporary file is left";
}

TEST(OutputFile, ReplacingTwiceInARowKeepsTheLast) {
  fs::path d = fresh_dir("out_twice");
  write_output(d / "a.folded", "first");
  write_output(d / "a.folded", "second");
  write_output(d / "a.folded", "third");
  flamefold::wait_for_replaced_outputs();
  EXPECT_EQ(test::read_file((d / "a.folded").string()), "third");
  EXPECT_EQ(entries(d), 1u);
}

// A program writing outputs in a loop (the Python module's callers) keeps one removal thread,
// not one per output: threads that ended but were never joined would each keep their stack
// (8 MB of address space).
TEST(OutputFile, ManyReplacementsKeepOneThread) {
  fs::path d = fresh_dir("out_loop");
  auto address_space_kb = [] {
    std::string status = test::read_file("/proc/self/status");
    size_t at = status.find("VmSize:");
    return at == std::string::npos ? 0L : std::stol(status.substr(at + 7));
  };
  write_output(d / "a.svg", "0");
  write_output(d / "a.svg", "1");
  flamefold::wait_for_replaced_outputs();
  const long before = address_space_kb();
  ASSERT_GT(before, 0);
  for (int i = 2; i <= 60; ++i) write_output(d / "a.svg", std::to_string(i));
  EXPECT_LT(address_space_kb() - before, 64 * 1024) << "KB of address space more after 59 replacements";
  flamefold::wait_for_replaced_outputs();
  EXPECT_EQ(test::read_file((d / "a.svg").string()), "60");
  EXPECT_EQ(entries(d), 1u);
}

TEST(OutputFile, SymlinkTargetIsReplacedNotFollowed) {
  fs::path d = fresh_dir("out_symlink");
  test::write_file("out_symlink/pointee", "keep");
  fs::create_symlink(d / "pointee", d / "a.svg");
  write_output(d / "a.svg", "new");
  flamefold::wait_for_replaced_outputs();
  EXPECT_FALSE(fs::is_symlink(d / "a.svg"));
  EXPECT_EQ(test::read_file((d / "a.svg").string()), "new");
  EXPECT_EQ(test::read_file((d / "pointee").string()), "keep");
  EXPECT_EQ(entries(d), 2u);
}

TEST(OutputFile, DirectoryTargetFailsAndStaysADirectory) {
  fs::path d = fresh_dir("out_dir");
  fs::create_directories(d / "a.svg");
  test::write_file("out_dir/a.svg/inside", "x");
  {
    flamefold::OutputFile out((d / "a.svg").string());
    out.write("new");
    try {
      out.commit();
      ADD_FAILURE() << "committing over a directory must fail";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("cannot move output into place"), std::string::npos) << e.what();
    }
  }
  flamefold::wait_for_replaced_outputs();
  EXPECT_TRUE(fs::is_directory(d / "a.svg"));
  EXPECT_EQ(test::read_file((d / "a.svg" / "inside").string()), "x");
  EXPECT_EQ(entries(d), 1u) << "the temporary file is removed";
}

namespace {

// A child process writes an output and stops half-way; the signal then ends it.
void expect_signal_leaves_nothing(int sig) {
  fs::path d = fresh_dir("out_signal_" + std::to_string(sig));
  test::write_file("out_signal_" + std::to_string(sig) + "/a.html", "old");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    flamefold::remove_unfinished_outputs_on_signals();
    flamefold::OutputFile out((d / "a.html").string());
    out.write(std::string(3 << 20, 'x'));  // past the buffer: on disk
    (void)!::write(ready[1], "r", 1);
    for (;;) ::pause();
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  EXPECT_EQ(entries(d), 2u) << "the temporary file exists while the output is written";
  ::kill(child, sig);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ::close(ready[0]);
  ::close(ready[1]);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "ended by the signal, status " << status;
  EXPECT_EQ(entries(d), 1u) << "no temporary file is left";
  EXPECT_EQ(test::read_file((d / "a.html").string()), "old") << "the old output is untouched";
}

}  // namespace

TEST(OutputFile, InterruptRemovesTheUnfinishedFile) { expect_signal_leaves_nothing(SIGINT); }
TEST(OutputFile, TerminateRemovesTheUnfinishedFile) { expect_signal_leaves_nothing(SIGTERM); }
TEST(OutputFile, HangupRemovesTheUnfinishedFile) { expect_signal_leaves_nothing(SIGHUP); }
