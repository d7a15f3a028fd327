// An Input read ahead on a worker thread: the reading (read() calls, gzip/zstd decoding) runs
// beside the thread that parses, which gets the same chunks Input::next_chunk hands out, in
// order, from a few buffers filled ahead. The Kineto reader's parsing thread was its bottleneck
// and spent a fifth of its time in read().
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "flamefold/input.h"

namespace flamefold {

class InputAhead {
 public:
  // Reads `input` (no one else may use it until this is destroyed) in chunks of chunk_bytes,
  // keeping at most `buffers` of them ready.
  InputAhead(Input& input, size_t chunk_bytes, size_t buffers = 4);
  ~InputAhead();
  InputAhead(const InputAhead&) = delete;
  InputAhead& operator=(const InputAhead&) = delete;

  // The next chunk, as Input::next_chunk(chunk, chunk_bytes) would give it; valid until the next
  // call. False at the end. An error reading the input is rethrown here, where the chunks stop.
  bool next_chunk(std::string_view& chunk);

 private:
  void run();

  Input& input_;
  const size_t chunk_bytes_, buffers_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::string> ready_;
  std::vector<std::string> spare_;
  std::string current_;  // the chunk handed out last
  std::exception_ptr error_;
  bool done_ = false, stop_ = false;
  std::thread worker_;  // last: started once the members it uses exist
};

}  // namespace flamefold
