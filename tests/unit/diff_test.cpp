// flamefold diff: the differential model (union tree, before/after columns, -n, -s), its folded
// output against difffolded.pl, its SVG colours against flamegraph.pl, the table, the CI gate,
// and traced inputs (a real Kineto trace against itself and against a perturbed copy).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "flamefold/diff.h"
#include "flamefold/pipeline.h"
#include "test_support.h"

using namespace flamefold;

namespace {

Profile folded_profile(const std::string& name, const std::string& text) {
  return read_profile({test::write_file(name, text)}, ReadOptions{});
}

std::string sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

bool have_perl() { return std::system("perl -e 1 >/dev/null 2>&1") == 0; }

// (title, fill) of every frame of an SVG flame graph.
std::multiset<std::pair<std::string, std::string>> svg_frames(const std::string& svg) {
  std::multiset<std::pair<std::string, std::string>> out;
  size_t at = 0;
  while ((at = svg.find("<title>", at)) != std::string::npos) {
    size_t end = svg.find("</title>", at);
    std::string title = svg.substr(at + 7, end - at - 7);
    size_t fill = svg.find("fill=\"", end);
    size_t fill_end = svg.find('"', fill + 6);
    out.emplace(title, svg.substr(fill + 6, fill_end - fill - 6));
    at = end;
  }
  return out;
}

}  // namespace

TEST(DiffModel, UnionTreeWithBothSidesWeights) {
  Profile before = folded_profile("before.folded", "a;b 5\na;c 3\na 2\n");
  Profile after = folded_profile("after.folded", "a;b 7\na;c 1\na 2\nd 4\n");
  Profile d = make_diff(std::move(before), std::move(after), DiffOptions{});
  ASSERT_TRUE(is_differential(d));
  const int after_col = d.default_column, before_col = before_column(d, after_col);
  ASSERT_GE(before_col, 0);
  EXPECT_EQ(d.columns[after_col].name, "samples");
  EXPECT_EQ(d.columns[before_col].name, "before:samples");
  EXPECT_EQ(d.total(after_col), 14);
  EXPECT_EQ(d.total(before_col), 10);
  std::map<std::string, std::pair<double, double>> by_name;
  for (const FrameChange& c : frame_changes(d, after_col))
    by_name[std::string(d.symbols.name(c.frame))] = {c.before_total, c.after_total};
  EXPECT_EQ(by_name["a"], std::make_pair(10.0, 10.0));
  EXPECT_EQ(by_name["b"], std::make_pair(5.0, 7.0));
  EXPECT_EQ(by_name["c"], std::make_pair(3.0, 1.0));
  EXPECT_EQ(by_name["d"], std::make_pair(0.0, 4.0));  // new on the after side
  EXPECT_EQ(before_column(d, before_col), -1);         // a before column has no companion
  Profile plain = folded_profile("plain.folded", "a 1\n");
  EXPECT_FALSE(is_differential(plain));
}

TEST(DiffModel, NormalizeTruncatesAsDifffoldedDoes) {
  // before total 3, after total 10: each before stack * 10 / 3, truncated (1 -> 3, 2 -> 6).
  Profile d = make_diff(folded_profile("b.folded", "x 1\ny 2\n"), folded_profile("a.folded", "x 5\ny 5\n"),
                        DiffOptions{true, false});
  const int b = before_column(d, d.default_column);
  std::map<std::string, double> before;
  for (const FrameChange& c : frame_changes(d, d.default_column)) before[std::string(d.symbols.name(c.frame))] = c.before_self;
  EXPECT_EQ(before["x"], 3);
  EXPECT_EQ(before["y"], 6);
  EXPECT_EQ(d.total(b), 9);
}

TEST(DiffModel, StripHexMergesAddresses) {
  EXPECT_EQ(strip_hex_numbers("foo+0x1f;[unknown] 0xdeadBEEF x0x"), "foo+0x...;[unknown] 0x... x0x");
  Profile d = make_diff(folded_profile("b.folded", "main;0x7f01 3\n"), folded_profile("a.folded", "main;0x7f02 4\n"),
                        DiffOptions{false, true});
  auto changes = frame_changes(d, d.default_column);
  ASSERT_EQ(changes.size(), 2u);  // main and 0x...
  for (const FrameChange& c : changes)
    if (d.symbols.name(c.frame) == "0x...") EXPECT_EQ(std::make_pair(c.before_self, c.after_self), std::make_pair(3.0, 4.0));
}

