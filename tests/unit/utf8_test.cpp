// UTF-8 helpers shared by the writers: validity, cleaning and UTF-16 lengths, on text long
// enough for their eight-bytes-at-a-time ASCII paths and with every kind of bad sequence at
// every position around those eight bytes.
#include <gtest/gtest.h>

#include <string>

#include "flamefold/utf8.h"

namespace {

using flamefold::append_valid_utf8;
using flamefold::is_valid_utf8;
using flamefold::utf16_units;

// A plain reference: code points decoded one by one.
bool reference_valid(const std::string& s, size_t* units) {
  size_t u = 0;
  for (size_t i = 0; i < s.size();) {
    unsigned c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (!len || i + len > s.size()) return false;
    uint32_t cp = len == 1 ? c : c & (0xFF >> (len + 1));
    for (size_t k = 1; k < len; ++k) {
      unsigned d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = cp << 6 | (d & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      return false;
    u += cp >= 0x10000 ? 2 : 1;
    i += len;
  }
  if (units) *units = u;
  return true;
}

TEST(Utf8, ValidityAndUtf16LengthsMatchAPlainDecoder) {
  const std::string pieces[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xff", "\xc3", "\xe0\x80\x80",
                                "\xed\xa0\x80", "\xf4\x90\x80\x80", "\x80", "\xc0\xaf"};
  for (const std::string& piece : pieces) {
    for (size_t before = 0; before < 20; ++before) {
      for (size_t after : {0, 1, 7, 8, 9, 17}) {
        const std::string s = std::string(before, 'a') + piece + std::string(after, 'z');
        size_t units = 0;
        const bool valid = reference_valid(s, &units);
        EXPECT_EQ(is_valid_utf8(s), valid) << before << " " << after;
        std::string cleaned;
        const size_t cleaned_units = append_valid_utf8(cleaned, s);
        EXPECT_TRUE(is_valid_utf8(cleaned));
        EXPECT_EQ(utf16_units(cleaned), cleaned_units);
        if (valid) {
          EXPECT_EQ(cleaned, s);
          EXPECT_EQ(utf16_units(s), units);
        }
      }
    }
  }
}

}  // namespace
