// Chrome/Kineto traces read into a TraceBuilder as they stream (ReadOptions::stream_traces = 1)
// against the same traces read as a timeline (-1): the same profile, node for node, chart
// included, under every option set that streams; traces that need the whole file first (a
// Python parent named by a later event, uncategorised events, flows supplying correlations, ops'
// Python stacks as text, device work on a thread with host events) are read again as a timeline
// and still come out the same. Real files of ../shared/data too.
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "flamefold/input.h"
#include "flamefold/readers/json/kineto.h"
#include "profile_compare.h"
#include "test_support.h"

using namespace flamefold;

namespace {

std::vector<test::OptionCase> option_cases() {
  test::OptionCases cases;
  cases.add("defaults", [](ReadOptions&) {});
  cases.add("--weight calls", [](ReadOptions& o) { o.weight = "calls"; });
  cases.add("--group-by none", [](ReadOptions& o) { o.group_by = "none"; });
  cases.add("--group-by process", [](ReadOptions& o) { o.group_by = "process"; });
  cases.add("--categories cpu_op,kernel", [](ReadOptions& o) { o.categories = {"cpu_op", "kernel"}; });
  cases.add("--categories python,cuda_runtime", [](ReadOptions& o) { o.categories = {"python", "cuda_runtime"}; });
  cases.add("--thread 2", [](ReadOptions& o) { o.threads = {"2"}; });
  cases.add("flame chart", [](ReadOptions& o) { o.chart_events = 1000000; });
  cases.add("flame chart of 40 events", [](ReadOptions& o) { o.chart_events = 40; });
  cases.add("tiny spools", [](ReadOptions& o) { o.spool_bytes = 4096; });
  return cases.all;
}

Profile read_with(const std::vector<std::string>& paths, ReadOptions o, int stream) {
  o.stream_traces = stream;
  if (paths.size() == 1) {
    Input input = Input::open(paths[0]);
    return read_kineto(input, o);
  }
  return read_kineto_files(paths, o);
}

void expect_streaming_matches(const std::vector<std::string>& paths) {
  for (const test::OptionCase& c : option_cases()) {
    SCOPED_TRACE(c.what);
    Profile want = read_with(paths, c.o, -1);
    Profile got = read_with(paths, c.o, 1);
    test::expect_same_profile(got, want);
  }
}

// A Kineto-like trace: per thread, ProfilerStep ranges with ops, Python frames (parents first,
// some sharing their child's interval, one child sticking out of its parent), launches and their
// kernels on two streams, ac2g flows beside the correlations, B/E pairs, an instant event.
std::string generated_trace(unsigned seed, int threads, int steps, bool with_rank = false, int rank = 0) {
  std::mt19937 rng(seed);
  std::string ev;
  auto add = [&](const std::string& e) { ev += (ev.empty() ? "" : ",\n") + e; };
  auto x = [&](const std::string& cat, const std::string& name, int pid, int tid, int64_t ts, int64_t dur,
               const std::string& args) {
    add("{\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":\"" + name + "\",\"pid\":" + std::to_string(pid) +
        ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) +
        ",\"args\":{" + args + "}}");
  };
  uint64_t corr = 1, pyid = 1;
  for (int t = 1; t <= threads; ++t) {
    for (int s = 0; s < steps; ++s) {
      const int64_t b = 100000 * s + 1000 * t;
      x("user_annotation", "ProfilerStep#" + std::to_string(s), 7, t, b, 90000, "");
      // Python frames: a module, its forward (same interval), a layer inside; one sticks out.
      const uint64_t mod = pyid++, fwd = pyid++;
      x("python_function", "model.py(10): <module>", 7, t, b + 10, 80000,
        "\"Python id\":" + std::to_string(mod) + ",\"Python parent id\":null");
      x("python_function", "model.py(20): forward", 7, t, b + 10, 80000,
        "\"Python id\":" + std::to_string(fwd) + ",\"Python parent id\":" + std::to_string(mod));
      for (int k = 0; k < 4; ++k) {
        const int64_t ob = b + 100 + k * 15000 + int64_t(rng() % 500);
        const uint64_t layer = pyid++;
        const int64_t len = k == 3 ? 90000 : 12000;  // the last one sticks out of forward
        x("python_function", "layers.py(" + std::to_string(30 + k) + "): layer", 7, t, ob, len,
          "\"Python id\":" + std::to_string(layer) + ",\"Python parent id\":" + std::to_string(fwd));
        x("cpu_op", k % 2 ? "aten::mm" : "aten::add", 7, t, ob + 5, 8000, "\"External id\":" + std::to_string(k));
        x("cuda_runtime", "cudaLaunchKernel", 7, t, ob + 10, 20, "\"correlation\":" + std::to_string(corr));
        add("{\"ph\":\"s\",\"id\":" + std::to_string(corr) + ",\"pid\":7,\"tid\":" + std::to_string(t) +
            ",\"ts\":" + std::to_string(ob + 10) + ",\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
        x("kernel", k % 2 ? "gemm" : "add_kernel", 0, 7 + (k % 2), ob + 400, 3000 + int64_t(rng() % 100),
          "\"device\":0,\"stream\":" + std::to_string(7 + k % 2) + ",\"correlation\":" + std::to_string(corr));
        add("{\"ph\":\"f\",\"id\":" + std::to_string(corr) + ",\"pid\":0,\"tid\":" + std::to_string(7 + k % 2) +
            ",\"ts\":" + std::to_string(ob + 400) + ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}");
        ++corr;
      }
      add("{\"ph\":\"B\",\"cat\":\"user_annotation\",\"name\":\"optimizer\",\"pid\":7,\"tid\":" + std::to_string(t) +
          ",\"ts\":" + std::to_string(b + 85000) + "}");
      add("{\"ph\":\"E\",\"pid\":7,\"tid\":" + std::to_string(t) + ",\"ts\":" + std::to_string(b + 89000) + "}");
      add("{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"mark\",\"pid\":7,\"tid\":" + std::to_string(t) +
          ",\"ts\":" + std::to_string(b + 5) + ",\"s\":\"t\"}");
    }
  }
  add("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"tid\":0,\"args\":{\"name\":\"python3\"}}");
  add("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":7,\"tid\":1,\"args\":{\"name\":\"main\"}}");
  std::string doc = "{\"traceEvents\":[\n" + ev + "\n]";
  if (with_rank) doc += ",\"distributedInfo\":{\"rank\":" + std::to_string(rank) + "}";
  return doc + "}";
}

}  // namespace

