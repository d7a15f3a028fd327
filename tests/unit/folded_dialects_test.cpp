// Folded-stack dialects: comment and metadata lines (Austin's headers, '//' comments), Austin's
// P<pid>;T<tid> and py-spy's process/thread frames as group levels, and sniffing that a few bad
// lines among good ones do not defeat.
#include <string>

#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "flamefold/readers/text/folded.h"
#include "flamefold/writers/folded.h"
#include "test_support.h"

using namespace flamefold;

namespace {

std::string folded_of(const Profile& p) {
  std::string path = test::tmp_path("out.folded");
  {
    OutputFile out(path);
    write_folded(p, p.default_column, out, WriteOptions{});
    out.commit();
  }
  return test::read_file(path);
}

Profile read_file_text(const std::string& text, unsigned threads = 1) {
  ReadOptions o;
  o.threads_to_use = threads;
  return read_profile({test::write_file("in.folded", text)}, o);
}

Profile read_stream_text(const std::string& text) {  // not mapped: the NodeTable / stream paths
  Input in = Input::from_memory("in.folded", text);
  return read_folded(in, ReadOptions{});
}

std::string fact(const Profile& p, const std::string& key) {
  for (const auto& [k, v] : p.facts)
    if (k == key) return v;
  return "(none)";
}

// The frame a path of names leads to from the root, or kNone.
NodeId find_path(const Profile& p, std::initializer_list<std::string_view> names) {
  NodeId n = 0;
  for (std::string_view name : names) {
    NodeId found = kNone;
    for (NodeId c = p.first_child[n]; c != kNone; c = p.next_sibling[c])
      if (p.symbols.name(p.frame[c]) == name) found = c;
    if (found == kNone) return kNone;
    n = found;
  }
  return n;
}

const std::string kAustin =
    "# austin: 3.7.0\n"
    "# interval: 100\n"
    "# mode: wall\n"
    "# python: 3.11.4\n"
    "\n"
    "P4242;T0:4242;/app/main.py:<module>:10;/app/main.py:run:33;/app/work.py:crunch:12 1500\n"
    "P4242;T0:4242;/app/main.py:<module>:10;/app/main.py:run:33 200\n"
    "P4242;T1:4250;/usr/lib/python3.11/threading.py:_bootstrap:995;/app/io.py:poll:7 300\n"
    "P4242;T0:4242;/app/main.py:<module>:10;/app/main.py:run:33;/app/work.py:crunch:12 500\n"
    "P977;T0:977;/app/child.py:<module>:1 40\n"
    "\n"
    "# duration: 2540\n"
    "# saturation: 0/25\n";

}  // namespace

TEST(FoldedDialects, AustinHeadersAreFactsAndItsPrefixesAreProcessAndThreadLevels) {
  for (int path = 0; path < 3; ++path) {
    SCOPED_TRACE(path);
    Profile p = path == 0 ? read_file_text(kAustin) : path == 1 ? read_file_text(kAustin, 2) : read_stream_text(kAustin);
    EXPECT_EQ(p.source_format, "folded (Austin)");
    EXPECT_EQ(fact(p, "austin"), "3.7.0");
    EXPECT_EQ(fact(p, "mode"), "wall");
    EXPECT_EQ(fact(p, "interval"), "100");
    EXPECT_EQ(fact(p, "duration"), "2540");  // the metadata Austin writes at the end
    EXPECT_EQ(p.columns[p.default_column].unit, "us");
    EXPECT_EQ(fact(p, "stack lines"), "5");
    EXPECT_TRUE(p.counters.empty()) << "no bad lines: comments are not stacks";
    NodeId proc = find_path(p, {"P4242"});
    ASSERT_NE(proc, kNone);
    EXPECT_EQ(p.symbols.category_name(p.symbols[p.frame[proc]].category), category::kProcess);
    NodeId thread = find_path(p, {"P4242", "T0:4242"});
    ASSERT_NE(thread, kNone);
    EXPECT_EQ(p.symbols.category_name(p.symbols[p.frame[thread]].category), category::kThread);
    NodeId crunch = find_path(p, {"P4242", "T0:4242", "<module>", "run", "crunch"});
    ASSERT_NE(crunch, kNone);
    const Frame& f = p.symbols[p.frame[crunch]];
    EXPECT_EQ(p.symbols.strings[f.file], "/app/work.py");
    EXPECT_EQ(f.line, 12u);
    EXPECT_EQ(p.columns[p.default_column].self[crunch], 2000);
    // collapse writes the stacks back as Austin wrote them.
    EXPECT_EQ(folded_of(p),
              "P4242;T0:4242;/app/main.py:<module>:10;/app/main.py:run:33 200\n"
              "P4242;T0:4242;/app/main.py:<module>:10;/app/main.py:run:33;/app/work.py:crunch:12 2000\n"
              "P4242;T1:4250;/usr/lib/python3.11/threading.py:_bootstrap:995;/app/io.py:poll:7 300\n"
              "P977;T0:977;/app/child.py:<module>:1 40\n");
  }
}

