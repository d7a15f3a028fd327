#include "flamefold/progress.h"

#include <cstdio>

namespace flamefold {

namespace {
// Start drawing only after this long: quick runs print nothing.
constexpr auto kQuietFor = std::chrono::milliseconds(700);
constexpr auto kRedrawEvery = std::chrono::milliseconds(200);
}  // namespace

Progress::Progress(bool enabled, std::string label, uint64_t total_bytes)
    : enabled_(enabled), label_(std::move(label)), total_(total_bytes), start_(Clock::now()), last_draw_(start_) {}

Progress::~Progress() { finish(); }

std::string Progress::format(const std::string& label, uint64_t done, uint64_t total, double seconds) {
  double mb = static_cast<double>(done) / 1e6;
  double rate = seconds > 0 ? mb / seconds : 0;
  char buf[256];
  if (total > 0) {
    double pct = 100.0 * static_cast<double>(done) / static_cast<double>(total);
    if (pct > 100) pct = 100;
    std::snprintf(buf, sizeof buf, "%s: %.0f / %.0f MB (%.0f%%), %.0f MB/s", label.c_str(), mb,
                  static_cast<double>(total) / 1e6, pct, rate);
  } else {
    std::snprintf(buf, sizeof buf, "%s: %.0f MB, %.0f MB/s", label.c_str(), mb, rate);
  }
  return buf;
}

void Progress::update(uint64_t done_bytes) {
  if (!enabled_) return;
  Clock::time_point now = Clock::now();
  if (now - start_ < kQuietFor || now - last_draw_ < kRedrawEvery) return;
  last_draw_ = now;
  double seconds = std::chrono::duration<double>(now - start_).count();
  std::string line = format(label_, done_bytes, total_, seconds);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void Progress::finish() {
  if (shown_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }
}

}  // namespace flamefold
