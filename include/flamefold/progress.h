// A progress line on stderr for long reads: bytes done (of the total when known) and MB/s.
// Shown only when enabled (the CLI enables it when stderr is a terminal), and only once the
// work has run for a moment, so small inputs and pipes stay quiet.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace flamefold {

class Progress {
 public:
  // total_bytes = 0 when unknown (stdin, compressed input measured in decoded bytes).
  Progress(bool enabled, std::string label, uint64_t total_bytes);
  ~Progress();  // clears the line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Cheap to call often: redraws at most a few times per second.
  void update(uint64_t done_bytes);
  void finish();  // clears the line (also done by the destructor)

  // The text of one progress line (exposed for tests).
  static std::string format(const std::string& label, uint64_t done, uint64_t total, double seconds);

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool shown_ = false;
  std::string label_;
  uint64_t total_;
  Clock::time_point start_, last_draw_;
};

}  // namespace flamefold