TEST(DiffCli, FoldedSvgTableAndGate) {
  std::string b = test::write_file("b.folded", "a;b 5\na;c 3\na 2\n");
  std::string a = test::write_file("a.folded", "a;b 7\na;c 1\na 2\nd 4\n");
  std::string out = test::tmp_path("d.folded");
  test::RunResult r = test::flamefold("diff " + b + " " + a + " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_file(out), "a 2 2\na;b 5 7\na;c 3 1\nd 0 4\n");

  r = test::flamefold("diff " + b + " " + a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("samples: before 10, after 14 (+40.00%)"), std::string::npos) << r.out;
  size_t grew = r.out.find("grew"), shrank = r.out.find("shrank");
  ASSERT_NE(grew, std::string::npos);
  EXPECT_LT(r.out.find("  d\n", grew), r.out.find("  b\n", grew));  // the largest growth first
  EXPECT_NE(r.out.find("  c\n", shrank), std::string::npos);

  r = test::flamefold("diff " + b + " " + a + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"before_total\":10,\"after_total\":14"), std::string::npos) << r.out;

  // The gate: d grew by 40% of the before total, b by 20%.
  r = test::flamefold("diff " + b + " " + a + " --fail-above 30%");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("regression: d grew by 4 samples (+40.00% of the before total; 0 -> 4)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("regression: b"), std::string::npos);
  r = test::flamefold("diff " + b + " " + a + " --fail-above 10");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_LT(r.err.find("regression: d"), r.err.find("regression: b"));
  r = test::flamefold("diff " + b + " " + a + " --fail-above 50%");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = test::flamefold("diff " + a + " " + a + " --fail-above 0");
  EXPECT_EQ(r.exit_code, 0) << r.err;  // nothing grew
  // With --normalize shares are compared: before scaled to 14 (a 2 -> 2, b 5 -> 7, c 3 -> 4).
  r = test::flamefold("diff " + b + " " + a + " -n --fail-above 20%");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("regression: d"), std::string::npos);
  EXPECT_EQ(r.err.find("regression: b"), std::string::npos) << r.err;

  // Sides given explicitly, and usage errors.
  r = test::flamefold("diff --before " + b + " --after " + a + " -o " + out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = test::flamefold("diff " + b + " " + a + " " + b);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("even number of inputs"), std::string::npos) << r.err;
  r = test::flamefold("diff " + b + " " + a + " --fail-above lots");
  EXPECT_EQ(r.exit_code, 2);
}

TEST(DiffCli, SvgColoursAreFlamegraphPls) {
  if (!have_perl()) GTEST_SKIP() << "perl is not installed";
  REQUIRE_SHARED("peers/FlameGraph/flamegraph.pl");
  std::string b = test::write_file("b.folded", "main;work;inner 50\nmain;work 20\nmain;idle 30\nmain;gone 5\n");
  std::string a = test::write_file("a.folded", "main;work;inner 80\nmain;work 10\nmain;idle 30\nmain;new 7\n");
  for (const std::string& negate : {std::string(""), std::string(" --negate")}) {
    std::string ours = test::tmp_path("ours.svg"), three = test::tmp_path("three.folded");
    test::RunResult r = test::flamefold("diff " + b + " " + a + negate + " -o " + ours);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(test::flamefold("diff " + b + " " + a + " -o " + three).exit_code, 0);
    r = test::run("perl " + shared_path + "peers/FlameGraph/flamegraph.pl" + negate + " " + three);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(svg_frames(test::read_file(ours)), svg_frames(r.out)) << negate;
    // The three-column file itself drawn by flamefold, as flamegraph.pl draws it.
    std::string from_file = test::tmp_path("from_file.svg");
    ASSERT_EQ(test::flamefold("flamegraph " + three + negate + " -o " + from_file).exit_code, 0);
    EXPECT_EQ(svg_frames(test::read_file(from_file)), svg_frames(r.out)) << negate;
  }
}

// difffolded.pl's lines (sorted) for pairs of the FlameGraph suite's collapsed outputs, plain,
// -n and -s: the variants of one perf file differ by their annotations, pids and addresses.
TEST(DiffParity, DifffoldedOnTheFlameGraphSuite) {
  if (!have_perl()) GTEST_SKIP() << "perl is not installed";
  REQUIRE_SHARED("data/flamegraph-tests/results");
  std::vector<std::string> files;
  for (auto& e : std::filesystem::directory_iterator(shared_path + "data/flamegraph-tests/results"))
    if (e.path().string().find("-collapsed-") != std::string::npos) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  size_t pairs = 0;
  for (size_t i = 0; i + 1 < files.size(); ++i) {
    std::string stem_a = files[i].substr(0, files[i].rfind("-collapsed-"));
    std::string stem_b = files[i + 1].substr(0, files[i + 1].rfind("-collapsed-"));
    if (stem_a != stem_b) continue;
    for (const char* flags : {"", "-n", "-s", "-n -s"}) {
      SCOPED_TRACE(files[i] + " vs " + files[i + 1] + " " + flags);
      test::RunResult want = test::run("perl " + shared_path + "peers/FlameGraph/difffolded.pl " + flags + " " + files[i] + " " +
                                       files[i + 1]);
      ASSERT_EQ(want.exit_code, 0) << want.err;
      std::string out = test::tmp_path("d.folded");
      test::RunResult got = test::flamefold("diff " + std::string(flags) + " " + files[i] + " " + files[i + 1] + " -o " + out);
      ASSERT_EQ(got.exit_code, 0) << got.err;
      EXPECT_EQ(test::read_file(out), sorted_lines(want.out));
    }
    ++pairs;
  }
  EXPECT_GE(pairs, 50u);
}

