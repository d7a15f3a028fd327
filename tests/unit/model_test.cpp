#include "flamefold/builder.h"
#include "flamefold/function_stats.h"
#include "flamefold/merge.h"
#include "flamefold/profile.h"
#include "test_support.h"

using namespace flamefold;

TEST(StringTable, InternsOnceAndKeepsViewsValid) {
  StringTable t;
  EXPECT_EQ(t.intern(""), 0u);
  StrId a = t.intern("alpha");
  std::string_view view = t.get(a);
  for (int i = 0; i < 100000; ++i) t.intern("s" + std::to_string(i));
  EXPECT_EQ(t.intern("alpha"), a);
  EXPECT_EQ(view, "alpha");
  EXPECT_EQ(t.find("s99999"), t.intern("s99999"));
  EXPECT_EQ(t.find("missing"), UINT32_MAX);
  std::string big(10 << 20, 'x');
  StrId b = t.intern(big);
  EXPECT_EQ(t.get(b).size(), big.size());
  EXPECT_EQ(t.get(a), "alpha");
}

TEST(Symbols, FramesAreDistinctByLocationAndCategory) {
  Symbols s;
  FrameId f1 = s.frame("forward", "model.py", 42);
  FrameId f2 = s.frame("forward", "model.py", 43);
  FrameId f3 = s.frame("forward", "model.py", 42);
  CategoryId k = s.category("kernel");
  FrameId f4 = s.frame("forward", "model.py", 42, k);
  EXPECT_EQ(f1, f3);
  EXPECT_NE(f1, f2);
  EXPECT_NE(f1, f4);
  EXPECT_EQ(s.file(f2), "model.py");
  EXPECT_EQ(s.category_name(s[f4].category), "kernel");
  EXPECT_EQ(s.category("kernel"), k);
}

TEST(Profile, SampleBuilderMergesStacksAndTotalsAddUp) {
  Profile p;
  int c = p.add_column("samples", "samples");
  SampleBuilder b(p, c);
  FrameId main = p.symbols.frame("main"), a = p.symbols.frame("a"), x = p.symbols.frame("x");
  b.add(std::vector<FrameId>{main, a}, 3);
  b.add(std::vector<FrameId>{main, a}, 2);
  b.add(std::vector<FrameId>{main, x}, 1.5);
  EXPECT_EQ(p.node_count(), 4u);
  std::vector<double> t = p.totals(c);
  EXPECT_DOUBLE_EQ(t[0], 6.5);
  NodeId nm = p.find_child(0, main);
  EXPECT_DOUBLE_EQ(t[nm], 6.5);
  EXPECT_DOUBLE_EQ(p.columns[c].self[p.find_child(nm, a)], 5);
  EXPECT_EQ(p.find_child(nm, main), kNone);
}

TEST(Profile, IntervalBuilderAttributesSelfTime) {
  Profile p;
  int t = p.add_column("cpu", "ns");
  int calls = p.add_column("calls", "count");
  IntervalBuilder b(p, t, calls);
  FrameId f = p.symbols.frame("f"), g = p.symbols.frame("g");
  b.enter(f, 100);
  b.enter(g, 110);
  b.leave(g, 150);
  b.enter(g, 160);
  b.leave(g, 170);
  b.leave(f, 200);
  NodeId nf = p.find_child(0, f), ng = p.find_child(nf, g);
  EXPECT_DOUBLE_EQ(p.columns[t].self[nf], 50);
  EXPECT_DOUBLE_EQ(p.columns[t].self[ng], 50);
  EXPECT_DOUBLE_EQ(p.columns[calls].self[ng], 2);
  EXPECT_DOUBLE_EQ(p.total(t), 100);
  b.leave(50);  // nothing open
  EXPECT_EQ(p.counters.size(), 1u);
}

TEST(FrameStats, RecursionCountsTotalOnce) {
  Profile p;
  int c = p.add_column("samples", "samples");
  SampleBuilder b(p, c);
  FrameId r = p.symbols.frame("r"), leaf = p.symbols.frame("leaf");
  b.add(std::vector<FrameId>{r, r, r, leaf}, 4);
  b.add(std::vector<FrameId>{r}, 1);
  auto stats = frame_stats(p, c);
  for (auto& s : stats) {
    if (s.frame == r) {
      EXPECT_DOUBLE_EQ(s.total, 5);
      EXPECT_DOUBLE_EQ(s.self, 1);
    }
    if (s.frame == leaf) EXPECT_DOUBLE_EQ(s.total, 4);
  }
}

TEST(Merge, GraftKeepsWeightsUnderARankFrame) {
  Profile a;
  int c = a.add_column("samples", "samples");
  SampleBuilder(a, c).add(std::vector<FrameId>{a.symbols.frame("x"), a.symbols.frame("y")}, 2);
  Profile m;
  NodeId at = m.child(0, m.symbols.frame("rank0", {}, 0, m.symbols.category("rank")));
  graft(m, at, a);
  EXPECT_EQ(m.columns.size(), 1u);
  EXPECT_DOUBLE_EQ(m.total(0), 2);
  EXPECT_EQ(m.depth(m.node_count() - 1), 3u);
}
