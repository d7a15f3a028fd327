// Spool: records come back in exactly std::sort's order whatever their arrival order, in
// memory or through spilled runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <thread>
#include <vector>

#include "flamefold/spool.h"
#include "flamefold/spool_ahead.h"

using flamefold::Spool;

namespace {

struct Rec {
  uint32_t track;
  int64_t start;
  uint64_t seq;
};
struct ByTrackStartSeq {
  bool operator()(const Rec& a, const Rec& b) const {
    if (a.track != b.track) return a.track < b.track;
    if (a.start != b.start) return a.start < b.start;
    return a.seq < b.seq;
  }
};

std::vector<Rec> drain(const std::vector<Rec>& in, size_t budget, size_t* runs = nullptr) {
  Spool<Rec, ByTrackStartSeq> s(budget);
  for (const Rec& r : in) s.push(r);
  s.finish();
  if (runs) *runs = s.runs_spilled();
  std::vector<Rec> out;
  Rec r;
  while (s.next(r)) out.push_back(r);
  return out;
}

void expect_sorted_copy(const std::vector<Rec>& in, size_t budget, size_t min_runs) {
  std::vector<Rec> want = in;
  std::sort(want.begin(), want.end(), ByTrackStartSeq());
  size_t runs = 0;
  std::vector<Rec> got = drain(in, budget, &runs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].seq, want[i].seq) << "at " << i << " of " << got.size() << ", budget " << budget;
  }
  EXPECT_GE(runs, min_runs);
}

// Spools `in` with `budget`: at least min_runs spilled, read back merging at most max_fan_in
// sequences, in exactly std::sort's order.
void expect_chained(const std::vector<Rec>& in, size_t budget, size_t min_runs, size_t max_fan_in) {
  std::vector<Rec> want = in;
  std::sort(want.begin(), want.end(), ByTrackStartSeq());
  Spool<Rec, ByTrackStartSeq> spool(budget);
  for (const Rec& r : in) spool.push(r);
  spool.finish();
  EXPECT_GE(spool.runs_spilled(), min_runs);
  EXPECT_LE(spool.merge_fan_in(), max_fan_in);
  std::vector<Rec> got;
  Rec r;
  while (spool.next(r)) got.push_back(r);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].seq, want[i].seq) << "at " << i;
}

// Rows of several threads, each in time order except groups of "late" rows: what profiler
// tables look like.
std::vector<Rec> interleaved(size_t n, uint32_t tracks, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> clock(tracks, 0);
  std::vector<Rec> out;
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t t = static_cast<uint32_t>(rng() % tracks);
    clock[t] += static_cast<int64_t>(rng() % 100);
    int64_t start = clock[t];
    if (rng() % 8 == 0) start -= static_cast<int64_t>(rng() % 5000);  // a late row
    out.push_back(Rec{t, start, i});
  }
  return out;
}

}  // namespace

TEST(Spool, EmptyAndSingle) {
  EXPECT_TRUE(drain({}, 1 << 20).empty());
  std::vector<Rec> one = drain({Rec{3, 7, 1}}, 1 << 20);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].start, 7);
}

TEST(Spool, SortedInputInMemory) {
  std::vector<Rec> in;
  for (uint64_t i = 0; i < 10000; ++i) in.push_back(Rec{0, static_cast<int64_t>(i), i});
  expect_sorted_copy(in, 1 << 20, 0);
}

TEST(Spool, InterleavedStreamsInMemoryAndSpilled) {
  for (unsigned seed : {1u, 2u, 3u}) {
    std::vector<Rec> in = interleaved(50000, 1 + seed * 3, seed);
    expect_sorted_copy(in, 64 << 20, 0);  // one buffer
    expect_sorted_copy(in, 64 << 10, 5);  // many runs through the temporary file
  }
}

TEST(Spool, ShuffledInputFallsBackToAFullSort) {
  std::vector<Rec> in = interleaved(40000, 3, 9);
  std::mt19937_64 rng(5);
  std::shuffle(in.begin(), in.end(), rng);  // far more than kMaxLanes ascending streams
  expect_sorted_copy(in, 64 << 20, 0);
  expect_sorted_copy(in, 32 << 10, 10);
}

TEST(Spool, DescendingInputAndEqualKeys) {
  std::vector<Rec> in;
  for (uint64_t i = 0; i < 20000; ++i) in.push_back(Rec{static_cast<uint32_t>(i % 2), static_cast<int64_t>(20000 - i) / 7, i});
  expect_sorted_copy(in, 64 << 20, 0);
  expect_sorted_copy(in, 16 << 10, 3);
}

