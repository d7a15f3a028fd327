#include "flamefold/output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace flamefold {

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  buf_.reserve(kFlushAt + 4096);
  if (path_ == "-") {
    fd_ = 1;
    return;
  }
  // The temporary file sits beside the target so rename() stays on one file system.
  tmp_path_ = path_ + ".flamefold-tmp-" + std::to_string(::getpid());
  fd_ = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(path_ + ": cannot create output file: " + std::strerror(errno));
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
    ::unlink(tmp_path_.c_str());
  }
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
  if (::close(fd_) != 0) {
    ::unlink(tmp_path_.c_str());
    throw std::runtime_error(path_ + ": write failed: " + std::strerror(errno));
  }
  fd_ = -1;
  if (::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp_path_.c_str());
    throw std::runtime_error(path_ + ": cannot move output into place: " + std::strerror(e));
  }
}

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