TEST(FoldedDialects, CommentLinesAndAFewBadLinesDoNotDefeatSniffing) {
  const std::string text =
      "# samples taken at 1 kHz\n"
      "// more about the run\n"
      "a;b;c 1\na;b;c 1\na;b;d 4\na;b;c 3\na;b 5\nnot a stack line\n";
  Input in = Input::from_memory("x.txt", text);
  EXPECT_EQ(sniff_format(in.head(), "x.txt"), Format::Folded);
  Profile p = read_file_text(text);
  EXPECT_EQ(folded_of(p), "a;b 5\na;b;c 5\na;b;d 4\n");
  EXPECT_EQ(fact(p, "comment"), "samples taken at 1 kHz");
  ASSERT_EQ(p.counters.size(), 1u);
  EXPECT_EQ(p.counters[0].count, 1u);  // the one bad line, counted as before
  // Bad lines among good ones, without comments.
  Input bad = Input::from_memory("y.txt", "x;y 31\nx;z 6\nTHIS IS A BAD LINE\nx;y;w 1\nx 19\nq;r 2\nq;s 274\n");
  EXPECT_EQ(sniff_format(bad.head(), "y.txt"), Format::Folded);
}

TEST(FoldedDialects, WithoutLeadingCommentsAHashFrameIsStillAStack) {
  // Files that do not start with comments read as they always did.
  Profile p = read_file_text("a;b 1\na;c 2\na;d 3\na;e 4\n#x;y 2\n");
  EXPECT_EQ(folded_of(p), "#x;y 2\na;b 1\na;c 2\na;d 3\na;e 4\n");
}

TEST(FoldedDialects, PySpyProcessAndThreadFramesAreGroupLevels) {
  const std::string text =
      "process 4242:\"python train.py\";thread (0x7F12AB): MainThread;<module> (train.py:10);main (train.py:5) 3\n"
      "process 4242:\"python train.py\";thread (0x7F12AC): loader;<module> (train.py:10) 1\n";
  Profile p = read_file_text(text);
  EXPECT_EQ(p.source_format, "folded (py-spy)");
  NodeId proc = find_path(p, {"process 4242:\"python train.py\""});
  ASSERT_NE(proc, kNone);
  EXPECT_EQ(p.symbols.category_name(p.symbols[p.frame[proc]].category), category::kProcess);
  NodeId thread = find_path(p, {"process 4242:\"python train.py\"", "thread (0x7F12AC): loader"});
  ASSERT_NE(thread, kNone);
  EXPECT_EQ(p.symbols.category_name(p.symbols[p.frame[thread]].category), category::kThread);
  EXPECT_EQ(folded_of(p), text);
  // Without --subprocesses: the thread frame first.
  Profile t = read_file_text("thread (0x7F12AB): MainThread;main (a.py:1) 2\n");
  NodeId th = find_path(t, {"thread (0x7F12AB): MainThread"});
  ASSERT_NE(th, kNone);
  EXPECT_EQ(t.symbols.category_name(t.symbols[t.frame[th]].category), category::kThread);
  // Plain py-spy raw output (no --threads) stays plain folded stacks.
  Profile plain = read_file_text("<module> (a.py:1);main (a.py:5) 3\n");
  EXPECT_EQ(plain.source_format, "folded");
}

TEST(FoldedDialects, CpythonDialectIsUnchanged) {
  Profile p = read_file_text("tid:7;/a.py:f:3;/a.py:g:9 5\ntid:8;/a.py:f:3 1\n");
  EXPECT_EQ(p.source_format, "folded (CPython sampling profiler)");
  NodeId t = find_path(p, {"tid:7"});
  ASSERT_NE(t, kNone);
  EXPECT_EQ(p.symbols.category_name(p.symbols[p.frame[t]].category), category::kThread);
  EXPECT_EQ(folded_of(p), "tid:7;/a.py:f:3;/a.py:g:9 5\ntid:8;/a.py:f:3 1\n");
}

TEST(FoldedDialects, AustinFileMakesAFlameGraphFromTheCommandLine) {
  std::string in = test::write_file("austin.out", kAustin), html = test::tmp_path("f.html"), svg = test::tmp_path("f.svg");
  test::RunResult r = test::flamefold("flamegraph " + in + " -o " + html);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(test::read_file(html).size(), 1000u);
  r = test::flamefold("flamegraph " + in + " -o " + svg);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(test::read_file(svg).find("crunch"), std::string::npos);
  test::RunResult info = test::flamefold("info " + in);
  EXPECT_NE(info.out.find("format: folded (Austin)"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("process P4242"), std::string::npos) << info.out;
}
