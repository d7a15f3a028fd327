// Compressing output (HTML payloads, .pb.gz profiles): gzip through libdeflate when the build
// has it (several times faster than zlib), else zlib; level 1 through ISA-L's igzip when the
// build has that.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace flamefold {

// A gzip member holding `in`; its header has no file name and no time, so the same input and
// level always give the same bytes. Level 1 asks for speed above all (the big payloads): igzip
// where the build has it. Throws std::runtime_error naming `what` on failure.
std::string gzip_compress(std::string_view in, int level, const char* what);

// A byte stream compressed as it is produced, cut into gzip members of about `member_bytes`
// each (RFC 1952: a gzip file may hold several; concatenated they inflate to the whole stream).
// Members are compressed on a worker thread while the producer goes on, and by the producer too
// once it is done; `emit` gets each one in order (on either thread, never two at once). Memory
// stays at a few members: the producer waits while kPending of its own chunks are not compressed.
//
//   GzipMembers z(1, 4 << 20, [&](std::string_view member) { write(member); }, "the payload");
//   z.buffer() += bytes;  z.cut_if_full();     // bytes built in place
//   z.add_stable(big);                          // bytes that outlive finish(): not copied
//   z.add_stable(numbers, 1);                   // ... at a level of their own
//   size_t head = z.reserve();                  // a member whose bytes come later ...
//   z.fill(head, std::move(bytes));             // ... emitted in its place (the next wait for it)
//   z.finish();                                 // the rest; rethrows what failed on the worker
class GzipMembers {
 public:
  using Emit = std::function<void(std::string_view member)>;
  GzipMembers(int level, size_t member_bytes, Emit emit, const char* what);
  ~GzipMembers();
  GzipMembers(const GzipMembers&) = delete;
  GzipMembers& operator=(const GzipMembers&) = delete;

  std::string& buffer() { return open_; }
  void cut_if_full() {
    if (open_.size() >= member_bytes_) cut();
  }
  // level: of these bytes' members (0: the level given at construction).
  void add_stable(std::string_view bytes, int level = 0);
  // A place for a member whose bytes are known later; the members after it are compressed
  // meanwhile, but none is emitted past it until fill() gives its bytes.
  size_t reserve();
  void fill(size_t reserved, std::string bytes);
  void finish();
  size_t members() const { return emitted_; }

 private:
  static constexpr size_t kPending = 3;
  struct Job {
    std::string owned;      // the producer's chunk, or empty for a stable view
    std::string_view bytes;
    std::string packed;
    int level = 0;        // 0: level_
    bool ready = true;    // false: reserved, its bytes not given yet
    bool counted = false;  // one of the producer's chunks waiting (owned_waiting_)
    bool taken = false, done = false;
  };
  void cut();
  void push(Job job);
  void work();                      // the worker thread's loop
  bool run_one(std::unique_lock<std::mutex>& lock);  // compresses the next job; false if none
  void emit_ready(std::unique_lock<std::mutex>& lock);

  const int level_;
  const size_t member_bytes_;
  const Emit emit_;
  const char* what_;
  std::string open_;  // the member being filled
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Job> jobs_;   // not yet emitted, in order; jobs_[i] is member first_ + i
  size_t first_ = 0;
  size_t owned_waiting_ = 0;  // owned jobs not yet compressed
  bool emitting_ = false, closing_ = false;
  size_t emitted_ = 0;
  std::exception_ptr error_;
  std::deque<std::string> spares_;  // spent chunk buffers, reused
  std::thread worker_;
};

}  // namespace flamefold
