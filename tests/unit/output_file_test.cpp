// OutputFile: written beside the target, then moved into place in one step. Replacing an
// existing file swaps the names and removes the old file on a thread of its own; every case must
// end as a plain rename() over the target would.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

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

// Once replaced files are removed: the directory holds only `name`, with `content`.
void expect_only(const fs::path& dir, const std::string& name, const std::string& content) {
  flamefold::wait_for_replaced_outputs();
  EXPECT_EQ(test::read_file((dir / name).string()), content);
  EXPECT_EQ(entries(dir), 1u) << "no temporary or replaced file is left";
}

}  // namespace

TEST(OutputFile, NewTargetIsCreated) {
  fs::path d = fresh_dir("out_new");
  write_output(d / "a.svg", "new");
  expect_only(d, "a.svg", "new");
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
  expect_only(d, "a.folded", "third");
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
  expect_only(d, "a.svg", "60");
}

TEST(OutputFile, SymlinkIsFollowedAndStays) {
  fs::path d = fresh_dir("out_symlink");
  test::write_file("out_symlink/pointee", "old");
  fs::create_hard_link(d / "pointee", d / "old-link");
  fs::create_symlink(d / "pointee", d / "a.svg");
  write_output(d / "a.svg", "new");
  flamefold::wait_for_replaced_outputs();
  EXPECT_TRUE(fs::is_symlink(d / "a.svg"));
  EXPECT_EQ(test::read_file((d / "pointee").string()), "new");
  EXPECT_EQ(test::read_file((d / "old-link").string()), "old") << "the pointee was replaced, not written over";
  EXPECT_EQ(entries(d), 3u) << "no temporary file is left";
}

// Devices, pipes and the process's own descriptors are written as they are: a rename over
// them would replace /dev/null or the /dev/stdout link (as root, for the whole machine).
TEST(OutputFile, DeviceIsWrittenInPlace) {
  // A null device of the test's own (a broken build replaces that one, not the machine's).
  fs::path d = fresh_dir("out_device");
  if (::mknod((d / "null").c_str(), S_IFCHR | 0600, ::makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot make a device node here (" << std::strerror(errno) << "); the pipe test covers the same path";
  write_output(d / "null", std::string(3 << 20, 'x'));
  struct stat st;
  ASSERT_EQ(::stat((d / "null").c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "still a device";
  EXPECT_EQ(entries(d), 1u);
}

TEST(OutputFile, PipeIsWrittenInPlace) {
  fs::path d = fresh_dir("out_fifo");
  const std::string fifo = (d / "a.folded").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reading end is open first (without waiting for a writer), so that a build which
  // renames over the pipe instead fails here rather than hangs.
  const int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(rd, 0);
  const std::string sent = "main;f 1\n";
  std::thread writer([&] { write_output(fifo, sent); });
  std::string got;
  for (int waited_ms = 0; got.size() < sent.size() && waited_ms < 10000; ) {
    char buf[64];
    const ssize_t n = ::read(rd, buf, sizeof buf);
    if (n > 0) {
      got.append(buf, static_cast<size_t>(n));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      ++waited_ms;
    }
  }
  writer.join();
  ::close(rd);
  EXPECT_EQ(got, sent);
  struct stat st;
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "still a pipe";
  EXPECT_EQ(entries(d), 1u);
}

TEST(OutputFile, OwnDescriptorIsWrittenAsItIs) {
  fs::path d = fresh_dir("out_fd");
  const std::string file = test::write_file("out_fd/appended", "before;");
  const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  write_output("/dev/fd/" + std::to_string(fd), "after");
  write_output("/proc/self/fd/" + std::to_string(fd), ";again");
  ::close(fd);
  EXPECT_EQ(test::read_file(file), "before;after;again") << "appended, as the descriptor was opened";
  EXPECT_EQ(entries(d), 1u);
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

// The CLI with `-o /dev/stdout` (stdout a file here, opened by the shell) and `-o /dev/null`:
// the output goes where the descriptor points, and the links and devices in /dev stay.
TEST(OutputFile, CommandLineWritesToDevStdoutAndDevNull) {
  const std::string in = test::write_file("in.folded", "main;work 3\nmain;idle 1\n");
  test::RunResult plain = test::flamefold("collapse " + in);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  test::RunResult via_link = test::flamefold("collapse " + in + " -o /dev/stdout");
  EXPECT_EQ(via_link.exit_code, 0) << via_link.err;
  EXPECT_EQ(via_link.out, plain.out);
  EXPECT_TRUE(fs::is_symlink("/dev/stdout"));
  test::RunResult to_null = test::flamefold("collapse " + in + " -o /dev/null");
  EXPECT_EQ(to_null.exit_code, 0) << to_null.err;
  struct stat st;
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}
