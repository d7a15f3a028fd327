// The nest rule of DESIGN.md: containment, cutting an outlived interval, parent hints, and the
// invariant that a thread's self time equals the union of its intervals.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "flamefold/timeline/build_profile.h"
#include "kineto_test_util.h"

using namespace flamefold;
using kineto_test::folded;

namespace {

struct OneThread {
  Timeline tl;
  uint32_t track;
  OneThread() {
    tl.ranks.push_back("rank 0");
    Track t;
    t.pid = 1;
    t.tid = 1;
    t.name = tl.symbols.strings.intern("main");
    t.process_name = tl.symbols.strings.intern("proc");
    track = tl.add_track(t);
  }
  uint32_t add(const char* name, int64_t s, int64_t e, uint32_t parent = kNone) {
    return tl.add(track, s, e, tl.symbols.frame(name, {}, 0, tl.symbols.category("cpu_op")), EventKind::HostRange, 0, parent);
  }
};

Profile build(Timeline&& tl, ReadOptions ro = {}) { return build_profile(std::move(tl), ro, BuildOptions{}); }

}  // namespace

TEST(Nest, ContainedIntervalsNestAndSelfTimeIsExclusive) {
  OneThread t;
  t.add("A", 0, 100);
  t.add("B", 10, 50);
  t.add("C", 20, 30);
  t.add("D", 60, 90);
  Profile p = build(std::move(t.tl));
  auto f = folded(p, "cpu");
  EXPECT_EQ(f["proc;main;A"], 30);
  EXPECT_EQ(f["proc;main;A;B"], 30);
  EXPECT_EQ(f["proc;main;A;B;C"], 10);
  EXPECT_EQ(f["proc;main;A;D"], 30);
  EXPECT_EQ(f.size(), 4u);
  auto calls = folded(p, "calls");
  EXPECT_EQ(calls["proc;main;A;B;C"], 1);
}

TEST(Nest, EqualStartsPutTheLongerIntervalOutside) {
  OneThread t;
  t.add("inner", 0, 40);  // listed first but shorter
  t.add("outer", 0, 100);
  auto f = folded(build(std::move(t.tl)), "cpu");
  EXPECT_EQ(f["proc;main;outer"], 60);
  EXPECT_EQ(f["proc;main;outer;inner"], 40);
}

TEST(Nest, AnIntervalThatOutlivesItsEnclosingOneCutsIt) {
  // record_function range opened inside _record_function_enter_new and outliving it.
  OneThread t;
  t.add("op", 0, 200);
  t.add("enter_new", 10, 50);
  t.add("range", 40, 150);  // starts inside enter_new, ends after it
  t.add("child", 60, 70);
  auto f = folded(build(std::move(t.tl)), "cpu");
  EXPECT_EQ(f["proc;main;op;enter_new"], 30);  // cut at 40
  EXPECT_EQ(f["proc;main;op;range"], 100);     // nests under op, the nearest interval containing it
  EXPECT_EQ(f["proc;main;op;range;child"], 10);
  EXPECT_EQ(f["proc;main;op"], 60);            // 200 - 30 - 110
}

TEST(Nest, ThreadSelfTimeEqualsTheUnionOfItsIntervals) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 20; ++round) {
    OneThread t;
    std::vector<std::pair<int64_t, int64_t>> iv;
    for (int i = 0; i < 300; ++i) {
      int64_t s = int64_t(rng() % 10000), d = int64_t(rng() % 800);
      iv.emplace_back(s, s + d);
      t.add(("f" + std::to_string(rng() % 7)).c_str(), s, s + d);
    }
    std::sort(iv.begin(), iv.end());
    int64_t uni = 0, cur_s = INT64_MIN, cur_e = INT64_MIN;
    for (auto [s, e] : iv) {
      if (s > cur_e) {
        if (cur_e > cur_s) uni += cur_e - cur_s;
        cur_s = s;
        cur_e = e;
      } else {
        cur_e = std::max(cur_e, e);
      }
    }
    uni += cur_e - cur_s;
    Profile p = build(std::move(t.tl));
    int cpu = p.column("cpu");
    double sum = 0;
    for (NodeId n = 0; n < p.node_count(); ++n) {
      EXPECT_GE(p.columns[cpu].self[n], 0) << "negative self time at node " << n;
      sum += p.columns[cpu].self[n];
    }
    EXPECT_EQ(sum, double(uni)) << "round " << round;
    std::vector<double> total = p.totals(cpu);
    for (NodeId n = 1; n < p.node_count(); ++n) EXPECT_LE(total[n], total[p.parent[n]]);
  }
}

