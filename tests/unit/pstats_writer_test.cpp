// cProfile statistics derived from a call tree, and the marshal file Python's pstats reads.
#include <cmath>

#include "flamefold/builder.h"
#include "flamefold/call_stats.h"
#include "flamefold/readers/marshal/pstats.h"
#include "flamefold/writers/pstats.h"
#include "flamefold/writers/pstats_table.h"
#include "test_support.h"

using namespace flamefold;

namespace {

// A traced profile's cpu (ns) and calls columns and its one thread's group node.
struct TracedColumns {
  int cpu, calls;
  NodeId thread;
};
TracedColumns traced_columns(Profile& p) {
  int cpu = p.add_column("cpu", "ns");
  int calls = p.add_column("calls", "count");
  p.default_column = cpu;
  return {cpu, calls, p.child(0, p.symbols.frame("thread 1", {}, 0, p.symbols.category(category::kThread)))};
}

// main -> f -> f -> g, then main -> aten::mm, on one thread (ns, with a calls column).
Profile recursive_profile() {
  Profile p;
  auto [cpu, calls, thread] = traced_columns(p);
  IntervalBuilder b(p, cpu, calls, thread);
  FrameId main = p.symbols.frame("main", "app.py", 1), f = p.symbols.frame("f", "app.py", 5),
          g = p.symbols.frame("g", "lib.py", 7), mm = p.symbols.frame("aten::mm");
  b.enter(main, 0);
  b.enter(f, 10);
  b.enter(f, 20);
  b.enter(g, 30);
  b.leave(40);
  b.leave(50);
  b.leave(60);
  b.enter(mm, 70);
  b.leave(80);
  b.leave(100);
  return p;
}

const FunctionStat* find(const CallStats& st, std::string_view name) {
  for (const FunctionStat& f : st.functions)
    if (f.name == name) return &f;
  return nullptr;
}

const CallerEdge* edge(const CallStats& st, std::string_view caller, std::string_view callee) {
  for (const CallerEdge& e : st.callers)
    if (st.functions[e.caller].name == caller && st.functions[e.callee].name == callee) return &e;
  return nullptr;
}

}  // namespace

TEST(PstatsWriter, DerivesCProfileSemanticsFromTheTree) {
  Profile p = recursive_profile();
  CallStats st = call_stats(p, p.column("cpu"));
  EXPECT_FALSE(st.from_samples);
  ASSERT_EQ(st.functions.size(), 4u);  // the thread frame is left out
  const FunctionStat* f = find(st, "f");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->file, "app.py");
  EXPECT_EQ(f->line, 5u);
  EXPECT_EQ(f->ncalls, 2);
  EXPECT_EQ(f->pcalls, 1);
  EXPECT_NEAR(f->tottime, 40e-9, 1e-18);
  EXPECT_NEAR(f->cumtime, 50e-9, 1e-18);  // counted once across the recursion
  const FunctionStat* mm = find(st, "aten::mm");
  ASSERT_TRUE(mm);
  EXPECT_EQ(mm->file, "~");
  EXPECT_EQ(mm->line, 0u);
  const FunctionStat* main = find(st, "main");
  EXPECT_NEAR(main->tottime, 40e-9, 1e-18);
  EXPECT_NEAR(main->cumtime, 100e-9, 1e-18);
  EXPECT_EQ(main->first_caller, kNone);  // its caller is a thread: no edge

  const CallerEdge* ff = edge(st, "f", "f");
  ASSERT_TRUE(ff);
  EXPECT_EQ(ff->ncalls, 1);
  EXPECT_EQ(ff->pcalls, 1);
  EXPECT_NEAR(ff->cumtime, 30e-9, 1e-18);
  EXPECT_NEAR(ff->tottime, 20e-9, 1e-18);
  const CallerEdge* mf = edge(st, "main", "f");
  ASSERT_TRUE(mf);
  EXPECT_EQ(mf->ncalls, 1);
  EXPECT_NEAR(mf->cumtime, 50e-9, 1e-18);
  EXPECT_NEAR(st.total_tt(), 100e-9, 1e-18);
  EXPECT_EQ(st.total_calls(), 5);
  EXPECT_EQ(st.prim_calls(), 4);
}

