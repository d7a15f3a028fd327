#include "flamefold/readers/text/text_source.h"

#include <cstring>

namespace flamefold {

namespace {

void put_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

constexpr uint32_t kReplacement = 0xFFFD;

// Decodes whole code units of `bytes` into out. Returns how many bytes were used: an odd last
// byte, and a high surrogate whose partner has not arrived yet, are left over unless `final`.
size_t decode_utf16(std::string_view bytes, bool big_endian, bool final, std::string& out, uint64_t& errors) {
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t n = bytes.size() & ~size_t(1);
  size_t i = 0;
  auto unit = [&](size_t at) -> uint32_t {
    return big_endian ? (uint32_t(b[at]) << 8 | b[at + 1]) : (uint32_t(b[at + 1]) << 8 | b[at]);
  };
  while (i < n) {
    uint32_t u = unit(i);
    if (u >= 0xD800 && u <= 0xDBFF) {
      if (i + 2 >= n) {
        if (!final) break;  // wait for the low surrogate
        put_utf8(out, kReplacement);
        ++errors;
        i += 2;
        continue;
      }
      uint32_t lo = unit(i + 2);
      if (lo >= 0xDC00 && lo <= 0xDFFF) {
        put_utf8(out, 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00));
        i += 4;
      } else {
        put_utf8(out, kReplacement);
        ++errors;
        i += 2;
      }
      continue;
    }
    if (u >= 0xDC00 && u <= 0xDFFF) {
      put_utf8(out, kReplacement);
      ++errors;
    } else {
      put_utf8(out, u);
    }
    i += 2;
  }
  if (final && i < bytes.size()) {
    // An odd trailing byte (or a cut-off pair): not a character.
    if (i == n) {
      put_utf8(out, kReplacement);
      ++errors;
    }
    return bytes.size();
  }
  return i;
}

}  // namespace

TextEncoding detect_text_encoding(std::string_view head) {
  if (head.size() >= 2) {
    auto b0 = static_cast<unsigned char>(head[0]), b1 = static_cast<unsigned char>(head[1]);
    if (b0 == 0xFF && b1 == 0xFE) return TextEncoding::Utf16LE;
    if (b0 == 0xFE && b1 == 0xFF) return TextEncoding::Utf16BE;
  }
  return TextEncoding::Utf8;
}

std::string utf16_to_utf8(std::string_view bytes, bool big_endian) {
  if (bytes.size() >= 2) {
    auto b0 = static_cast<unsigned char>(bytes[0]), b1 = static_cast<unsigned char>(bytes[1]);
    if ((b0 == 0xFF && b1 == 0xFE) || (b0 == 0xFE && b1 == 0xFF)) bytes.remove_prefix(2);
  }
  std::string out;
  out.reserve(bytes.size() / 2 + 16);
  uint64_t errors = 0;
  decode_utf16(bytes, big_endian, true, out, errors);
  return out;
}

std::string_view head_as_utf8(std::string_view head, std::string& storage) {
  TextEncoding enc = detect_text_encoding(head);
  if (enc != TextEncoding::Utf8) {
    storage = utf16_to_utf8(head, enc == TextEncoding::Utf16BE);
    return storage;
  }
  if (head.size() >= 3 && std::memcmp(head.data(), "\xEF\xBB\xBF", 3) == 0) head.remove_prefix(3);
  return head;
}

TextSource::TextSource(Input& input) : input_(input) {
  encoding_ = detect_text_encoding(input_.head());
}

bool TextSource::next(std::string_view& chunk) {
  if (encoding_ != TextEncoding::Utf8) return next_utf16(chunk);
  if (!input_.next_chunk(chunk)) return false;
  if (first_) {
    first_ = false;
    if (chunk.size() >= 3 && std::memcmp(chunk.data(), "\xEF\xBB\xBF", 3) == 0) chunk.remove_prefix(3);
    if (chunk.empty()) return next(chunk);
  }
  return true;
}

bool TextSource::next_utf16(std::string_view& chunk) {
  bool big_endian = encoding_ == TextEncoding::Utf16BE;
  // Drop what was handed out last time; keep a partial last line.
  decoded_.erase(0, decoded_begin_);
  decoded_begin_ = 0;
  while (true) {
    size_t nl = decoded_.rfind('\n');
    if (nl != std::string::npos && (decoded_.size() >= Input::kChunk || input_done_)) {
      chunk = std::string_view(decoded_.data(), nl + 1);
      decoded_begin_ = nl + 1;
      return true;
    }
    if (input_done_) {
      if (decoded_.empty()) return false;
      chunk = decoded_;
      decoded_begin_ = decoded_.size();
      return true;
    }
    std::string_view raw;
    if (!input_.next_chunk(raw)) {
      input_done_ = true;
      if (!raw_tail_.empty()) {
        decode_utf16(raw_tail_, big_endian, true, decoded_, decode_errors_);
        raw_tail_.clear();
      }
      continue;
    }
    if (first_) {
      first_ = false;
      raw.remove_prefix(2);  // the byte-order mark
    }
    // Chunks end at a 0x0A byte, which in UTF-16 need not end a code unit: decode from the
    // bytes left over plus this chunk, keep what does not form a whole character yet.
    raw_tail_.append(raw);
    size_t used = decode_utf16(raw_tail_, big_endian, false, decoded_, decode_errors_);
    raw_tail_.erase(0, used);
  }
}

}  // namespace flamefold
