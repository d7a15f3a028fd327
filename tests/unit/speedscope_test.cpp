// speedscope's file format: reading sampled and evented profiles, the writer, round trips
// (flamefold -> speedscope -> flamefold equal on every weight), sniffing, and bad input (events
// that do not balance, truncated JSON, wrong types): one clear error line, never a crash.
#include <filesystem>
#include <string>

#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "flamefold/writers/speedscope.h"
#include "json_profiles.h"

using namespace flamefold;
using json_profiles::expect_clean_error;
using json_profiles::folded;
using json_profiles::info;
using json_profiles::sh_quote;

namespace {

const char* kSchema = R"("$schema": "https://www.speedscope.app/file-format-schema.json")";

// speedscope's 0.6.0 two-profile fixture, in its shape: seconds, frames without files.
std::string two_sampled() {
  return std::string("{\n  \"version\": \"0.6.0\",\n  ") + kSchema + R"(,
  "name": "Two Samples", "activeProfileIndex": 1,
  "profiles": [
    {"type": "sampled", "name": "one", "unit": "seconds", "startValue": 0, "endValue": 14,
     "samples": [[0, 1, 2], [0, 1, 2], [0, 1, 3], [0, 1, 2], [0, 1]], "weights": [1, 1, 4, 3, 5]},
    {"type": "sampled", "name": "two", "unit": "milliseconds", "startValue": 0, "endValue": 14,
     "samples": [[0, 1, 2], [0, 1]], "weights": [0.5, 2]}
  ],
  "shared": {"frames": [{"name": "a"}, {"name": "b", "file": "b.py", "line": 7}, {"name": "c"}, {"name": "d"}]}
}
)";
}

// An evented profile (speedscope's 0.0.1 fixture's shape: profiles before shared, unit none)
// with a gap between top-level frames and a recursive frame.
std::string evented(const std::string& events, const std::string& unit = "none", double start = 0) {
  return std::string("{") + kSchema + R"(, "profiles": [{"type": "evented", "name": "simple.txt", "unit": ")" + unit +
         R"(", "startValue": )" + std::to_string(start) + R"(, "endValue": 100, "events": [)" + events +
         R"(]}], "shared": {"frames": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}})";
}
std::string ev(char type, int frame, double at) {
  return std::string("{\"type\": \"") + type + "\", \"frame\": " + std::to_string(frame) + ", \"at\": " + std::to_string(at) + "}";
}

}  // namespace

TEST(Speedscope, SampledProfilesBecomeThreadsWithTimeInNanoseconds) {
  std::string path = test::write_file("two.speedscope.json", two_sampled());
  EXPECT_EQ(folded(path),
            "one;a;b.py:b:7 5000000000\n"
            "one;a;b.py:b:7;c 5000000000\n"
            "one;a;b.py:b:7;d 4000000000\n"
            "two;a;b.py:b:7 2000000\n"
            "two;a;b.py:b:7;c 500000\n");
  std::string i = info(path);
  EXPECT_NE(i.find("format: speedscope"), std::string::npos);
  EXPECT_NE(i.find("weight cpu (default): 14002500000 ns"), std::string::npos) << i;
  EXPECT_NE(i.find("profiles: 2"), std::string::npos) << i;
  EXPECT_NE(i.find("thread one"), std::string::npos) << i;
}

TEST(Speedscope, EventedWeightGoesToTheInnermostOpenFrame) {
  // a [0,10] holds b [2,5] holding a again [3,4]; c [20,26] after a gap no frame covers.
  std::string events = ev('O', 0, 0) + "," + ev('O', 1, 2) + "," + ev('O', 0, 3) + "," + ev('C', 0, 4) + "," + ev('C', 1, 5) +
                       "," + ev('C', 0, 10) + "," + ev('O', 2, 20) + "," + ev('C', 2, 26);
  std::string path = test::write_file("evented.json", evented(events));
  EXPECT_EQ(folded(path), "simple.txt;a 7\nsimple.txt;a;b 2\nsimple.txt;a;b;a 1\nsimple.txt;c 6\n");
  EXPECT_NE(info(path).find("weight samples (default): 16 samples"), std::string::npos);
  // A time unit: "cpu" in ns, relative to startValue.
  std::string timed = test::write_file("evented-us.json", evented(ev('O', 0, 1.5) + "," + ev('C', 0, 3.75), "microseconds", 1));
  EXPECT_EQ(folded(timed), "simple.txt;a 2250\n");
}