TEST(Nest, ParentHintsDecideBetweenIdenticalIntervals) {
  OneThread t;
  uint32_t child_first = t.add("child", 0, 100);
  uint32_t parent = t.add("parent", 0, 100);
  t.tl.parent_hint[child_first] = parent;
  auto f = folded(build(std::move(t.tl)), "calls");
  EXPECT_EQ(f["proc;main;parent;child"], 1);
  EXPECT_EQ(f["proc;main;parent"], 1);
}

TEST(Nest, AHintedChildStickingOutOfItsParentIsClampedIntoIt) {
  OneThread t;
  uint32_t parent = t.add("parent", 100, 200);
  t.add("child", 150, 201, parent);  // one ns past its parent (rounding in the trace)
  t.add("next", 200, 300);
  auto f = folded(build(std::move(t.tl)), "cpu");
  EXPECT_EQ(f["proc;main;parent;child"], 50);
  EXPECT_EQ(f["proc;main;parent"], 50);
  EXPECT_EQ(f["proc;main;next"], 100);
}

TEST(Nest, ZeroLengthEventsCountCallsButNoTime) {
  OneThread t;
  t.add("outer", 0, 10);
  t.add("blip", 5, 5);
  Profile p = build(std::move(t.tl));
  EXPECT_EQ(folded(p, "calls")["proc;main;outer;blip"], 1);
  EXPECT_EQ(folded(p, "cpu")["proc;main;outer"], 10);
}

// Profile::child scans a parent's siblings and indexes only parents with more than 8 children.
// A frame that comes back under the same parent after others must land on the node it had, for
// narrow and wide parents alike.
TEST(Nest, RepeatedFramesUnderOneParentMergeWhenTheyComeBackNonAdjacently) {
  OneThread t;
  constexpr int kRounds = 5, kWide = 20, kNarrow = 3;
  int64_t at = 0;
  t.add("wide", 0, 1000000);
  t.add("narrow", 1000000, 2000000);
  for (int r = 0; r < kRounds; ++r) {
    for (int k = 0; k < kWide; ++k) {  // f0 f1 ... f19, then again: never two alike in a row
      t.add(("f" + std::to_string((k * 7 + r) % kWide)).c_str(), at + 10, at + 20);
      at += 100;
    }
  }
  at = 1000000;
  for (int r = 0; r < kRounds; ++r)
    for (int k = 0; k < kNarrow; ++k) {
      t.add(("g" + std::to_string(k)).c_str(), at + 10, at + 20);
      at += 100;
    }
  Profile p = build(std::move(t.tl));
  auto calls = folded(p, "calls");
  for (int k = 0; k < kWide; ++k) EXPECT_EQ(calls["proc;main;wide;f" + std::to_string(k)], kRounds) << k;
  for (int k = 0; k < kNarrow; ++k) EXPECT_EQ(calls["proc;main;narrow;g" + std::to_string(k)], kRounds) << k;
  // proc, main, wide, narrow and one node per distinct child: nothing duplicated.
  EXPECT_EQ(p.node_count(), 1u + 4 + kWide + kNarrow);
  // The profile's own lookups (index built on demand) find the same nodes and create none.
  NodeId proc = p.find_child(0, p.symbols.frame("proc", {}, 0, p.symbols.category(category::kProcess)));
  ASSERT_NE(proc, kNone);
  NodeId main = p.find_child(proc, p.symbols.frame("main", {}, 0, p.symbols.category(category::kThread)));
  ASSERT_NE(main, kNone);
  NodeId wide = p.find_child(main, p.symbols.frame("wide", {}, 0, p.symbols.category("cpu_op")));
  ASSERT_NE(wide, kNone);
  size_t before = p.node_count();
  NodeId f3 = p.child(wide, p.symbols.frame("f3", {}, 0, p.symbols.category("cpu_op")));
  EXPECT_EQ(p.node_count(), before);
  EXPECT_EQ(kineto_test::path_of(p, f3), "proc;main;wide;f3");
}

