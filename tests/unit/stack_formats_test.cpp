// The stack formats FlameGraph and inferno collapse (readers/text/collapse_*.cpp), on inputs
// written for these tests: sniffed, read to the folded stacks their peers print, and bad input
// refused with a clear error (never a crash).
#include <string>

#include "flamefold/errors.h"
#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "flamefold/readers/text/collapse.h"
#include "flamefold/writers/folded.h"
#include "stack_fixtures.h"
#include "stack_generators.h"
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

Profile read_text(const std::string& name, const std::string& text, const std::string& format = "") {
  ReadOptions o;
  o.format = format;
  return read_profile({test::write_file(name, text)}, o);
}

double total(const Profile& p) {
  double t = 0;
  for (double w : p.columns[p.default_column].self) t += w;
  return t;
}

}  // namespace

TEST(StackFormats, EachFixtureIsSniffedAndReadAsItsPeerReadsIt) {
  for (const test::StackFixture& f : test::stack_fixtures()) {
    SCOPED_TRACE(f.file);
    Input in = Input::from_memory(f.file, f.text);
    EXPECT_EQ(format_name(sniff_format(in.head(), f.file)), format_name(f.format));
    Profile p = read_text(f.file, f.text);
    EXPECT_EQ(folded_of(p), f.folded);
    // --format gives the same.
    EXPECT_EQ(folded_of(read_text(f.file, f.text, std::string(format_name(f.format)))), f.folded);
  }
}

TEST(StackFormats, GeneratedInputsAreSniffedAndRead) {
  for (const test::gen::Generated& g : test::gen::generators()) {
    for (uint32_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE(std::string(g.name) + " seed " + std::to_string(seed));
      std::string text = g.make(seed, g.n);
      Input in = Input::from_memory(g.name, text);
      EXPECT_EQ(format_name(sniff_format(in.head(), g.name)), format_name(g.format));
      Profile p = read_text(std::string(g.name) + ".txt", text);
      EXPECT_GT(total(p), 0);
      EXPECT_GT(p.node_count(), 2u);
    }
  }
}

TEST(StackFormats, OtherFormatsAreNotTakenForStackFormats) {
  const std::string perf = test::read_file(test::source_dir() + "/examples/python-perf.txt");
  EXPECT_EQ(sniff_stack_format(perf), StackFormat::None);
  EXPECT_EQ(sniff_stack_format("main;a;b 3\nmain;a 1\n\nmain`x;y 4\n"), StackFormat::None);
  EXPECT_EQ(sniff_stack_format("# austin: 3.7.0\n# mode: wall\n\nP1;T0:1;/a.py:f:1 100\n"), StackFormat::None);
  EXPECT_EQ(sniff_stack_format("[{\"ph\": \"X\"}]\n"), StackFormat::None);
  // A DTrace output needs its count line; frames alone are not enough to tell.
  EXPECT_EQ(sniff_stack_format("CPU ID\n\n  libc`read+0x1\n  app`main+0x2\n"), StackFormat::None);
}

TEST(StackFormats, DtraceFramesAreNamedAsInfernoNamesThem) {
  Profile p = read_text("d.txt",
                        "CPU     ID                    FUNCTION:NAME\n  0  1  :tick-1s\n\n"
                        "  app`ns::Cls::run(int const&)+0x10\n  app`main+0x20\n  3\n\n"
                        "  libjvm.so`Lfoo/Bar;.baz->Lfoo/Qux;.inl+0x4\n  app`main+0x20\n  2\n\n"
                        "  +0x10\n  app`main\n  1\n");
  // (both peers print exactly these lines for this input)
  EXPECT_EQ(folded_of(p), "app`main;- 1\napp`main;app`ns::Cls::run 3\napp`main;libjvm.so`Lfoo/Bar:.baz;foo/Qux:.inl_[i] 2\n");
}

TEST(StackFormats, VtuneAndVsprofKeepTheLastWeightOfAStackSeenTwice) {
  // inferno stores these with insert(): a repeated stack replaces the earlier weight.
  Profile v = read_text("v.csv", "Function Stack,CPU Time:Self,Module\nmain,0.5,app\n f,0.25,app\nmain,0.125,app\n");
  EXPECT_EQ(folded_of(v), "app`main 125\napp`main;app`f 250\n");
  EXPECT_EQ(v.columns[v.default_column].unit, "ms");
}