TEST(PstatsWriter, MarshalReadsBackThroughOurReader) {
  Profile p = recursive_profile();
  CallStats st = call_stats(p, p.column("cpu"));
  CallStats back = parse_pstats(pstats_bytes(st), "mem.prof");
  ASSERT_EQ(back.functions.size(), st.functions.size());
  for (size_t i = 0; i < st.functions.size(); ++i) {
    EXPECT_EQ(back.functions[i].name, st.functions[i].name);
    EXPECT_EQ(back.functions[i].file, st.functions[i].file);
    EXPECT_EQ(back.functions[i].ncalls, st.functions[i].ncalls);
    EXPECT_EQ(back.functions[i].cumtime, st.functions[i].cumtime);
  }
  EXPECT_EQ(back.callers.size(), st.callers.size());
}

TEST(PstatsWriter, PythonPstatsLoadsItWithTheSameTotals) {
  if (test::run("python3 -c 'import pstats'").exit_code != 0) GTEST_SKIP() << "python3 is not installed";
  Profile p = recursive_profile();
  CallStats st = call_stats(p, p.column("cpu"));
  std::string prof = test::tmp_path("tree.prof");
  {
    OutputFile out(prof);
    write_pstats(st, out);
    out.commit();
  }
  std::string script = test::write_file("check.py", R"(
import pstats, sys
s = pstats.Stats(sys.argv[1])
close = lambda a, b: abs(a - b) < 1e-15
assert s.total_calls == 5 and s.prim_calls == 4, (s.total_calls, s.prim_calls)
assert close(s.total_tt, 100e-9), s.total_tt
f = s.stats[('app.py', 5, 'f')]
assert f[:2] == (1, 2) and close(f[2], 40e-9) and close(f[3], 50e-9), f
assert set(f[4]) == {('app.py', 1, 'main'), ('app.py', 5, 'f')}, f[4]
ff = f[4][('app.py', 5, 'f')]
assert ff[:2] == (1, 1) and close(ff[2], 20e-9) and close(ff[3], 30e-9), ff
assert ('~', 0, 'aten::mm') in s.stats
assert s.stats[('app.py', 1, 'main')][4] == {}
print("ok")
)");
  test::RunResult r = test::run("python3 " + script + " " + prof);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok\n");
}

TEST(PstatsWriter, SampledInputSaysSoAndCountsCallPaths) {
  Profile p;
  int samples = p.add_column("samples", "samples");
  SampleBuilder b(p, samples);
  FrameId a = p.symbols.frame("a"), c = p.symbols.frame("c");
  FrameId s1[] = {a, c}, s2[] = {a};
  b.add(s1, 3);
  b.add(s2, 2);
  CallStats st = call_stats(p, samples);
  EXPECT_TRUE(st.from_samples);
  EXPECT_EQ(st.time_unit, "samples");
  ASSERT_EQ(st.functions.size(), 2u);
  EXPECT_EQ(find(st, "a")->cumtime, 5);
  EXPECT_EQ(find(st, "a")->ncalls, 1);  // one call path
  std::string path = test::tmp_path("table.txt");
  {
    OutputFile out(path);
    write_pstats_table(st, "cumulative", 10, out);
    out.commit();
  }
  std::string table = test::read_file(path);
  EXPECT_NE(table.find("sampled input"), std::string::npos) << table;
  EXPECT_NE(table.find("2 function calls in 5.000 seconds"), std::string::npos) << table;
}

TEST(PstatsWriter, ConvertCommandWritesAProfFromAnyInput) {
  std::string folded = test::write_file("in.folded", "main;work 7\nmain 3\n");
  std::string prof = test::tmp_path("out.prof");
  test::RunResult r = test::flamefold("convert " + folded + " -o " + prof);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("sample weights"), std::string::npos) << r.err;
  CallStats back = parse_pstats(test::read_file(prof), prof);
  ASSERT_EQ(back.functions.size(), 2u);
  EXPECT_EQ(back.functions[0].name, "main");
  EXPECT_EQ(back.functions[0].cumtime, 10);
  EXPECT_EQ(back.functions[1].tottime, 7);
}

