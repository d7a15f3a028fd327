// Call graphs in gprof2dot's DOT conventions, rendered by Graphviz.
#include <filesystem>

#include "flamefold/call_stats.h"
#include "flamefold/readers/marshal/pstats.h"
#include "flamefold/writers/callgraph.h"
#include "flamefold/writers/pstats.h"
#include "test_support.h"

using namespace flamefold;

namespace {

CallStats small_graph() {
  CallStats st;
  auto fn = [&](const char* file, uint32_t line, const char* name, double nc, double tt, double ct) {
    FunctionStat f;
    f.file = file;
    f.line = line;
    f.name = name;
    f.ncalls = f.pcalls = nc;
    f.tottime = tt;
    f.cumtime = ct;
    st.functions.push_back(f);
  };
  fn("/src/app.py", 10, "main", 1, 1, 100);
  fn("/src/lib.py", 20, "work", 5, 60, 90);
  fn("~", 0, "<built-in method time.sleep>", 50, 29.6, 29.6);
  fn("/src/lib.py", 30, "tiny", 1, 0.4, 0.4);  // 0.4 % < 0.5 %: dropped
  auto call = [&](uint32_t from, uint32_t to, double nc, double pc, double ct) {
    CallerEdge e;
    e.caller = from;
    e.callee = to;
    e.ncalls = nc;
    e.pcalls = pc;
    e.cumtime = ct;
    st.callers.push_back(e);
    st.functions[to].first_caller = static_cast<uint32_t>(st.callers.size() - 1);
  };
  call(0, 1, 5, 5, 90);
  call(1, 2, 50, 50, 29.6);
  call(0, 3, 1, 1, 0.4);
  return st;
}

}  // namespace

TEST(CallgraphDot, Gprof2dotLabelsColoursAndThresholds) {
  std::string dot = callgraph_dot(small_graph(), CallGraphOptions{});
  EXPECT_EQ(dot.rfind("digraph {\n\tgraph [fontname=Arial, nodesep=0.125, ranksep=0.25];\n", 0), 0u) << dot;
  EXPECT_NE(dot.find("\t0 [color=\"#ff0000\", fontcolor=\"#ffffff\", fontsize=\"10.00\", "
                     "label=\"app:10:main\\n100.00%\\n(1.10%)\\n1\u00d7\", tooltip=\"/src/app.py\"];\n"),
            std::string::npos)
      << dot;
  // Ids follow gprof2dot's parser order: each entry, then its callers. Self % is of all tottime.
  EXPECT_NE(dot.find("\t0 -> 1 [arrowsize=\"0.95\", color=\"#f06102\", fontcolor=\"#f06102\", fontsize=\"10.00\", "
                     "label=\"90.00%\\n5\u00d7\", labeldistance=\"3.60\", penwidth=\"3.60\"];\n"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("label=\"~:0:<built-in method time.sleep>\\n29.60%\\n(32.53%)\\n50\u00d7\", tooltip=\"~\""),
            std::string::npos)
      << dot;
  EXPECT_EQ(dot.find("tiny"), std::string::npos);  // under --node-thres
  EXPECT_EQ(callgraph_color(0), "#0d0d73");  // dark blue (values from gprof2dot's formulas run in Python)
  EXPECT_EQ(callgraph_color(1), "#ff0000");  // saturated red
  std::string all = callgraph_dot(small_graph(), CallGraphOptions{0, 0});
  EXPECT_NE(all.find("lib:30:tiny"), std::string::npos);
}

TEST(CallgraphDot, RendersWithGraphviz) {
  if (test::run("dot -V").exit_code != 0) GTEST_SKIP() << "Graphviz's dot is not installed";
  std::string prof = test::write_file("g.prof", pstats_bytes(small_graph()));
  std::string svg = test::tmp_path("g.svg"), png = test::tmp_path("g.png"), dotfile = test::tmp_path("g.dot");
  test::RunResult r = test::flamefold("callgraph " + prof + " -o " + svg);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = test::read_file(svg);
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_NE(text.find("app:10:main"), std::string::npos);
  r = test::flamefold("callgraph " + prof + " -o " + png);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_file(png).substr(1, 3), "PNG");
  r = test::flamefold("callgraph " + prof + " -o " + dotfile + " --node-thres 0 --edge-thres 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(test::read_file(dotfile).find("lib:30:tiny"), std::string::npos);
  // The DOT itself is valid for Graphviz.
  EXPECT_EQ(test::run("dot -Tsvg " + dotfile + " -o /dev/null").exit_code, 0);
}

TEST(CallgraphDot, SaysSoWhenGraphvizIsMissing) {
  std::string prof = test::write_file("g.prof", pstats_bytes(small_graph()));
  std::string svg = test::tmp_path("missing.svg");
  std::filesystem::remove(svg);
  test::RunResult r = test::run("PATH=/nonexistent " + test::binary() + " callgraph " + prof + " -o " + svg);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Graphviz's `dot` program is not installed"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(svg));
}

TEST(CallgraphDot, RealPstatsFilesRender) {
  REQUIRE_SHARED("data/pstats/jrfonseca__gprof2dot/tests/pstats/cProfile.pstats");
  if (test::run("dot -V").exit_code != 0) GTEST_SKIP() << "Graphviz's dot is not installed";
  std::string svg = test::tmp_path("c.svg");
  test::RunResult r =
      test::flamefold("callgraph " + shared_path + "data/pstats/jrfonseca__gprof2dot/tests/pstats/cProfile.pstats -o " + svg);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The same functions gprof2dot drew in its 2016 oracle.
  std::string text = test::read_file(svg);
  for (const char* name : {"pystone:33:&lt;module&gt;", "pystone:79:Proc0", "~:0:&lt;execfile&gt;"})
    EXPECT_NE(text.find(name), std::string::npos) << name;
}