// Whether a read streamed to its end: a TraceBuilder lowers the default chart bound
// (kStreamedChartEvents), a timeline (also the one read again) keeps it.
bool streamed_to_the_end(const std::vector<std::string>& paths) {
  ReadOptions o;
  o.chart_events = 1000000;
  o.chart_events_default = true;
  Profile p = read_with(paths, o, 1);
  return p.chart && p.chart->limit == kStreamedChartEvents;
}

TEST(KinetoStream, MatchesTheTimelineOnGeneratedTraces) {
  const std::string a = test::write_file("stream_a.json", generated_trace(1, 2, 6));
  const std::string b = test::write_file("stream_b.json", generated_trace(2, 3, 3));
  EXPECT_TRUE(streamed_to_the_end({a}));
  EXPECT_TRUE(streamed_to_the_end({b}));
  expect_streaming_matches({a});
  expect_streaming_matches({b});
}

// A trace read as a timeline keeps the streamed readers' smaller chart bound by default once it
// holds more than ReadOptions::big_trace_events events (2,000,000; lowered here); a bound the
// user gives, or a smaller trace, keeps what was asked. The flame graph is the same either way.
TEST(KinetoStream, TheChartsDefaultBoundIsSmallerForTracesOfManyEvents) {
  const std::string path = test::write_file("chart_bound.json", generated_trace(5, 2, 20));
  ReadOptions o;
  o.chart_events = 1000000;
  o.chart_events_default = true;
  o.big_trace_events = 500;
  Profile big = read_with({path}, o, -1);
  ASSERT_TRUE(big.chart);
  EXPECT_GT(big.chart->trace_events, 500u);
  EXPECT_EQ(big.chart->limit, kStreamedChartEvents);
  o.big_trace_events = 1000000;
  Profile small = read_with({path}, o, -1);
  ASSERT_TRUE(small.chart);
  EXPECT_EQ(small.chart->limit, 1000000u);
  o.big_trace_events = 500;
  o.chart_events_default = false;
  Profile asked = read_with({path}, o, -1);
  ASSERT_TRUE(asked.chart);
  EXPECT_EQ(asked.chart->limit, 1000000u);
  big.chart.reset();
  asked.chart.reset();
  test::expect_same_profile(big, asked);
}

TEST(KinetoStream, MatchesTheTimelineForSeveralRanks) {
  const std::vector<std::string> ranks = {test::write_file("stream_r0.json", generated_trace(3, 2, 3, true, 0)),
                                         test::write_file("stream_r1.json", generated_trace(4, 2, 3, true, 1))};
  EXPECT_TRUE(streamed_to_the_end(ranks));
  expect_streaming_matches(ranks);
}