namespace {
// 200 functions, each called from every other one: 40,000 caller edges, about 1.5 MB of marshal.
Profile dense_call_graph() {
  Profile p;
  auto [cpu, calls, thread] = traced_columns(p);
  constexpr int kFunctions = 200;
  std::vector<FrameId> fn;
  for (int i = 0; i < kFunctions; ++i) fn.push_back(p.symbols.frame("fn_" + std::to_string(i), "mod.py", uint32_t(i + 1)));
  for (int i = 0; i < kFunctions; ++i) {
    NodeId outer = p.child(thread, fn[i]);
    p.add(outer, cpu, 1000 + i);
    p.add(outer, calls, 1);
    for (int j = 0; j < kFunctions; ++j) {
      NodeId inner = p.child(outer, fn[j]);
      p.add(inner, cpu, 1 + (i * 31 + j) % 97);
      p.add(inner, calls, 1 + (i + j) % 5);
    }
  }
  return p;
}
}  // namespace

// write_pstats streams the file through the output buffer, flushing as it goes; the file must
// equal the whole-buffer bytes, also past the 1 MB flush threshold.
TEST(PstatsWriter, StreamedFileEqualsTheBytes) {
  Profile p = dense_call_graph();
  CallStats st = call_stats(p, p.column("cpu"));
  ASSERT_EQ(st.callers.size(), 200u * 200u);
  std::string bytes = pstats_bytes(st);
  ASSERT_GT(bytes.size(), size_t(1) << 20);
  std::string path = test::tmp_path("streamed.prof");
  {
    OutputFile out(path);
    write_pstats(st, out);
    out.commit();
  }
  EXPECT_TRUE(test::read_file(path) == bytes);
}

// call_stats packs (caller, callee, node) into 8 bytes when it can; the general 16-byte form
// (taken for huge trees) must give the same statistics.
TEST(PstatsWriter, PackedAndGeneralEdgePairsGiveTheSameStatistics) {
  Profile p = dense_call_graph();
  // Recursion and group frames in between, so primitive calls and skipped levels are exercised.
  NodeId deep = p.child(0, p.symbols.frame("thread 2", {}, 0, p.symbols.category(category::kThread)));
  for (int d = 0; d < 6; ++d) {
    deep = p.child(deep, p.symbols.frame("fn_" + std::to_string(d % 2), "mod.py", uint32_t(d % 2 + 1)));
    p.add(deep, p.column("cpu"), 10);
    p.add(deep, p.column("calls"), 2);
  }
  CallStats packed = call_stats(p, p.column("cpu"));
  set_call_stats_packed_pairs(false);
  CallStats general = call_stats(p, p.column("cpu"));
  set_call_stats_packed_pairs(true);
  ASSERT_EQ(packed.functions.size(), general.functions.size());
  ASSERT_EQ(packed.callers.size(), general.callers.size());
  for (size_t i = 0; i < packed.functions.size(); ++i) {
    const FunctionStat &a = packed.functions[i], &b = general.functions[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.ncalls, b.ncalls);
    EXPECT_EQ(a.pcalls, b.pcalls);
    EXPECT_EQ(a.tottime, b.tottime);
    EXPECT_EQ(a.cumtime, b.cumtime);
    EXPECT_EQ(a.first_caller, b.first_caller);
  }
  for (size_t e = 0; e < packed.callers.size(); ++e) {
    const CallerEdge &a = packed.callers[e], &b = general.callers[e];
    EXPECT_EQ(a.caller, b.caller);
    EXPECT_EQ(a.callee, b.callee);
    EXPECT_EQ(a.ncalls, b.ncalls);
    EXPECT_EQ(a.pcalls, b.pcalls);
    EXPECT_EQ(a.cumtime, b.cumtime);
    EXPECT_EQ(a.next_caller, b.next_caller);
  }
  EXPECT_TRUE(pstats_bytes(packed) == pstats_bytes(general));
}
