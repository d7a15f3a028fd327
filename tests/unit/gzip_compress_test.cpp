// gzip_compress (include/flamefold/compress.h): each level gives one gzip member, without a file
// name or a time, that zlib inflates back to the input, whatever the input: empty, one byte,
// text, bytes that do not compress (level 1's output then outgrows its first guess of room).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "flamefold/compress.h"
#include "html_payload.h"

namespace {

using flamefold::gzip_compress;

std::string random_bytes(size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

std::string text(size_t n) {
  std::string s;
  for (size_t i = 0; s.size() < n; ++i) s += "torch.forward_" + std::to_string(i % 977) + "(model.py:" + std::to_string(i % 31) + ");";
  s.resize(n);
  return s;
}

}  // namespace

TEST(GzipCompress, EveryLevelInflatesBackWhateverTheInput) {
  const std::string inputs[] = {"", "x", text(100000), random_bytes(3 << 20, 7), text(1 << 20) + random_bytes(70000, 8)};
  for (int level : {1, 6}) {
    for (const std::string& in : inputs) {
      SCOPED_TRACE("level " + std::to_string(level) + ", " + std::to_string(in.size()) + " bytes");
      const std::string member = gzip_compress(in, level, "test bytes");
      ASSERT_GE(member.size(), 18u);
      EXPECT_EQ(static_cast<unsigned char>(member[0]), 0x1f);
      EXPECT_EQ(static_cast<unsigned char>(member[1]), 0x8b);
      EXPECT_EQ(member[3] & 0x08, 0) << "a file name in the header";
      EXPECT_EQ(member.substr(4, 4), std::string(4, '\0')) << "a time in the header";
      EXPECT_EQ(html_payload::gunzip(member), in);  // one whole member, nothing after it
      EXPECT_EQ(gzip_compress(in, level, "test bytes"), member) << "not the same bytes twice";
    }
  }
  // Text compresses at either level.
  const std::string t = text(1 << 20);
  EXPECT_LT(gzip_compress(t, 1, "text").size(), t.size() / 4);
  EXPECT_LT(gzip_compress(t, 6, "text").size(), t.size() / 4);
}