TEST(KinetoStream, TracesThatNeedTheWholeFileAreReadAgainAsATimeline) {
  struct Case {
    const char* what;
    std::string json;
  };
  const std::vector<Case> cases = {
      {"a Python parent named by a later event",
       R"J({"traceEvents":[
        {"ph":"X","cat":"python_function","name":"a.py(2): inner","pid":1,"tid":1,"ts":0,"dur":10,"args":{"Python id":2,"Python parent id":1}},
        {"ph":"X","cat":"python_function","name":"a.py(1): outer","pid":1,"tid":1,"ts":0,"dur":10,"args":{"Python id":1,"Python parent id":null}}]})J"},
      {"events without a category",
       R"J([{"ph":"X","name":"aten::add","pid":"CPU functions","tid":6,"ts":1,"dur":10},
            {"ph":"X","name":"aten::mul","pid":"CPU functions","tid":6,"ts":2,"dur":5}])J"},
      {"flows supplying a missing correlation",
       R"J({"traceEvents":[
        {"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2},
        {"ph":"s","id":5,"pid":1,"tid":1,"ts":10,"cat":"ac2g","name":"ac2g"},
        {"ph":"X","cat":"kernel","name":"k","pid":2,"tid":0,"ts":20,"dur":3},
        {"ph":"f","id":5,"pid":2,"tid":0,"ts":20,"cat":"ac2g","name":"ac2g","bp":"e"}]})J"},
      {"ops' Python stacks as text",
       R"J({"traceEvents":[
        {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":10,"args":{"Call stack":"m.py(3): f;\nm.py(1): <module>"}}]})J"},
      {"device work on a thread with host events",
       R"J({"traceEvents":[
        {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":10},
        {"ph":"X","cat":"kernel","name":"k","pid":1,"tid":1,"ts":20,"dur":3,"args":{"correlation":0}}]})J"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string path = test::write_file("needs_timeline.json", c.json);
    EXPECT_FALSE(streamed_to_the_end({path}));
    for (const test::OptionCase& o : option_cases()) {
      SCOPED_TRACE(o.what);
      test::expect_same_profile(read_with({path}, o.o, 1), read_with({path}, o.o, -1));
    }
  }
}

TEST(KinetoStream, OnlyRegularFilesBigEnoughStreamByDefault) {
  // By default (0) a small trace is read as a timeline; asked (1), it streams. The two give the
  // same profile, so the choice shows only in the facts of neither: compare the chart's limit,
  // which a TraceBuilder lowers for its default (kStreamedChartEvents) and a timeline keeps.
  const std::string path = test::write_file("small.json", generated_trace(5, 1, 2));
  ReadOptions o;
  o.chart_events = 1000000;
  o.chart_events_default = true;
  Profile by_default = read_with({path}, o, 0);
  Profile streamed = read_with({path}, o, 1);
  ASSERT_TRUE(by_default.chart && streamed.chart);
  EXPECT_EQ(by_default.chart->limit, 1000000u);
  EXPECT_EQ(streamed.chart->limit, kStreamedChartEvents);
}

TEST(KinetoStreamReal, EveryRealTraceMatches) {
  REQUIRE_SHARED("data/kineto");
  size_t files = 0, streamed = 0;
  for (auto& entry : std::filesystem::recursive_directory_iterator(shared_path + "data/kineto")) {
    const std::string p = entry.path().string();
    if (!entry.is_regular_file() || !(p.ends_with(".json") || p.ends_with(".json.gz"))) continue;
    SCOPED_TRACE(p);
    for (const test::OptionCase& c : option_cases()) {
      SCOPED_TRACE(c.what);
      test::expect_same_outcome(
          p, c.o, [](const std::string& path, const ReadOptions& o) { return read_with({path}, o, -1); },
          [](const std::string& path, const ReadOptions& o) { return read_with({path}, o, 1); });
    }
    ++files;
    streamed += streamed_to_the_end({p});
  }
  EXPECT_GT(files, 10u);
  std::printf("%zu of %zu real traces streamed to their end\n", streamed, files);
  EXPECT_GT(streamed * 2, files);  // most Kineto traces need no timeline
}

TEST(KinetoStream, TheCommandLineChoosesWithStreamTraces) {
  const std::string trace = test::write_file("cli_stream.json", generated_trace(6, 2, 3));
  auto html = [&](const std::string& mode) {
    const std::string out = test::tmp_path("cli_stream_" + mode + ".html");
    test::RunResult r =
        test::flamefold("flamegraph " + trace + " -o " + out + " --timeline-events 1000000 --stream-traces " + mode);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return test::read_file(out);
  };
  const std::string never = html("never"), always = html("always"), automatic = html("auto");
  EXPECT_FALSE(never.empty());
  EXPECT_TRUE(always == never);  // the same page either way (with the chart's bound given)
  EXPECT_TRUE(automatic == never);
  test::RunResult bad = test::flamefold("flamegraph " + trace + " -o " + test::tmp_path("x.html") + " --stream-traces sometimes");
  EXPECT_NE(bad.exit_code, 0);
}
