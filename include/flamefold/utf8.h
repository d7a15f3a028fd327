// UTF-8 validation shared by the writers that must emit valid text (SVG, the HTML payload):
// frame names come from arbitrary input and may hold any bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
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

// Appends s as valid UTF-8 (each invalid byte becomes U+FFFD) and returns its length in UTF-16
// code units (how the HTML viewer slices its string blob). ASCII runs are copied 8 bytes a test.
inline size_t append_valid_utf8(std::string& out, std::string_view s) {
  size_t units = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0;
  while (i < n) {
    if (p[i] < 0x80) {
      size_t j = i + 1;
      for (uint64_t w; j + 8 <= n && (std::memcpy(&w, p + j, 8), (w & 0x8080808080808080ULL) == 0);) j += 8;
      while (j < n && p[j] < 0x80) ++j;
      out.append(s.data() + i, j - i);
      units += j - i;
      i = j;
      continue;
    }
    size_t len = utf8_sequence(s, i);
    if (len) {
      out.append(s.data() + i, len);
      units += len == 4 ? 2 : 1;
      i += len;
    } else {
      out.append(kUtf8Replacement);
      units += 1;
      ++i;
    }
  }
  return units;
}

// The UTF-16 code units of valid UTF-8 text: one per code point, two from U+10000 on (a 4-byte
// sequence). ASCII is counted 8 bytes a test.
inline size_t utf16_units(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0, units = 0;
  for (uint64_t w; i + 8 <= n && (std::memcpy(&w, p + i, 8), (w & 0x8080808080808080ULL) == 0);) i += 8;
  units = i;
  for (; i < n; ++i) units += (p[i] & 0xC0) != 0x80 ? (p[i] >= 0xF0 ? 2 : 1) : 0;
  return units;
}

// Whether s is valid UTF-8 already (then it needs no cleaning copy). ASCII is tested 8 bytes
// at a time.
inline bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    uint64_t w;
    if (i + 8 <= s.size() && (std::memcpy(&w, s.data() + i, 8), (w & 0x8080808080808080ULL) == 0)) {
      i += 8;
      continue;
    }
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    size_t len = utf8_sequence(s, i);
    if (!len) return false;
    i += len;
  }
  return true;
}

}  // namespace flamefold
