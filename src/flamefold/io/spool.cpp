#include "flamefold/spool.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace flamefold {

namespace {
[[noreturn]] void fail(const std::string& dir, int err) {
  throw std::runtime_error("temporary file in " + dir + ": " + std::strerror(err));
}
}  // namespace

SpillFile& SpillFile::operator=(SpillFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    size_ = o.size_;
    preallocate_ = o.preallocate_;
    dir_ = std::move(o.dir_);
    o.fd_ = -1;
  }
  return *this;
}

SpillFile::~SpillFile() {
  if (fd_ < 0) return;
  // The last close of an unlinked file frees its page cache: ~1 ms per 10 MB written, on ext4.
  // A thread of its own does it, so the reader goes on (the one step of a close that can fail
  // is a write-back error, which a temporary file's data no longer cares about). Should
  // no thread start, the close happens here.
  const int fd = fd_;
  try {
    std::thread([fd] { ::close(fd); }).detach();
  } catch (const std::system_error&) {
    ::close(fd);
  }
}

void SpillFile::open() {
  const char* env = std::getenv("TMPDIR");
  dir_ = env && *env ? env : "/tmp";
  // Unlinked from the start: nothing is left behind whatever way the process ends.
#ifdef O_TMPFILE
  fd_ = ::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
  if (fd_ < 0) {
    std::string name = dir_ + "/flamefold-spool-XXXXXX";
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ < 0) fail(dir_, errno);
    ::unlink(name.c_str());
  }
}

uint64_t SpillFile::append(const void* data, size_t bytes) {
  if (fd_ < 0) open();
  uint64_t at = size_;
  // Blocks allocated for the whole write at once: ext4 otherwise reserves them page by page as
  // the write fills its page cache (a quarter of a big write's time). Where the file system has
  // no fallocate, the write does without; a full disk is reported as the write would report it.
  if (preallocate_ && bytes > 0 && ::fallocate(fd_, 0, static_cast<off_t>(size_), static_cast<off_t>(bytes)) != 0) {
    if (errno == ENOSPC) fail(dir_, ENOSPC);
    preallocate_ = false;
  }
  const char* p = static_cast<const char*>(data);
  size_t left = bytes;
  while (left > 0) {
    ssize_t w = ::pwrite(fd_, p, left, static_cast<off_t>(size_));
    if (w < 0) {
      if (errno == EINTR) continue;
      fail(dir_, errno);
    }
    if (w == 0) fail(dir_, ENOSPC);
    p += w;
    left -= static_cast<size_t>(w);
    size_ += static_cast<uint64_t>(w);
  }
  return at;
}

void SpillFile::read(uint64_t offset, void* data, size_t bytes) const {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    ssize_t r = ::pread(fd_, p, bytes, static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      fail(dir_, errno);
    }
    if (r == 0) fail(dir_, EIO);  // shorter than written: the file was cut under us
    p += r;
    bytes -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
}

}  // namespace flamefold
