#include "flamefold/output.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>

namespace flamefold {

namespace {

// The temporary files of outputs being written, where a signal handler can find them: fixed
// slots, as a handler may not allocate or take locks.
struct PendingFile {
  std::atomic<int> state{0};  // kFree, kFilling (path being copied in), kReady
  char path[4096];
};
constexpr int kFree = 0, kFilling = 1, kReady = 2;
PendingFile pending_files[32];

int note_pending(const std::string& path) {
  if (path.size() >= sizeof(PendingFile::path)) return -1;
  for (int i = 0; i < static_cast<int>(std::size(pending_files)); ++i) {
    int free = kFree;
    if (!pending_files[i].state.compare_exchange_strong(free, kFilling)) continue;
    std::memcpy(pending_files[i].path, path.c_str(), path.size() + 1);
    pending_files[i].state.store(kReady);
    return i;
  }
  return -1;  // more at once than slots: that one is not removed on a signal
}

void forget_pending(int slot) {
  if (slot >= 0) pending_files[slot].state.store(kFree);
}

extern "C" void remove_pending_and_die(int sig) {
  for (PendingFile& f : pending_files)
    if (f.state.load() == kReady) ::unlink(f.path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);  // ends the process as the signal would have, its status included
}

class Removals;
Removals& removals();

// Files that outputs replaced, removed on a thread of their own: freeing a big file's blocks
// takes ~10 ms, which then overlaps the rest of the run (tearing down the profile). One removal
// at a time (a program writing outputs in a loop keeps one thread, not one per output); waited
// for when the process exits. Each file stays a pending one until it is gone.
class Removals {
 public:
  Removals() {
    // A child forked meanwhile (Python's multiprocessing) has no such thread: it forgets it
    // rather than join it, and leaves the removal to the parent.
    ::pthread_atfork(nullptr, nullptr, [] {
      Removals& r = removals();
      new (&r.mutex_) std::mutex;
      if (r.thread_.joinable()) new std::thread(std::move(r.thread_));  // never joined, never freed
    });
  }
  ~Removals() { wait(); }
  void remove(std::string path, int slot) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (thread_.joinable()) thread_.join();
    thread_ = std::thread([path = std::move(path), slot] {
      ::unlink(path.c_str());
      forget_pending(slot);
    });
  }
  void wait() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::mutex mutex_;
  std::thread thread_;
};
Removals& removals() {
  static Removals r;
  return r;
}

// Moves the finished temporary file onto an existing target by swapping the two names (one
// atomic step, like rename()), so that the old file's removal can happen later. A plain
// rename() over an existing file costs more on ext4, which also forces the new file's blocks
// to be allocated there and then. False when the target is not a file (a directory must fail as
// rename() fails) or the file system cannot swap.
bool swap_into_place(const std::string& tmp, const std::string& target) {
#ifdef RENAME_EXCHANGE
  struct stat st;
  if (::lstat(target.c_str(), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) return false;
  return ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0;
#else
  (void)tmp;
  (void)target;
  return false;
#endif
}

}  // namespace

void remove_unfinished_outputs_on_signals() {
  struct sigaction a {};
  a.sa_handler = remove_pending_and_die;
  sigemptyset(&a.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    struct sigaction old {};
    // A signal the process was started ignoring (nohup) stays ignored.
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &a, nullptr);
  }
}

void wait_for_replaced_outputs() { removals().wait(); }

namespace {

// The descriptor a path names when it is one of this process's own: /dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N. Written to as it is (the shell may have opened it to append);
// replacing the name would replace the link in /dev. -1 for other paths.
int own_descriptor(std::string_view path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (std::string_view prefix : {std::string_view("/dev/fd/"), std::string_view("/proc/self/fd/")}) {
    if (!path.starts_with(prefix) || path.size() == prefix.size() || path.size() > prefix.size() + 6) continue;
    int n = 0;
    for (char c : path.substr(prefix.size())) {
      if (c < '0' || c > '9') return -1;
      n = n * 10 + (c - '0');
    }
    return n;
  }
  return -1;
}

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  buf_.reserve(kFlushAt + 4096);
  if (path_ == "-") {
    fd_ = 1;
    return;
  }
  // Special files are written in place: a descriptor of this process's own, a device
  // (/dev/null), a pipe. Renaming a file over them would replace the device or the link.
  struct stat st;
  const int own = own_descriptor(path_);
  const bool exists = own < 0 && ::stat(path_.c_str(), &st) == 0;
  if (own >= 0 || (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {
    fd_ = own >= 0 ? ::fcntl(own, F_DUPFD_CLOEXEC, 3) : ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) throw std::runtime_error(path_ + ": cannot write there: " + std::strerror(errno));
    in_place_ = true;
    return;
  }
  // A symlink to a file stays one: the file it names is replaced (as `>` and inferno write
  // through it).
  target_ = path_;
  struct stat lst;
  if (exists && S_ISREG(st.st_mode) && ::lstat(path_.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    if (char* real = ::realpath(path_.c_str(), nullptr)) {
      target_ = real;
      std::free(real);
    }
  }
  // The temporary file sits beside the target so rename() stays on one file system; its name
  // is the process's and the output's own (a replaced file may still sit at an earlier one).
  static std::atomic<uint32_t> outputs{0};
  tmp_path_ = target_ + ".flamefold-tmp-" + std::to_string(::getpid()) + "-" + std::to_string(outputs++);
  fd_ = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(path_ + ": cannot create output file: " + std::strerror(errno));
  pending_slot_ = note_pending(tmp_path_);
}

OutputFile::~OutputFile() {
  if (path_ == "-") {
    if (!committed_) {
      try {
        flush();
      } catch (...) {
      }
    }
    return;
  }
  if (!committed_) {
    if (fd_ >= 0) ::close(fd_);
    if (!in_place_) discard_temporary();  // (in place, nothing of ours to remove)
  }
}

void OutputFile::discard_temporary() {
  ::unlink(tmp_path_.c_str());
  forget_pending(pending_slot_);
}

void OutputFile::write_raw(std::string_view s) {
  const char* p = s.data();
  size_t n = s.size();
  while (n) {
    ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(path_ + ": write failed: " + std::strerror(errno));
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  written_ += s.size();
}

void OutputFile::flush() {
  if (buf_.empty()) return;
  write_raw(buf_);
  buf_.clear();
}

void OutputFile::commit() {
  flush();
  committed_ = true;
  if (path_ == "-") return;
  if (in_place_) {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw std::runtime_error(path_ + ": write failed: " + std::strerror(errno));
    return;
  }
  if (::close(fd_) != 0) {
    discard_temporary();
    throw std::runtime_error(path_ + ": write failed: " + std::strerror(errno));
  }
  fd_ = -1;
  if (swap_into_place(tmp_path_, target_)) {
    removals().remove(tmp_path_, pending_slot_);  // the temporary name now holds the old file
    return;
  }
  if (::rename(tmp_path_.c_str(), target_.c_str()) != 0) {
    int e = errno;
    discard_temporary();
    throw std::runtime_error(path_ + ": cannot move output into place: " + std::strerror(e));
  }
  forget_pending(pending_slot_);
}

bool names_stdout(std::string_view path) { return path == "-" || own_descriptor(path) == 1; }

std::string output_extension(std::string_view path) {
  size_t slash = path.find_last_of('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  size_t dot = base.find_last_of('.');
  if (dot == std::string_view::npos) return "";
  std::string ext(base.substr(dot + 1));
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

}  // namespace flamefold
