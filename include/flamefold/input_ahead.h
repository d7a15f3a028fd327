// An Input read ahead on a worker thread: the reading (read() calls, gzip/zstd decoding) runs
// beside the thread that parses, which gets the same chunks Input::next_chunk hands out, in
// order, from a few buffers filled ahead (WorkAhead). The Kineto reader's parsing thread was its
// bottleneck and spent a fifth of its time in read().
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "flamefold/input.h"
#include "flamefold/work_ahead.h"

namespace flamefold {

class InputAhead {
 public:
  // Reads `input` (no one else may use it until this is destroyed) in chunks of chunk_bytes,
  // keeping at most `buffers` of them ready.
  InputAhead(Input& input, size_t chunk_bytes, size_t buffers = 4);

  // The next chunk, as Input::next_chunk(chunk, chunk_bytes) would give it; valid until the next
  // call. False at the end. An error reading the input is rethrown here, where the chunks stop.
  bool next_chunk(std::string_view& chunk);

 private:
  std::string current_;       // the chunk handed out last
  WorkAhead<std::string> ahead_;  // last: its worker reads the input from the start
};

}  // namespace flamefold
