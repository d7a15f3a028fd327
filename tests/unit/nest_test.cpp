// The nest rule of DESIGN.md: containment, cutting an outlived interval, parent hints, and the
// invariant that a thread's self time equals the union of its intervals.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "flamefold/timeline_build.h"
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
