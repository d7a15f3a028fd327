// Text inputs for the line-oriented readers (perf script, folded stacks): chunks of decoded
// UTF-8 that each end at a line break. A UTF-8 byte-order mark is dropped; UTF-16 (LE or BE,
// recognised by its byte-order mark, as Windows tools write it) is decoded to UTF-8.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "flamefold/input.h"

namespace flamefold {

enum class TextEncoding { Utf8, Utf16LE, Utf16BE };

// The encoding announced by the first bytes (a UTF-8 BOM counts as UTF-8).
TextEncoding detect_text_encoding(std::string_view head);
// UTF-16 bytes (without or with BOM) to UTF-8; unpaired surrogates and an odd last byte
// become U+FFFD. For sniffing a head: the result may end mid-line.
std::string utf16_to_utf8(std::string_view bytes, bool big_endian);
// The head of an input as UTF-8 text without a byte-order mark, for sniffing: UTF-16 is decoded
// into `storage` (the view then points there), UTF-8 is returned in place.
std::string_view head_as_utf8(std::string_view head, std::string& storage);

class TextSource {
 public:
  explicit TextSource(Input& input);
  // The next chunk, ending just after a '\n' (or at the end of input). False at the end.
  // A chunk is valid until the next call.
  bool next(std::string_view& chunk);
  TextEncoding encoding() const { return encoding_; }
  // Input bytes consumed so far (before decoding), for progress.
  uint64_t consumed() const { return input_.consumed(); }
  uint64_t size_on_disk() const { return input_.size_on_disk(); }
  // Replacement characters produced while decoding UTF-16.
  uint64_t decode_errors() const { return decode_errors_; }

 private:
  bool next_utf16(std::string_view& chunk);
  Input& input_;
  TextEncoding encoding_ = TextEncoding::Utf8;
  bool first_ = true;
  // UTF-16 state: bytes not yet forming a whole character, and decoded text not yet handed out.
  std::string raw_tail_;
  std::string decoded_;
  size_t decoded_begin_ = 0;
  bool input_done_ = false;
  uint64_t decode_errors_ = 0;
};

}  // namespace flamefold