TEST(Speedscope, GroupByNoneMergesProfiles) {
  std::string path = test::write_file("two.speedscope.json", two_sampled());
  EXPECT_EQ(folded(path, "", "--group-by none"),
            "a;b.py:b:7 5002000000\n"
            "a;b.py:b:7;c 5000500000\n"
            "a;b.py:b:7;d 4000000000\n");
}

TEST(Speedscope, EventsThatDoNotBalanceAreErrors) {
  // speedscope's own invalid fixtures: a close that is not the innermost open frame ...
  std::string crossed = test::write_file(
      "out-of-order-events.json",
      evented(ev('O', 0, 0) + "," + ev('C', 0, 1) + "," + ev('O', 1, 2) + "," + ev('O', 0, 2) + "," + ev('O', 0, 3) + "," +
              ev('C', 0, 4) + "," + ev('C', 1, 4) + "," + ev('C', 0, 5)));
  std::string err = expect_clean_error(crossed, "crossed events");
  EXPECT_NE(err.find("profiles[0].events[6]"), std::string::npos) << err;
  EXPECT_NE(err.find("do not balance"), std::string::npos) << err;
  // ... and a frame never closed.
  err = expect_clean_error(test::write_file("incomplete-trace.json", evented(ev('O', 0, 0))), "never closed");
  EXPECT_NE(err.find("never closed"), std::string::npos) << err;
  err = expect_clean_error(test::write_file("close-first.json", evented(ev('C', 1, 0))), "close with nothing open");
  EXPECT_NE(err.find("no frame is open"), std::string::npos) << err;
  err = expect_clean_error(test::write_file("backwards.json", evented(ev('O', 0, 5) + "," + ev('C', 0, 4))), "back in time");
  EXPECT_NE(err.find("back in time"), std::string::npos) << err;
  err = expect_clean_error(test::write_file("unknown-frame.json", evented(ev('O', 7, 0) + "," + ev('C', 7, 1))), "frame 7");
  EXPECT_NE(err.find("frame 7 is not in shared.frames"), std::string::npos) << err;
}

TEST(Speedscope, MalformedFilesAreErrors) {
  auto file = [](const std::string& profile, const std::string& frames = R"([{"name": "a"}])") {
    return std::string("{") + kSchema + R"(, "shared": {"frames": )" + frames + R"(}, "profiles": [)" + profile + "]}";
  };
  struct Case {
    std::string text, expect;
  } cases[] = {
      {file(R"({"type": "sampled", "unit": "none", "samples": [[0], [0]], "weights": [1]})"), "2 samples but 1 weights"},
      {file(R"({"type": "sampled", "unit": "none", "samples": [[0]], "weights": [-1]})"), "negative weight"},
      {file(R"({"type": "sampled", "unit": "none", "samples": "x", "weights": []})"), "expected an array, not a string"},
      {file(R"({"type": "sampled", "unit": "none", "samples": [[0.5]], "weights": [1]})"), "expected"},
      {file(R"({"type": "sampled", "unit": "none", "samples": [[3]], "weights": [1]})"), "frame 3 is not in shared.frames"},
      {file(R"({"type": "heap", "unit": "none"})"), "expected \"sampled\" or \"evented\""},
      {file(R"({"unit": "none", "samples": [], "weights": []})"), "no \"type\""},
      {file(R"({"type": "evented", "unit": "none", "events": [{"type": "X", "frame": 0, "at": 0}]})"), "expected \"O\" or \"C\""},
      {file(R"({"type": "evented", "unit": "none", "events": [{"type": "O", "at": 0}]})"), "needs \"type\", \"at\" and \"frame\""},
      {file(R"({"type": "sampled", "unit": "none", "samples": [], "weights": []})", R"([{"file": "x"}])"), "without a name"},
      {file(R"({"type": "sampled", "unit": "none", "samples": [], "weights": []})", R"([{"name": 12}])"), "expected a string"},
      {std::string("{") + kSchema + R"(, "shared": {"frames": []}})", "no \"profiles\""},
      {std::string("{") + kSchema + R"(, "profiles": []})", "no \"shared\""},
      {std::string("{") + kSchema + R"(, "profiles": 5, "shared": {"frames": []}})", "expected an array, not a number"},
  };
  for (const Case& c : cases) {
    std::string path = test::write_file("bad.speedscope.json", c.text);
    std::string err = expect_clean_error(path, c.expect);
    EXPECT_NE(err.find(c.expect), std::string::npos) << c.text << "\n" << err;
  }
}

