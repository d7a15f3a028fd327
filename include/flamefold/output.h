// Output files are written to a temporary file beside the target and renamed into place on
// commit(), so a failure never leaves a half-written file. "-" writes to stdout; so do
// /dev/stdout and /dev/fd/N (the descriptor as it is), and devices and pipes are written in
// place. Through a symlink, the file it names is replaced and the link stays.
#pragma once
#include <fmt/format.h>

#include <string>
#include <string_view>

namespace flamefold {

class OutputFile {
 public:
  explicit OutputFile(std::string path);  // throws std::runtime_error when it cannot be created
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();  // removes the temporary file unless commit() ran

  void write(std::string_view s) {
    if (buf_.size() + s.size() > kFlushAt) flush();
    if (s.size() > kFlushAt) {
      write_raw(s);
      return;
    }
    buf_.append(s);
  }
  void put(char c) {
    if (buf_.size() >= kFlushAt) flush();
    buf_.push_back(c);
  }
  template <typename... Args>
  void print(fmt::format_string<Args...> f, Args&&... args) {
    fmt::format_to(std::back_inserter(buf_), f, std::forward<Args>(args)...);
    if (buf_.size() >= kFlushAt) flush();
  }
  std::string& buffer() { return buf_; }  // append directly; call maybe_flush() after
  void maybe_flush() {
    if (buf_.size() >= kFlushAt) flush();
  }
  void flush();
  void commit();  // flush, close and move into place
  const std::string& path() const { return path_; }
  uint64_t bytes_written() const { return written_ + buf_.size(); }

 private:
  static constexpr size_t kFlushAt = 1 << 20;
  void write_raw(std::string_view s);
  void discard_temporary();  // unlinks it, and forgets it for the signal handler
  std::string path_, tmp_path_;
  std::string target_;     // the file replaced: path_, or the file a symlink there names
  bool in_place_ = false;  // a device, a pipe or a descriptor of ours: written as it is
  int fd_ = -1;
  int pending_slot_ = -1;  // where a signal handler finds the temporary file
  bool committed_ = false;
  std::string buf_;
  uint64_t written_ = 0;
};

// Returns once the files that committed outputs replaced are removed (that happens on a thread
// of its own; the process waits for it at exit anyway).
void wait_for_replaced_outputs();

// From then on SIGINT, SIGTERM, SIGHUP and SIGQUIT remove the temporary files of outputs not
// yet committed before they end the process as they would have. For programs, not libraries:
// it takes over those signals.
void remove_unfinished_outputs_on_signals();

// The file extension that picks an output kind: "html", "svg", "folded", "json", ...
// (".gz" is not stripped; lower case).
std::string output_extension(std::string_view path);
// Whether `path` is the process's standard output: -, /dev/stdout, /dev/fd/1, /proc/self/fd/1.
bool names_stdout(std::string_view path);

}  // namespace flamefold