TEST(StackFormats, GoTracesReadValuesWithTheirUnits) {
  Profile p = read_text("heap.txt",
                        "File: app\nType: inuse_space\n-----------+-------------------------------------------------------\n"
                        "     1.50MB   main.alloc\n             main.main\n"
                        "-----------+-------------------------------------------------------\n"
                        "       pid:  12\n      512kB   bytes.growSlice (inline)\n             main.main\n"
                        "-----------+-------------------------------------------------------\n");
  EXPECT_EQ(folded_of(p), "main.main;bytes.growSlice_[i] 524288\nmain.main;main.alloc 1572864\n");
  EXPECT_EQ(p.columns[p.default_column].unit, "bytes");
}

TEST(StackFormats, JstackKeepsOnlyRunnableThreadsNamedWithoutTheirNumber) {
  Profile p = read_text("j.txt",
                        "Full thread dump OpenJDK:\n\n"
                        "\"pool-2-thread-7\" #30 prio=5\n   java.lang.Thread.State: RUNNABLE\n\tat a.B.c(B.java:1)\n\n"
                        "\"pool-2-thread-8\" #31 prio=5\n   java.lang.Thread.State: BLOCKED (on object monitor)\n\tat a.B.d(B.java:2)\n\n"
                        "\"pool-2-thread-9\" #32 prio=5\n   java.lang.Thread.State: RUNNABLE\n\tat sun.nio.ch.EPoll.wait(Native Method)\n\n");
  EXPECT_EQ(folded_of(p), "pool-2-thread;a.B.c 1\n");
}