TEST(Spool, ManyTinyRunsStillMerge) {
  // A budget of a few records per run: hundreds of runs merged at once.
  std::vector<Rec> in = interleaved(20000, 4, 11);
  expect_sorted_copy(in, 2048, 100);
}

// A few ascending streams pushed a stretch of one after a stretch of another (launches nested
// thread by thread): every spilled run holds one stream's stretch, runs of one stream follow one
// another, and reading merges one chain of runs per stream, not every run.
TEST(Spool, RunsThatFollowOneAnotherAreMergedAsOne) {
  const uint32_t streams = 3;
  const size_t budget = 64 << 10, per_run = budget / (2 * sizeof(Rec) + 1);  // the spool's run size
  std::vector<Rec> in;
  std::vector<int64_t> next(streams, 0);
  for (int stretch = 0; stretch < 12; ++stretch)
    for (uint32_t s = 0; s < streams; ++s)
      for (size_t k = 0; k < 2 * per_run; ++k) {
        in.push_back(Rec{0, next[s] * streams + s, in.size()});  // the streams interleave finely
        ++next[s];
      }
  expect_chained(in, budget, 30, streams + 1);  // one chain per stream, and the buffer in memory
  // Runs that overlap are not chained: rows in no order are sorted whole at each spill, and
  // every run then spans the whole range of keys.
  std::vector<Rec> shuffled = interleaved(60000, 4, 5);
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(8));
  Spool<Rec, ByTrackStartSeq> overlapping(64 << 10);
  for (const Rec& x : shuffled) overlapping.push(x);
  overlapping.finish();
  EXPECT_GE(overlapping.runs_spilled(), 10u);
  EXPECT_EQ(overlapping.merge_fan_in(), overlapping.runs_spilled() + 1);
}

// Streams that interleave at every record (a thread's ops and its Python frames, each kind in
// time order) are dealt onto lanes; each full buffer is spilled lane by lane and the lanes go
// on into the next buffer, so reading merges one chain per stream rather than one run per
// buffer, and the records still come out in exactly std::sort's order.
TEST(Spool, LanesSpillAsRunsThatChainAcrossBuffers) {
  const uint32_t streams = 3;
  std::vector<Rec> in;
  std::mt19937_64 rng(21);
  std::vector<int64_t> clock(streams, 0);
  for (uint64_t i = 0; i < 60000; ++i) {
    const uint32_t s = static_cast<uint32_t>(rng() % streams);
    clock[s] += 1 + static_cast<int64_t>(rng() % 50);
    // Stream s runs behind stream s - 1 by a stretch: its rows are late against the others'.
    in.push_back(Rec{0, clock[s] - static_cast<int64_t>(s) * 20000, i});
  }
  expect_chained(in, 64 << 10, 20, streams + 1);  // a chain per lane, and the buffer in memory
}

// SpoolAhead gives a finished spool's records in the same order, spilled or in memory.
TEST(Spool, ReadAheadOnAThreadGivesTheSameOrder) {
  for (size_t budget : {size_t(64) << 20, size_t(16) << 10}) {
    std::vector<Rec> in = interleaved(50000, 5, 3);
    std::vector<Rec> want = drain(in, budget);
    Spool<Rec, ByTrackStartSeq> spool(budget);
    for (const Rec& r : in) spool.push(r);
    spool.finish();
    flamefold::SpoolAhead<Rec, ByTrackStartSeq> ahead(spool);
    std::vector<Rec> got;
    Rec r;
    while (ahead.next(r)) got.push_back(r);
    ASSERT_EQ(got.size(), want.size()) << budget;
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].seq, want[i].seq) << "at " << i << ", budget " << budget;
    EXPECT_FALSE(ahead.next(r));
  }
  Spool<Rec, ByTrackStartSeq> empty;
  empty.finish();
  flamefold::SpoolAhead<Rec, ByTrackStartSeq> none(empty);
  Rec r;
  EXPECT_FALSE(none.next(r));
}