TEST(Speedscope, TruncatedFilesAreErrorsAtEveryLength) {
  std::string whole = two_sampled();
  for (size_t n = 1; n < whole.size() - 2; n += 7) {
    std::string path = test::write_file("truncated.json", whole.substr(0, n));
    test::RunResult r = test::flamefold("collapse --format speedscope " + sh_quote(path));
    EXPECT_EQ(r.exit_code, 2) << n << ": " << r.err;
    EXPECT_EQ(r.err.rfind("flamefold: error: ", 0), 0u) << n << ": " << r.err;
    if (n > 40) EXPECT_NE(r.err.find("ends early"), std::string::npos) << n << ": " << r.err;
  }
  // Sniffed, a cut-off speedscope file is still read as one and its truncation named.
  std::string path = test::write_file("cut.speedscope.json", whole.substr(0, whole.size() / 2));
  std::string err = expect_clean_error(path, "cut in half");
  EXPECT_NE(err.find("ends early (a truncated file?)"), std::string::npos) << err;
}

TEST(Speedscope, CorruptedBytesNeverCrash) {
  std::string whole = two_sampled();
  uint32_t x = 12345;
  for (int round = 0; round < 150; ++round) {
    std::string bad = whole;
    for (int k = 0; k < 3; ++k) {
      x = x * 1103515245u + 12345u;
      size_t at = (x >> 8) % bad.size();
      bad[at] = "{}[],:\"0-9ea \\"[(x >> 3) % 15];
    }
    std::string path = test::write_file("corrupt.json", bad);
    test::RunResult r = test::flamefold("collapse --format speedscope " + sh_quote(path));
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << "round " << round << ": exit " << r.exit_code << " " << r.err;
    if (r.exit_code == 2) EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(Speedscope, SniffedFromContent) {
  EXPECT_EQ(sniff_format(two_sampled(), "x"), Format::Speedscope);
  EXPECT_EQ(sniff_format(evented(ev('O', 0, 0)), "x"), Format::Speedscope);
  // Without $schema, shared + profiles say it.
  EXPECT_EQ(sniff_format(R"({"profiles": [], "shared": {"frames": []}})", "x"), Format::Speedscope);
  EXPECT_EQ(sniff_format(R"({"traceEvents": [{"name": "speedscope"}]})", "x"), Format::Kineto);
  EXPECT_EQ(parse_format("speedscope"), Format::Speedscope);
}

TEST(Speedscope, WriterWritesEveryWeightOneProfilePerThread) {
  // Two threads of one process, a kernel launched from one of them: cpu, calls, gpu, kernels.
  std::string trace = test::write_file("trace.json", R"({"traceEvents": [
    {"ph": "M", "name": "process_name", "pid": 7, "tid": 0, "args": {"name": "python"}},
    {"ph": "M", "name": "thread_name", "pid": 7, "tid": 7, "args": {"name": "MainThread"}},
    {"ph": "X", "cat": "cpu_op", "name": "forward", "pid": 7, "tid": 7, "ts": 1000, "dur": 500},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 1100, "dur": 200},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1150, "dur": 20, "args": {"correlation": 5}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 3, "ts": 1200, "dur": 300, "args": {"correlation": 5}},
    {"ph": "X", "cat": "cpu_op", "name": "backward", "pid": 7, "tid": 8, "ts": 2000, "dur": 250}
  ]})");
  std::string out = test::tmp_path("trace.speedscope.json");
  test::RunResult r = test::flamefold("convert " + sh_quote(trace) + " -o " + sh_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 6 sampled (two threads' cpu and calls, one thread's gpu and kernels) and 3 in time order
  // (two threads, one stream).
  EXPECT_NE(r.err.find("wrote " + out + " (9 profiles, 10 samples, 5 timed events"), std::string::npos) << r.err;
  std::string text = test::read_file(out);
  EXPECT_EQ(text.rfind(R"({"$schema":"https://www.speedscope.app/file-format-schema.json")", 0), 0u);
  // Names say the thread and, with several weights, the weight; the default weight comes first.
  size_t cpu = text.find(R"x("name":"python (pid 7) / MainThread [cpu]")x");
  size_t gpu = text.find(R"x("name":"python (pid 7) / MainThread [gpu]")x");
  EXPECT_NE(cpu, std::string::npos) << text;
  EXPECT_NE(gpu, std::string::npos) << text;
  EXPECT_LT(cpu, gpu);
  EXPECT_NE(text.find(R"("unit":"nanoseconds")"), std::string::npos);
  EXPECT_NE(text.find(R"x("flamefold":{"weight":"kernels","unit":"count","groups":[{"name":"python (pid 7)","category":"process"},{"name":"MainThread","category":"thread"}]})x"),
            std::string::npos)
      << text;
  // The heaviest thread of the default weight opens first: MainThread's cpu, written second.
  EXPECT_NE(text.find(R"("activeProfileIndex":1})"), std::string::npos) << text;
  // The time order: the worker's one event, from the trace's first event in ns.
  EXPECT_NE(text.find(R"x({"type":"evented","name":"python (pid 7) / thread 8 (time order)","unit":"nanoseconds","startValue":1000000,"flamefold":{"timeline":true},)x"),
            std::string::npos)
      << text;
  // None with --timeline-events 0.
  r = test::flamefold("convert " + sh_quote(trace) + " --timeline-events 0 -o " + sh_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("(6 profiles, 10 samples, 0 timed events"), std::string::npos) << r.err;
  EXPECT_EQ(test::read_file(out).find("evented"), std::string::npos);
  json_profiles::expect_round_trip(trace);
}

TEST(Speedscope, RoundTripKeepsNamesFilesLinesAndOddText) {
  // CPython's file:function:line frames, names with JSON and HTML specials, UTF-8, fractions.
  std::string in = test::write_file("odd.folded",
                                    "main;parse \"quoted\" \\ back;alloc 2\n"
                                    "main;ünïcødé ✓;</script> 3.5\n"
                                    "main 1\n"
                                    "tab\there;x 0.25\n");
  json_profiles::expect_round_trip(in);
  // Invalid UTF-8 comes out as U+FFFD, and the file still reads back.
  std::string bad = test::write_file("latin1.folded", std::string("main;caf\xe9 2\n"));
  std::string out = test::tmp_path("latin1.speedscope.json");
  ASSERT_EQ(test::flamefold("flamegraph " + sh_quote(bad) + " -o " + sh_quote(out)).exit_code, 0);
  EXPECT_EQ(folded(out), "main;caf\xEF\xBF\xBD 2\n");
}

TEST(Speedscope, RoundTripOfPerfScriptWithThreads) {
  REQUIRE_SHARED("data/flamegraph-tests");
  for (const char* name : {"perf-iperf-stacks-pidtid-01.txt", "perf-cycles-instructions-01.txt", "perf-vertx-stacks-01.txt"}) {
    SCOPED_TRACE(name);
    json_profiles::expect_round_trip(shared_path + "data/flamegraph-tests/" + name, "--tid");
    json_profiles::expect_round_trip(shared_path + "data/flamegraph-tests/" + name);
  }
}

TEST(Speedscope, RoundTripOfRealPyTorchTraces) {
  REQUIRE_SHARED("data/kineto");
  int n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(shared_path + "data/kineto")) {
    std::string p = e.path().string();
    if (!e.is_regular_file() || (p.find(".json") == std::string::npos) || e.file_size() > (8u << 20)) continue;
    if (++n > 6) break;
    SCOPED_TRACE(p);
    json_profiles::expect_round_trip(p);
  }
  EXPECT_GT(n, 0) << "no Kineto traces under ../shared/data/kineto";
}

TEST(Speedscope, RoundTripOfPstats) {
  REQUIRE_SHARED("data/pstats");
  int n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(shared_path + "data/pstats")) {
    std::string p = e.path().string();
    if (!e.is_regular_file() || e.file_size() > (4u << 20)) continue;
    if (sniff_format(test::read_file(p).substr(0, 1 << 16), p) != Format::Pstats) continue;
    if (++n > 4) break;
    SCOPED_TRACE(p);
    json_profiles::expect_round_trip(p);
  }
  EXPECT_GT(n, 0);
}

