// Source lines around a frame's file:line, read only from folders the user names
// (--source-root; the HTML viewer shows them in its tooltip).
//
// A frame's file resolves under a root when one of these is a regular file inside the root
// (after symbolic links are followed): the path as given (an absolute path inside a root, or a
// relative one under a root), then its trailing components under each root, longest first, so
// `/home/ci/build/torch/nn/modules/module.py` recorded on another machine still finds
// `ROOT/torch/nn/modules/module.py`. Nothing outside the roots is ever opened: `..` components
// are never followed and every candidate's real path must lie inside a root's real path.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace flamefold {

struct SourceSnippet {
  uint32_t first_line = 0;         // the number of lines[0]
  std::vector<std::string> lines;  // up to `context` lines before and after the frame's line
};

class SourceRoots {
 public:
  // Throws UsageError when a root is not a readable directory.
  explicit SourceRoots(const std::vector<std::string>& roots);

  // The real path of `file` under a root, or nothing (no file, outside every root, not regular).
  std::optional<std::string> resolve(std::string_view file) const;

  // The lines [line - context, line + context] of a resolved file (line counted from 1);
  // nothing when the file cannot be read, is bigger than kMaxFileBytes or has fewer lines.
  // Each line is cut at kMaxLineBytes. Files stay cached (up to kCacheBytes in all).
  std::optional<SourceSnippet> snippet(const std::string& resolved, uint32_t line, uint32_t context);

  static constexpr size_t kMaxFileBytes = size_t(16) << 20;
  static constexpr size_t kMaxLineBytes = 400;
  static constexpr size_t kCacheBytes = size_t(64) << 20;

 private:
  std::vector<std::string> roots_;  // real paths, without a trailing '/'
  struct Text {
    std::string bytes;
    std::vector<uint32_t> line_starts;
  };
  std::unordered_map<std::string, Text> cache_;
  size_t cached_bytes_ = 0;
  bool inside(const std::string& real) const;
  std::optional<std::string> accept(const std::string& candidate) const;
};

}  // namespace flamefold
