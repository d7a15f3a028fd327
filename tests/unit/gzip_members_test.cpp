// GzipMembers: a stream compressed in gzip members on a worker thread while it is produced.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "flamefold/compress.h"
#include "html_payload.h"

namespace {

using flamefold::GzipMembers;

// Bytes that compress somewhat, different at every position.
std::string sample_bytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + rng() % 6 + (i % 97 == 0 ? 20 : 0));
  return s;
}

TEST(GzipMembers, MembersComeInOrderAndJoinToTheStream) {
  const std::string stable = sample_bytes(300000, 1);
  const std::string built = sample_bytes(200000, 2);
  std::vector<std::string> members;
  std::string want;
  {
    GzipMembers z(1, 10000, [&](std::string_view m) { members.emplace_back(m); }, "test bytes");
    // Built in place in pieces of every size, then stable bytes, then built again.
    auto build = [&] {
      for (size_t at = 0, k = 1; at < built.size(); at += k, k = k * 3 % 1777 + 1) {
        z.buffer().append(built, at, k);
        z.cut_if_full();
      }
      want += built;
    };
    build();
    z.buffer() += "a copied tail";
    want += "a copied tail";
    z.add_stable(stable);
    want += stable;
    build();
    z.finish();
    EXPECT_EQ(z.members(), members.size());
  }
  ASSERT_GT(members.size(), 60u);
  std::string got;
  for (const std::string& m : members) {
    EXPECT_LE(html_payload::gunzip(m).size(), 10000u + 1777u);
    got += html_payload::gunzip(m);
  }
  EXPECT_EQ(got, want);
}

// Stable bytes given a level of their own are compressed at it, in members of their own, the
// bytes around them at the level the members were made with: each member is what gzip_compress
// makes of its bytes at its level (it gives the same bytes for the same input and level).
TEST(GzipMembers, StableBytesTakeTheLevelTheyAreGiven) {
  const std::string before = sample_bytes(30000, 3), numbers = sample_bytes(50000, 4), after = sample_bytes(20000, 5);
  std::vector<std::string> members;
  {
    GzipMembers z(6, 1 << 20, [&](std::string_view m) { members.emplace_back(m); }, "test bytes");
    z.add_stable(before);
    z.add_stable(numbers, 1);
    z.add_stable(after);
    z.finish();
  }
  ASSERT_EQ(members.size(), 3u);
  EXPECT_EQ(members[0], flamefold::gzip_compress(before, 6, "test"));
  EXPECT_EQ(members[1], flamefold::gzip_compress(numbers, 1, "test"));
  EXPECT_NE(members[1], flamefold::gzip_compress(numbers, 6, "test"));
  EXPECT_EQ(members[2], flamefold::gzip_compress(after, 6, "test"));
}

TEST(GzipMembers, AnEmptyStreamHasNoMembers) {
  int members = 0;
  GzipMembers z(6, 1 << 20, [&](std::string_view) { ++members; }, "nothing");
  z.finish();
  EXPECT_EQ(members, 0);
}

TEST(GzipMembers, AFailedWriteIsRethrownToTheProducer) {
  const std::string bytes = sample_bytes(100000, 3);
  int calls = 0;
  GzipMembers z(1, 4096, [&](std::string_view) {
    if (++calls == 3) throw std::runtime_error("out.html: write failed: No space left on device");
  }, "test bytes");
  EXPECT_THROW(
      {
        for (int i = 0; i < 20; ++i) {
          z.buffer() += bytes;
          z.cut_if_full();
        }
        z.finish();
      },
      std::runtime_error);
  EXPECT_EQ(calls, 3);  // nothing is emitted after the failure
}

TEST(GzipMembers, AProducerThatGivesUpLeavesNothingRunning) {
  // Stable bytes that die right after the members object: its destructor must not compress them.
  for (int round = 0; round < 20; ++round) {
    auto stable = std::make_unique<std::string>(sample_bytes(1 << 20, round));
    int emitted = 0;
    {
      GzipMembers z(1, 1024, [&](std::string_view) { ++emitted; }, "test bytes");
      z.add_stable(*stable);
    }  // no finish(): the producer failed
    stable.reset();
    EXPECT_LE(emitted, 1024);
  }
}

}  // namespace