// Random traces on two tracks that share one thread name (so one thread node): every node's
// children have distinct frames, and each event counts one call.
TEST(Nest, TracksSharingAThreadNodeBuildOneMergedTree) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 10; ++round) {
    OneThread t;
    Track second = t.tl.tracks[0];
    second.tid = 2;  // another track, same thread and process names
    uint32_t track2 = t.tl.add_track(second);
    FrameId frames[12];
    for (int k = 0; k < 12; ++k)
      frames[k] = t.tl.symbols.frame("f" + std::to_string(k), {}, 0, t.tl.symbols.category("cpu_op"));
    size_t events = 0;
    for (uint32_t track : {t.track, track2}) {
      // Nested calls from a random walk: each event sits inside the previous open ones.
      int64_t at = 0;
      for (int call = 0; call < 300; ++call) {
        int depth = 1 + int(rng() % 4);
        int64_t s = at;
        for (int d = 0; d < depth; ++d) {
          t.tl.add(track, s + d, s + 100 - d, frames[rng() % (d == 0 ? 12 : 3)], EventKind::HostRange);
          ++events;
        }
        at += 200;
      }
    }
    Profile p = build(std::move(t.tl));
    for (NodeId n = 0; n < p.node_count(); ++n) {
      std::vector<FrameId> seen;
      for (NodeId c = p.first_child[n]; c != kNone; c = p.next_sibling[c]) seen.push_back(p.frame[c]);
      std::sort(seen.begin(), seen.end());
      EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end()) << "duplicate child under node " << n;
    }
    EXPECT_EQ(p.total(p.column("calls")), double(events));
  }
}

TEST(Nest, CallStacksAddOnlyTheFramesBeyondTheStackAroundTheEvent) {
  OneThread t;
  CategoryId py = t.tl.symbols.category("python");
  auto fr = [&](const char* name, uint32_t line) { return t.tl.symbols.frame(name, "m.py", line, py); };
  const FrameId a = fr("main", 1), b = fr("step", 2), c = fr("helper", 3);
  const uint32_t s_ab = t.tl.call_stacks.add(std::vector<FrameId>{a, b});
  const uint32_t s_abc = t.tl.call_stacks.add(std::vector<FrameId>{a, b, c});
  const uint32_t s_ac = t.tl.call_stacks.add(std::vector<FrameId>{a, c});
  t.tl.set_call_stack(t.add("op", 0, 100), s_ab);
  t.tl.set_call_stack(t.add("same", 10, 20), s_ab);      // same stack: no frames
  t.tl.set_call_stack(t.add("deeper", 30, 50), s_abc);   // one more frame
  t.add("cxx", 60, 90);                                  // none: its children compare with op's
  t.tl.set_call_stack(t.add("inner", 70, 80), s_ac);     // shares only `main`: helper under cxx
  t.tl.set_call_stack(t.add("x", 91, 92), s_ab);         // the same frame twice in a row, with
  t.tl.set_call_stack(t.add("x", 93, 94), s_abc);        // different stacks: two call paths
  t.tl.set_call_stack(t.add("top", 200, 210), s_abc);    // under no event: the whole stack
  t.add("plain", 300, 310);
  Profile p = build(std::move(t.tl));
  auto f = folded(p, "cpu");
  EXPECT_EQ(f["proc;main;main;step;op"], 38);
  EXPECT_EQ(f["proc;main;main;step;op;same"], 10);
  EXPECT_EQ(f["proc;main;main;step;op;helper;deeper"], 20);
  EXPECT_EQ(f["proc;main;main;step;op;cxx"], 20);
  EXPECT_EQ(f["proc;main;main;step;op;cxx;helper;inner"], 10);
  EXPECT_EQ(f["proc;main;main;step;op;x"], 1);
  EXPECT_EQ(f["proc;main;main;step;op;helper;x"], 1);
  EXPECT_EQ(f["proc;main;main;step;helper;top"], 10);
  EXPECT_EQ(f["proc;main;plain"], 10);
  EXPECT_EQ(f.size(), 9u);
  auto calls = folded(p, "calls");
  EXPECT_EQ(calls.count("proc;main;main;step"), 0u);  // frames were not measured as calls
  EXPECT_EQ(calls["proc;main;main;step;op"], 1);
  double total = 0;
  for (const auto& [path, w] : f) total += w;
  EXPECT_EQ(total, 120);  // the union of the intervals: the frames add no time
}