TEST(DiffTraces, RunsWithOtherProcessIdsLineUp) {
  // HolisticTraceAnalysis' control and test traces come from different processes: the diff
  // merges threads by default, so shared stacks are matched, not all new and gone.
  const std::string dir = "data/kineto/facebookresearch__HolisticTraceAnalysis/tests/data/trace_diff/";
  REQUIRE_SHARED(dir);
  std::string control = shared_path + dir + "control/control.json.gz", test_trace = shared_path + dir + "test/test.json.gz";
  std::string out = test::tmp_path("d.folded");
  test::RunResult r = test::flamefold("diff " + control + " " + test_trace + " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t both = 0, lines = 0;
  std::istringstream in(test::read_file(out));
  for (std::string l; std::getline(in, l); ++lines) {
    size_t a = l.rfind(' '), b = l.rfind(' ', a - 1);
    if (l.substr(b + 1, a - b - 1) != "0" && l.substr(a + 1) != "0") ++both;
  }
  EXPECT_GT(both, lines / 4) << "stacks found on both sides: " << both << " of " << lines;
  r = test::flamefold("diff " + control + " " + test_trace + " --group-by thread -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(test::read_file(out).find("thread"), std::string::npos);
}

TEST(DiffTraces, ARealKinetoTraceAgainstItselfAndAPerturbedCopy) {
  const std::string gz = "data/kineto/pytorch__kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
  REQUIRE_SHARED(gz);
  std::string trace = test::tmp_path("before.json");
  ASSERT_EQ(test::run("(zcat " + shared_path + gz + " > " + trace + ")").exit_code, 0);
  std::string folded = test::tmp_path("self.folded");
  test::RunResult r = test::flamefold("diff " + trace + " " + trace + " --weight gpu -o " + folded);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(test::read_file(folded));
  size_t lines = 0;
  for (std::string l; std::getline(in, l); ++lines) {
    size_t a = l.rfind(' '), b = l.rfind(' ', a - 1);
    EXPECT_EQ(l.substr(b + 1, a - b - 1), l.substr(a + 1)) << l;  // every delta 0
  }
  EXPECT_GT(lines, 10u);
  r = test::flamefold("diff " + trace + " " + trace + " --weight gpu --fail-above 0");
  EXPECT_EQ(r.exit_code, 0) << r.err;

  // The after trace: every kernel launched by the busiest stack's op runs twice as long. The
  // table and the gate name that op's frames first.
  r = test::flamefold("top " + trace + " --weight gpu --sort self -n 1 --json");
  ASSERT_EQ(r.exit_code, 0);
  size_t at = r.out.find("\"name\":\"");
  ASSERT_NE(at, std::string::npos) << r.out;
  std::string kernel = r.out.substr(at + 8, r.out.find('"', at + 8) - at - 8);
  std::ifstream f(trace);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str(), doubled;
  // Kernel events: "name": "<kernel>" ... "dur": D -> 2D (the first "dur" after the name).
  size_t pos = 0, changed = 0;
  const std::string key = "\"name\": \"" + kernel + "\"";
  while (true) {
    size_t n = text.find(key, pos);
    if (n == std::string::npos) break;
    size_t d = text.find("\"dur\": ", n);
    size_t e = text.find_first_of(",}", d + 7);
    doubled += text.substr(pos, d + 7 - pos);
    double dur = std::stod(text.substr(d + 7, e - d - 7));
    doubled += std::to_string(dur * 2);
    pos = e;
    ++changed;
  }
  doubled += text.substr(pos);
  ASSERT_GT(changed, 0u) << kernel;
  std::string after = test::write_file("after.json", doubled);
  r = test::flamefold("diff " + trace + " " + after + " --weight gpu --sort self --limit 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t grew = r.out.find("grew");
  ASSERT_NE(grew, std::string::npos);
  EXPECT_NE(r.out.find(kernel, grew), std::string::npos) << r.out;
  r = test::flamefold("diff " + trace + " " + after + " --weight gpu --fail-above 1%");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("regression: "), std::string::npos);
}