TEST(Speedscope, NegativeWeightsCannotBeWritten) {
  // speedscope refuses negative sample weights ("Samples must have positive weights"), so the
  // writer does too, leaving no file; no reader makes them today, so the model is built here.
  Profile p;
  int c = p.add_column("cpu", "ns");
  NodeId main = p.child(0, p.symbols.frame("main"));
  p.add(p.child(main, p.symbols.frame("a")), c, 3);
  p.add(p.child(main, p.symbols.frame("b")), c, -2);
  std::string out = test::tmp_path("neg.speedscope.json");
  std::filesystem::remove(out);
  {
    OutputFile file(out);
    EXPECT_THROW(write_speedscope(p, file, WriteOptions{}), std::runtime_error);
  }
  EXPECT_FALSE(std::filesystem::exists(out));
  p.columns[c].self[p.find_child(main, p.symbols.frame("b"))] = 2;
  OutputFile file(out);
  SpeedscopeStats st = write_speedscope(p, file, WriteOptions{});
  file.commit();
  EXPECT_EQ(st.profiles, 1u);
  EXPECT_EQ(st.samples, 2u);
  EXPECT_EQ(st.frames, 3u);
  EXPECT_EQ(folded(out), "main;a 3\nmain;b 2\n");
}

// Every .speedscope.json under ../shared/data (public projects' test data): read, or refused
// with one clear line when it is one of speedscope's deliberately invalid fixtures.
TEST(Speedscope, RealFilesFromSharedData) {
  REQUIRE_SHARED("data");
  int n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(shared_path + "data")) {
    std::string p = e.path().string();
    if (!e.is_regular_file() || p.find("speedscope") == std::string::npos || p.find(".json") == std::string::npos) continue;
    ++n;
    SCOPED_TRACE(p);
    if (p.find("invalid") != std::string::npos) {
      expect_clean_error(p, "speedscope's invalid fixture");
      continue;
    }
    std::string i = info(p);
    EXPECT_NE(i.find("format: speedscope"), std::string::npos) << i;
    json_profiles::expect_round_trip(p);
  }
  if (n == 0) GTEST_SKIP() << "../shared/data holds no .speedscope.json files (public fixtures not catalogued there yet)";
}
