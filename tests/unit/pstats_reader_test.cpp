// pstats input: both marshal generations, the `profile` module's int callers, clear errors, and
// the flame graph rebuilt from caller edges.
#include <filesystem>

#include "flamefold/call_stats.h"
#include "flamefold/errors.h"
#include "flamefold/readers/marshal/pstats.h"
#include "flamefold/writers/pstats.h"
#include "test_support.h"

using namespace flamefold;

namespace {

std::string le32(uint32_t v) { return std::string{char(v), char(v >> 8), char(v >> 16), char(v >> 24)}; }
std::string py2_str(char code, std::string_view s) { return std::string(1, code) + le32(uint32_t(s.size())) + std::string(s); }
std::string py2_int(int v) { return "i" + le32(uint32_t(v)); }
std::string py2_float(double v) {  // 'f': text float, as old marshal versions wrote
  std::string t = std::to_string(v);
  return "f" + std::string(1, char(t.size())) + t;
}

std::string error_of(std::string_view bytes) {
  try {
    parse_pstats(bytes, "bad.prof");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// A -> B -> C and A -> C, in seconds.
CallStats diamond() {
  CallStats st;
  auto fn = [&](const char* name, double tt, double ct) {
    FunctionStat f;
    f.file = "m.py";
    f.line = static_cast<uint32_t>(st.functions.size() + 1);
    f.name = name;
    f.ncalls = f.pcalls = 1;
    f.tottime = tt;
    f.cumtime = ct;
    st.functions.push_back(f);
  };
  fn("A", 1, 10);
  fn("B", 3, 6);
  fn("C", 6, 6);
  auto call = [&](uint32_t from, uint32_t to, double ct) {
    CallerEdge e;
    e.caller = from;
    e.callee = to;
    e.ncalls = e.pcalls = 1;
    e.cumtime = ct;
    uint32_t i = static_cast<uint32_t>(st.callers.size());
    st.callers.push_back(e);
    uint32_t* link = &st.functions[to].first_caller;
    while (*link != kNone) link = &st.callers[*link].next_caller;
    *link = i;
  };
  call(0, 1, 6);
  call(0, 2, 3);
  call(1, 2, 3);
  return st;
}

}  // namespace

TEST(PstatsReader, ReadsPython2MarshalWithInternedStringReferences) {
  // {('s.py', 3, 'f'): (1, 2, 0.5, 0.75, {('s.py', 1, 'main'): 2})} with 't'/'R' strings and int callers.
  std::string b = "{";
  b += "(" + le32(3) + py2_str('t', "s.py") + py2_int(3) + py2_str('t', "f");
  b += "(" + le32(5) + py2_int(1) + py2_int(2) + py2_float(0.5) + py2_float(0.75);
  b += "{(" + le32(3) + "R" + le32(0) + py2_int(1) + py2_str('t', "main") + py2_int(2) + "0";
  b += "0";
  CallStats st = parse_pstats(b, "py2.prof");
  ASSERT_EQ(st.functions.size(), 2u);
  EXPECT_EQ(st.functions[0].file, "s.py");
  EXPECT_EQ(st.functions[0].name, "f");
  EXPECT_EQ(st.functions[0].ncalls, 2);
  EXPECT_DOUBLE_EQ(st.functions[0].cumtime, 0.75);
  EXPECT_EQ(st.functions[1].name, "main");
  EXPECT_FALSE(st.functions[1].listed);  // named only as a caller
  ASSERT_EQ(st.callers.size(), 1u);
  EXPECT_TRUE(st.callers[0].count_only);
  EXPECT_EQ(st.callers[0].ncalls, 2);
  EXPECT_DOUBLE_EQ(st.callers[0].cumtime, 0.75);  // all of f's calls come from main
  // Written back, the int caller stays an int.
  CallStats again = parse_pstats(pstats_bytes(st), "again.prof");
  EXPECT_TRUE(again.callers[0].count_only);
}

TEST(PstatsReader, ClearErrorsForBrokenFiles) {
  CallStats st = diamond();
  std::string good = pstats_bytes(st);
  EXPECT_NE(error_of(good.substr(0, good.size() / 2)).find("truncated"), std::string::npos);
  EXPECT_NE(error_of("[" + le32(0)).find("not a dict"), std::string::npos);
  EXPECT_NE(error_of("{" + py2_int(1) + py2_int(2) + "0").find("not a (file, line, name) tuple"), std::string::npos);
  // A tuple (flagged for reference 0) whose first item refers back to itself.
  std::string cyclic = "{";
  cyclic += std::string(1, char(')' | 0x80)) + char(3) + "r" + le32(0);
  EXPECT_NE(error_of(cyclic).find("cyclic back-reference"), std::string::npos) << error_of(cyclic);
  EXPECT_NE(error_of("{r" + le32(7)).find("out of range"), std::string::npos);
  EXPECT_NE(error_of("{c").find("unknown marshal type code 0x63 (a code object)"), std::string::npos);
  EXPECT_NE(error_of(good + "x").find("trailing bytes"), std::string::npos);
  std::string e = error_of(good.substr(0, 7));
  EXPECT_EQ(e.rfind("bad.prof:byte ", 0), 0u) << e;  // file and place first
}

TEST(PstatsReader, FlameGraphSharesCumtimeAmongCallers) {
  Profile p = profile_from_call_stats(diamond());
  int cpu = p.column("cpu");
  std::vector<double> total = p.totals(cpu);
  FrameId a = p.symbols.frame("A", "m.py", 1), b = p.symbols.frame("B", "m.py", 2), c = p.symbols.frame("C", "m.py", 3);
  NodeId na = p.find_child(0, a);
  ASSERT_NE(na, kNone);
  EXPECT_DOUBLE_EQ(total[na], 10e9);
  EXPECT_DOUBLE_EQ(p.columns[cpu].self[na], 1e9);
  NodeId nb = p.find_child(na, b), nac = p.find_child(na, c);
  ASSERT_NE(nb, kNone);
  ASSERT_NE(nac, kNone);
  EXPECT_DOUBLE_EQ(total[nb], 6e9);
  EXPECT_DOUBLE_EQ(total[nac], 3e9);  // C's 6 s split 3:3 between its callers
  NodeId nbc = p.find_child(nb, c);
  ASSERT_NE(nbc, kNone);
  EXPECT_DOUBLE_EQ(total[nbc], 3e9);
}

TEST(PstatsReader, RecursionIsNotExpandedTwice) {
  CallStats st = diamond();
  CallerEdge loop;  // C calls A back
  loop.caller = 2;
  loop.callee = 0;
  loop.ncalls = 1;
  loop.cumtime = 2;
  st.callers.push_back(loop);
  st.functions[0].first_caller = static_cast<uint32_t>(st.callers.size() - 1);
  Profile p = profile_from_call_stats(st);  // A has a caller now: every function is called; starts at the largest
  EXPECT_GT(p.node_count(), 3u);
  EXPECT_LT(p.node_count(), 10u);
  bool counted = false;
  for (const Counter& c : p.counters)
    if (c.what.find("recursive") != std::string::npos) counted = true;
  EXPECT_TRUE(counted);
}

TEST(PstatsReader, RealFilesAllRead) {
  REQUIRE_SHARED("data/pstats");
  int files = 0;
  for (auto& entry : std::filesystem::recursive_directory_iterator(shared_path + "data/pstats")) {
    std::string path = entry.path().string();
    if (!entry.is_regular_file() || (path.find(".prof") == std::string::npos && path.find(".pstats") == std::string::npos))
      continue;
    Input in = Input::open(path);
    CallStats st = read_pstats_stats(in);
    EXPECT_GT(st.functions.size(), 3u) << path;
    Profile p = profile_from_call_stats(st);
    EXPECT_GT(p.node_count(), 3u) << path;
    ++files;
  }
  EXPECT_GE(files, 10);
}

TEST(PstatsReader, TopAndFlamegraphCommandsOnPstats) {
  CallStats st = diamond();
  std::string prof = test::write_file("d.prof", pstats_bytes(st));
  test::RunResult r = test::flamefold("top " + prof + " --sort cumulative");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("         3 function calls in 10.000 seconds"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("        1    1.000    1.000   10.000   10.000 m.py:1(A)"), std::string::npos) << r.out;
  std::string folded = test::tmp_path("d.folded");
  r = test::flamefold("collapse " + prof + " -o " + folded);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = test::read_file(folded);
  EXPECT_NE(text.find("m.py:A:1;m.py:B:2;m.py:C:3 3000000000"), std::string::npos) << text;
}
