// Input read ahead on a worker thread (include/flamefold/input_ahead.h).
#include "flamefold/input_ahead.h"

namespace flamefold {

InputAhead::InputAhead(Input& input, size_t chunk_bytes, size_t buffers)
    : ahead_(buffers, [&input, chunk_bytes](WorkAhead<std::string>& q) {
        std::string_view chunk;
        std::string copy;
        while (input.next_chunk(chunk, chunk_bytes)) {
          if (!q.room(copy)) return;
          copy.assign(chunk);  // a spent buffer's capacity is reused
          q.push(std::move(copy));
        }
      }) {}

bool InputAhead::next_chunk(std::string_view& chunk) {
  if (!ahead_.next(current_)) return false;
  chunk = current_;
  return true;
}

}  // namespace flamefold
