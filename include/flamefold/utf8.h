// UTF-8 validation shared by the writers that must emit valid text (SVG, the HTML payload):
// frame names come from arbitrary input and may hold any bytes.
#pragma once
#include <cstddef>
#include <string_view>

namespace flamefold {

inline constexpr char kUtf8Replacement[] = "\xEF\xBF\xBD";  // U+FFFD

// Length (2..4) of the valid multi-byte UTF-8 sequence starting at s[i], or 0 when it is
// invalid (overlong, surrogate, above U+10FFFF, truncated). ASCII is the caller's business.
inline size_t utf8_sequence(std::string_view s, size_t i) {
  auto byte = [&](size_t k) -> unsigned { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  auto cont = [&](size_t k) { return (byte(k) & 0xC0) == 0x80; };
  unsigned c = byte(0);
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    unsigned c1 = byte(1);
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && c1 < 0xA0) return 0;  // overlong
    if (c == 0xED && c1 > 0x9F) return 0;  // surrogates
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    unsigned c1 = byte(1);
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && c1 < 0x90) return 0;  // overlong
    if (c == 0xF4 && c1 > 0x8F) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

}  // namespace flamefold