TEST(StackFormats, BadInputGetsOneClearError) {
  struct Case {
    const char* format;
    std::string text;
    const char* message;
  } cases[] = {
      {"vtune", "Function Stack,CPU Time:Self,Module\nmain,0.5,app\n   deep,0.1,app\n", "line 3: an indentation level skipped"},
      {"vtune", "Function Stack,CPU Time:Self,Module\nmain,fast,app\n", "line 2: CPU Time:Self 'fast' is not a number"},
      {"vtune", "Function Stack,CPU Time:Self,Module\nmain;0.5\n", "line 2: expected \"function,seconds,module\""},
      {"vtune", "no header here\n", "no VTune CSV header"},
      {"vsprof", "Level,Function\n", "line 1: not the header of a Visual Studio call tree"},
      {"vsprof", test::stack_fixtures()[5].text + "x,\"f\",1,\n", "expected a number"},
      {"vsprof", test::stack_fixtures()[5].text + "3,f,1,\n", "expected the function name in quotes"},
      {"ghcprof", "nothing\n", "no cost-centre header"},
      // (the columns are where the header's words are)
      {"ghcprof", "COST CENTRE MODULE SRC no. entries %time %alloc %time %alloc\n\nMAIN        MAIN   x   1   0       abc 0.0 1 1\n",
       "line 3: the %time column holds 'abc'"},
      {"ghcprof", "COST CENTRE MODULE SRC no. entries %time %alloc %time %alloc\n\nMAIN        MAIN   x   1   0       1.0 0.0 1 1\n"
                  "   deep     MAIN   x   1   0       1.0 0.0 1 1\n",
       "line 4: an indentation level skipped"},
      {"xctrace", "<?xml version=\"1.0\"?>\n<trace-query-result><node><row><backtrace ref=\"9\"/></row></node></trace-query-result>",
       "refers to no backtrace seen before"},
      {"xctrace", "<?xml version=\"1.0\"?>\n<trace-query-result><node><row>", "the file ends inside <trace-query-result>"},
      {"xctrace", "<?xml version=\"1.0\"?>\n<trace-query-result><node></row></node>", "</row> does not close"},
      {"xctrace", "<?xml version=\"1.0\"?>\n<trace-query-result><node><row><backtrace id=\"1\"><frame id=\"2\" name=\"a&bogus;\"/>",
       "an unknown entity &bogus;"},
      {"xctrace", "<?xml version=\"1.0\"?>\n<trace-query-result><node><row><backtrace id=\"x\">", "not a number"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    std::string path = test::write_file("bad.txt", c.text);
    test::RunResult r = test::flamefold("collapse --format " + std::string(c.format) + " " + path);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(path), std::string::npos) << "the message names the file: " << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

TEST(StackFormats, CutAndDamagedInputsNeverCrash) {
  // Every format read from prefixes of its inputs and with bytes overwritten: a profile or an
  // InputError, nothing else.
  std::vector<std::pair<Format, std::string>> inputs;
  for (const test::StackFixture& f : test::stack_fixtures()) inputs.emplace_back(f.format, f.text);
  for (const test::gen::Generated& g : test::gen::generators()) inputs.emplace_back(g.format, g.make(7, g.n / 4 + 1));
  test::gen::Rng r(99);
  int read = 0, refused = 0;
  for (const auto& [format, text] : inputs) {
    for (int k = 0; k < 24; ++k) {
      std::string t = text.substr(0, text.size() * static_cast<size_t>(k) / 24);
      if (k % 3 == 1 && !t.empty())
        for (int j = 0; j < 4; ++j) t[static_cast<size_t>(r.below(static_cast<int>(t.size())))] = "\"<>;,+ \n\t0x`]["[r.below(15)];
      for (bool forced : {true, false}) {
        ReadOptions o;
        if (forced) o.format = std::string(format_name(format));
        try {
          Input in = Input::from_memory("cut.txt", t);
          (void)read_profile({test::write_file("cut.txt", t)}, o);
          ++read;
        } catch (const InputError&) {
          ++refused;
        }
      }
    }
  }
  EXPECT_GT(read, 0);
  EXPECT_GT(refused, 0);
}

// DTrace and SystemTap inputs of 8 MB or more are cut after count lines and read by several
// workers: the same profile as one worker reads, CRLF line ends included; a header longer than
// a piece (no blank line anywhere) and frames after the last count are still reported.
TEST(StackFormats, BigDtraceAndStapReadOnSeveralThreadsAsOnOne) {
  auto read_with = [](const std::string& path, const char* format, unsigned threads) {
    ReadOptions o;
    o.format = format;
    o.threads_to_use = threads;
    return read_profile({path}, o);
  };
  auto counted = [](const Profile& p, std::string_view what) {
    for (const Counter& c : p.counters)
      if (c.what.find(what) != std::string::npos) return c.count;
    return uint64_t(0);
  };
  std::string dtrace = test::gen::dtrace(5, 42000), stap = test::gen::stap(6, 45000);
  ASSERT_GT(dtrace.size(), size_t(9) << 20);
  ASSERT_GT(stap.size(), size_t(9) << 20);
  std::string crlf;
  for (char c : dtrace) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  struct Case {
    const char* name;
    std::string text;
    const char* format;
  } cases[] = {{"big.dtrace", dtrace + "              app`left+0x1\n", "dtrace"},
               {"big_crlf.dtrace", crlf, "dtrace"},
               {"big.stap", stap + " 0xffffffff81000000 : left+0x1/0x10 [kernel]\n", "stap"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = test::write_file(c.name, c.text);
    Profile one = read_with(path, c.format, 1), two = read_with(path, c.format, 2);
    EXPECT_EQ(folded_of(two), folded_of(one));
    EXPECT_EQ(total(two), total(one));
    EXPECT_GT(total(one), 0);
    EXPECT_EQ(counted(two, "frames after the last count"), counted(one, "frames after the last count"));
  }
  EXPECT_EQ(counted(read_with(test::tmp_path("big.dtrace"), "dtrace", 2), "frames after the last count"), 1u);
  EXPECT_EQ(counted(read_with(test::tmp_path("big_crlf.dtrace"), "dtrace", 2), "frames after the last count"), 0u);
  // No blank line after the header: every line is header, over all the pieces.
  std::string no_blank;
  for (char c : dtrace)
    if (!(c == '\n' && !no_blank.empty() && no_blank.back() == '\n')) no_blank += c;
  ASSERT_EQ(no_blank.find("\n\n"), std::string::npos);
  const std::string path = test::write_file("no_blank.dtrace", no_blank);
  Profile p = read_with(path, "dtrace", 2);
  EXPECT_EQ(total(p), 0);
  EXPECT_EQ(counted(p, "no blank line after the header"), 1u);
}