// A keep function runs on the worker: the records it refuses are not passed on, and what it
// rewrites comes out rewritten, in the spool's order.
TEST(Spool, ReadAheadDropsAndRewritesOnTheWorker) {
  std::vector<Rec> in = interleaved(60000, 4, 17);
  std::vector<Rec> want;
  for (Rec r : drain(in, 16 << 10))
    if (r.seq % 3 != 0) {
      r.start = -r.start;
      want.push_back(r);
    }
  Spool<Rec, ByTrackStartSeq> spool(16 << 10);
  for (const Rec& r : in) spool.push(r);
  spool.finish();
  flamefold::SpoolAhead<Rec, ByTrackStartSeq> ahead(spool, [](Rec& r) {
    if (r.seq % 3 == 0) return false;
    r.start = -r.start;
    return true;
  });
  std::vector<Rec> got;
  Rec r;
  while (ahead.next(r)) got.push_back(r);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].seq, want[i].seq) << "at " << i;
    ASSERT_EQ(got[i].start, want[i].start) << "at " << i;
  }
}

TEST(Spool, SpillDirectoryMissingIsAClearError) {
  const char* old = std::getenv("TMPDIR");
  std::string saved = old ? old : "";
  setenv("TMPDIR", "/nonexistent/flamefold-test", 1);
  Spool<Rec, ByTrackStartSeq> s(2048);
  bool threw = false;
  try {
    for (uint64_t i = 0; i < 10000; ++i) s.push(Rec{0, static_cast<int64_t>(10000 - i), i});
  } catch (const std::runtime_error& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find("temporary file in /nonexistent/flamefold-test"), std::string::npos) << e.what();
  }
  if (old) setenv("TMPDIR", saved.c_str(), 1);
  else unsetenv("TMPDIR");
  EXPECT_TRUE(threw);
}

namespace {
struct Keyed {
  uint64_t key;
  uint32_t seq, pad;
};
struct ByKeySeq {
  static uint64_t key(const Keyed& k) { return k.key; }
  bool operator()(const Keyed& a, const Keyed& b) const { return a.key != b.key ? a.key < b.key : a.seq < b.seq; }
};
}  // namespace

TEST(Spool, RadixOnTheLeadingKeyWhenArrivalsHaveNoOrder) {
  std::mt19937_64 rng(3);
  std::vector<Keyed> in;
  for (uint32_t i = 0; i < 30000; ++i) {
    // Small keys, keys above 2^48 (four radix passes), many equal keys.
    uint64_t k = i % 3 == 0 ? rng() % 50 : i % 3 == 1 ? (uint64_t(1) << 50) + rng() % 1000 : rng();
    in.push_back(Keyed{k, i, 0});
  }
  std::shuffle(in.begin(), in.end(), rng);
  std::vector<Keyed> want = in;
  std::sort(want.begin(), want.end(), ByKeySeq());
  for (size_t budget : {size_t(64) << 20, size_t(16) << 10}) {
    Spool<Keyed, ByKeySeq> s(budget);
    for (const Keyed& k : in) s.push(k);
    s.finish();
    Keyed k;
    size_t i = 0;
    while (s.next(k)) {
      ASSERT_LT(i, want.size());
      ASSERT_EQ(k.key, want[i].key) << i;
      ASSERT_EQ(k.seq, want[i].seq) << i;
      ++i;
    }
    EXPECT_EQ(i, want.size());
  }
}

// Runs whose records alternate (run A the even keys, run B the odd ones, run C every third):
// the merge switches runs at every record, the run on top trading places with the current one.
TEST(Spool, RunsThatAlternateAtEveryRecordMergeInOrder) {
  for (uint32_t runs : {2u, 3u, 5u}) {
    const size_t budget = 32 << 10, per_run = budget / (2 * sizeof(Rec) + 1);
    std::vector<Rec> in;
    for (uint32_t k = 0; k < runs; ++k)
      for (size_t i = 0; i < per_run; ++i) in.push_back(Rec{0, static_cast<int64_t>(i * runs + k), in.size()});
    expect_sorted_copy(in, budget, runs - 1);
  }
}

// A spilled spool's temporary file is closed once the spool is gone (on a thread of its own:
// the descriptor may stay open a moment, never for good).
TEST(Spool, TheTemporaryFileIsClosedAfterTheSpool) {
  auto open_descriptors = [] {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
    return n;
  };
  const size_t before = open_descriptors();
  {
    Spool<Rec, ByTrackStartSeq> s(16 << 10);
    for (const Rec& r : interleaved(20000, 3, 4)) s.push(r);
    s.finish();
    EXPECT_GE(s.runs_spilled(), 3u);
    EXPECT_GT(open_descriptors(), before);
    Rec r;
    size_t n = 0;
    while (s.next(r)) ++n;
    EXPECT_EQ(n, 20000u);
  }
  size_t after = open_descriptors();
  for (int i = 0; i < 500 && after > before; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    after = open_descriptors();
  }
  EXPECT_EQ(after, before);
}
