// Input read ahead on a worker thread (include/flamefold/input_ahead.h).
#include "flamefold/input_ahead.h"

#include <utility>

namespace flamefold {

InputAhead::InputAhead(Input& input, size_t chunk_bytes, size_t buffers)
    : input_(input), chunk_bytes_(chunk_bytes), buffers_(buffers ? buffers : 1), worker_([this] { run(); }) {}

InputAhead::~InputAhead() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

void InputAhead::run() {
  try {
    std::string_view chunk;
    while (input_.next_chunk(chunk, chunk_bytes_)) {
      std::string copy;
      {
        std::unique_lock<std::mutex> lock(mu_);
        changed_.wait(lock, [&] { return ready_.size() < buffers_ || stop_; });
        if (stop_) return;
        if (!spare_.empty()) {
          copy = std::move(spare_.back());
          spare_.pop_back();
        }
      }
      copy.assign(chunk);  // a spare buffer's capacity is reused
      {
        std::lock_guard<std::mutex> lock(mu_);
        ready_.push_back(std::move(copy));
      }
      changed_.notify_all();
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu_);
    error_ = std::current_exception();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  }
  changed_.notify_all();
}

bool InputAhead::next_chunk(std::string_view& chunk) {
  std::unique_lock<std::mutex> lock(mu_);
  if (current_.capacity()) spare_.push_back(std::exchange(current_, std::string()));  // its buffer is reused
  changed_.notify_all();
  changed_.wait(lock, [&] { return !ready_.empty() || done_; });
  if (ready_.empty()) {
    if (error_) std::rethrow_exception(error_);
    return false;
  }
  current_ = std::move(ready_.front());
  ready_.pop_front();
  changed_.notify_all();
  chunk = current_;
  return true;
}

}  // namespace flamefold
