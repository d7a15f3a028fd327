// Source lines under --source-root folders (source_lines.h).
#include "flamefold/source_lines.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "flamefold/errors.h"

namespace flamefold {

namespace {

std::optional<std::string> real_path(const std::string& path) {
  char buf[PATH_MAX];
  if (!::realpath(path.c_str(), buf)) return std::nullopt;
  return std::string(buf);
}

// Path components, split at '/' and '\' (traces recorded on Windows), without empty and "."
// ones; nothing when any component is "..": such a name is not followed at all.
std::optional<std::vector<std::string_view>> components(std::string_view path) {
  std::vector<std::string_view> out;
  size_t at = 0;
  while (at <= path.size()) {
    size_t next = path.find_first_of("/\\", at);
    if (next == std::string_view::npos) next = path.size();
    std::string_view c = path.substr(at, next - at);
    if (c == "..") return std::nullopt;
    if (!c.empty() && c != ".") out.push_back(c);
    at = next + 1;
  }
  return out;
}

}  // namespace

SourceRoots::SourceRoots(const std::vector<std::string>& roots) {
  for (const std::string& r : roots) {
    std::optional<std::string> real = real_path(r);
    struct stat st{};
    if (!real || ::stat(real->c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw UsageError("--source-root " + r + ": not a directory");
    if (real->size() > 1 && real->back() == '/') real->pop_back();
    roots_.push_back(*real);
  }
}

bool SourceRoots::inside(const std::string& real) const {
  for (const std::string& root : roots_) {
    if (root == "/") return true;
    if (real.size() > root.size() && real.compare(0, root.size(), root) == 0 && real[root.size()] == '/') return true;
  }
  return false;
}

std::optional<std::string> SourceRoots::accept(const std::string& candidate) const {
  std::optional<std::string> real = real_path(candidate);
  if (!real || !inside(*real)) return std::nullopt;
  struct stat st{};
  if (::stat(real->c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return real;
}

std::optional<std::string> SourceRoots::resolve(std::string_view file) const {
  if (file.empty() || roots_.empty() || file.find('\0') != std::string_view::npos) return std::nullopt;
  std::optional<std::vector<std::string_view>> parts = components(file);
  if (!parts || parts->empty()) return std::nullopt;
  auto join = [&](const std::string& root, size_t from) {
    std::string p = root == "/" ? "" : root;
    for (size_t i = from; i < parts->size(); ++i) {
      p += '/';
      p += (*parts)[i];
    }
    return p;
  };
  // As given: an absolute path inside a root.
  if (file.front() == '/')
    if (std::optional<std::string> r = accept(join("", 0))) return r;
  // Under each root: the whole path, then shorter and shorter tails.
  for (size_t from = 0; from < parts->size(); ++from)
    for (const std::string& root : roots_)
      if (std::optional<std::string> r = accept(join(root, from))) return r;
  return std::nullopt;
}

std::optional<SourceSnippet> SourceRoots::snippet(const std::string& resolved, uint32_t line, uint32_t context) {
  if (line == 0) return std::nullopt;
  auto it = cache_.find(resolved);
  if (it == cache_.end()) {
    // O_NOFOLLOW | O_NONBLOCK: resolved is a real path, and a file swapped for a FIFO or a
    // device meanwhile must not block or stream forever.
    int fd = ::open(resolved.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    struct stat st{};
    Text text;
    bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && size_t(st.st_size) <= kMaxFileBytes;
    if (ok) {
      text.bytes.resize(size_t(st.st_size));
      size_t got = 0;
      while (got < text.bytes.size()) {
        ssize_t n = ::read(fd, text.bytes.data() + got, text.bytes.size() - got);
        if (n <= 0) break;
        got += size_t(n);
      }
      text.bytes.resize(got);
    }
    ::close(fd);
    if (!ok) return std::nullopt;
    text.line_starts.push_back(0);
    for (size_t i = 0; i < text.bytes.size(); ++i)
      if (text.bytes[i] == '\n' && i + 1 < text.bytes.size()) text.line_starts.push_back(uint32_t(i + 1));
    if (cached_bytes_ + text.bytes.size() > kCacheBytes) {
      cache_.clear();
      cached_bytes_ = 0;
    }
    cached_bytes_ += text.bytes.size();
    it = cache_.emplace(resolved, std::move(text)).first;
  }
  const Text& t = it->second;
  if (t.bytes.empty() || line > t.line_starts.size()) return std::nullopt;
  SourceSnippet s;
  s.first_line = line > context ? line - context : 1;
  uint32_t last = std::min<uint32_t>(uint32_t(t.line_starts.size()), line + context);
  for (uint32_t l = s.first_line; l <= last; ++l) {
    size_t from = t.line_starts[l - 1];
    size_t to = l < t.line_starts.size() ? t.line_starts[l] - 1 : t.bytes.size();
    if (to > from && l == t.line_starts.size() && t.bytes[to - 1] == '\n') --to;
    if (to > from && t.bytes[to - 1] == '\r') --to;
    std::string text = t.bytes.substr(from, std::min(to - from, kMaxLineBytes));
    s.lines.push_back(std::move(text));
  }
  return s;
}

}  // namespace flamefold
