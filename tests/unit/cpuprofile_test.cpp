// Chrome / V8 CPU profiles: .cpuprofile files (children or parent links, the old head tree),
// the Profile / ProfileChunk events of a DevTools recording, sniffing next to Chrome traces, and
// bad input (cycles, truncation, wrong types): one clear error line, never a crash.
#include <filesystem>
#include <string>

#include "flamefold/pipeline.h"
#include "json_profiles.h"

using namespace flamefold;
using json_profiles::expect_clean_error;
using json_profiles::folded;
using json_profiles::info;
using json_profiles::sh_quote;

namespace {

// Chrome 65's simple.cpuprofile (speedscope's fixture) in shape: times in µs, lines 0-based.
const char* kSimple =
    R"J({"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2]},)J"
    R"J({"id":2,"callFrame":{"functionName":"","scriptId":"164","url":"","lineNumber":0,"columnNumber":0},"hitCount":0,"children":[3]},)J"
    R"J({"id":3,"callFrame":{"functionName":"a","scriptId":"164","url":"file:///s.js","lineNumber":0,"columnNumber":10},"hitCount":0,"children":[4,6]},)J"
    R"J({"id":4,"callFrame":{"functionName":"b","scriptId":"164","url":"file:///s.js","lineNumber":5,"columnNumber":10},"hitCount":0,"children":[5]},)J"
    R"J({"id":5,"callFrame":{"functionName":"d","scriptId":"164","url":"file:///s.js","lineNumber":13,"columnNumber":10},"hitCount":3,"positionTicks":[{"line":16,"ticks":3}],"children":[]},)J"
    R"J({"id":6,"callFrame":{"functionName":"c","scriptId":"164","url":"file:///s.js","lineNumber":9,"columnNumber":10},"hitCount":0,"children":[7]},)J"
    R"J({"id":7,"callFrame":{"functionName":"(garbage collector)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":2,"children":[]}],)J"
    R"J("startTime":1000,"endTime":2000,"samples":[2,5,5,5,7,7],"timeDeltas":[100,100,100,100,100,100]})J";

// A DevTools recording: metadata names, a Profile per thread, its nodes and samples spread
// over chunks that the sampler's thread writes, a last empty chunk, and timeline events.
std::string devtools_trace(bool with_profiles = true) {
  std::string events = R"J(
{"args":{"name":"CrRendererMain"},"cat":"__metadata","name":"thread_name","ph":"M","pid":7,"tid":70,"ts":0},
{"args":{"name":"DedicatedWorker thread"},"cat":"__metadata","name":"thread_name","ph":"M","pid":7,"tid":80,"ts":0},
{"args":{"name":"Renderer"},"cat":"__metadata","name":"process_name","ph":"M","pid":7,"tid":0,"ts":0},
{"args":{},"cat":"disabled-by-default-devtools.timeline","dur":55,"name":"RunTask","ph":"X","pid":7,"tid":70,"ts":100,"tts":1})J";
  if (with_profiles)
    events += R"J(,
{"args":{"data":{"startTime":1000}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x1","name":"Profile","ph":"P","pid":7,"tid":70,"ts":1000},
{"args":{"data":{"startTime":5000}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x2","name":"Profile","ph":"P","pid":7,"tid":80,"ts":5000},
{"args":{"data":{"cpuProfile":{"nodes":[{"callFrame":{"codeType":"other","functionName":"(root)","scriptId":0},"id":1},{"callFrame":{"codeType":"other","functionName":"(program)","scriptId":0},"id":2,"parent":1},{"callFrame":{"functionName":"main","url":"https://x/app.js","lineNumber":9,"scriptId":5},"id":3,"parent":1}],"samples":[2,3,3]},"timeDeltas":[10,100,100]}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x1","name":"ProfileChunk","ph":"P","pid":7,"tid":71,"ts":1300},
{"args":{"data":{"cpuProfile":{"nodes":[{"callFrame":{"functionName":"work","url":"https://x/w.js","lineNumber":0,"scriptId":6},"id":2,"parent":1},{"callFrame":{"functionName":"(root)","scriptId":0},"id":1}],"samples":[2,2]},"timeDeltas":[5,20],"endTime":5075}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x2","name":"ProfileChunk","ph":"P","pid":7,"tid":81,"ts":5100},
{"args":{"data":{"cpuProfile":{"nodes":[{"callFrame":{"functionName":"leaf","url":"https://x/app.js","lineNumber":19,"scriptId":5},"id":4,"parent":3}],"samples":[4,4,99]},"timeDeltas":[100,50,25],"endTime":1500}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x1","name":"ProfileChunk","ph":"P","pid":7,"tid":71,"ts":1400},
{"args":{},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x1","name":"ProfileChunk","ph":"P","pid":7,"tid":71,"ts":1500})J";
  return R"J({"metadata":{"source":"DevTools"},"traceEvents":[)J" + events + "\n]}\n";
}

}  // namespace

TEST(Cpuprofile, SamplesLastUntilTheNextOneAndTheLastUntilEndTime) {
  std::string path = test::write_file("simple.cpuprofile", kSimple);
  // t = 1100 .. 1600 µs, each sample 100 µs, the last to endTime 2000 (400 µs).
  EXPECT_EQ(folded(path),
            "(anonymous) 100000\n"
            "(anonymous);file:///s.js:a:1;file:///s.js:b:6;file:///s.js:d:14 300000\n"
            "(anonymous);file:///s.js:a:1;file:///s.js:c:10;(garbage collector) 500000\n");
  EXPECT_EQ(folded(path, "samples"),
            "(anonymous) 1\n"
            "(anonymous);file:///s.js:a:1;file:///s.js:b:6;file:///s.js:d:14 3\n"
            "(anonymous);file:///s.js:a:1;file:///s.js:c:10;(garbage collector) 2\n");
  std::string i = info(path);
  EXPECT_NE(i.find("format: cpuprofile"), std::string::npos) << i;
  EXPECT_NE(i.find("weight cpu (default): 900000 ns"), std::string::npos) << i;
  EXPECT_NE(i.find("weight samples: 6 samples"), std::string::npos) << i;
}

TEST(Cpuprofile, ParentLinksHitCountsAndTheOldHeadTree) {
  // Nodes that name their parent (Chrome 70+), in any order; no samples: hit counts.
  std::string parents = test::write_file("parents.cpuprofile", R"J({"nodes":[
    {"id":3,"parent":2,"callFrame":{"functionName":"leaf","url":"u.js","lineNumber":4},"hitCount":5},
    {"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1}},
    {"id":2,"parent":1,"callFrame":{"functionName":"main","url":"u.js","lineNumber":0},"hitCount":1}],
    "startTime":0,"endTime":10})J");
  EXPECT_EQ(folded(parents, "samples"), "u.js:main:1 1\nu.js:main:1;u.js:leaf:5 5\n");
  // Node 10 and before: a nested "head" tree, 1-based lines, startTime/endTime in seconds and
  // absolute timestamps in µs.
  std::string old = test::write_file("old.cpuprofile", R"J({"head":{"functionName":"(root)","url":"","lineNumber":0,"id":1,"hitCount":0,
    "children":[{"functionName":"tick","url":"next_tick.js","lineNumber":192,"id":2,"hitCount":1,
      "children":[{"functionName":"emit","url":"events.js","lineNumber":155,"id":3,"hitCount":2,"children":[]}]}]},
    "startTime":10.5,"endTime":10.5004,"samples":[2,3,3],"timestamps":[10500100,10500200,10500300]})J");
  EXPECT_EQ(folded(old), "next_tick.js:tick:192 100000\nnext_tick.js:tick:192;events.js:emit:155 200000\n");
  EXPECT_EQ(sniff_format(test::read_file(old), old), Format::Cpuprofile);
}

TEST(Cpuprofile, DevToolsRecordingGivesEachThreadsJsSamples) {
  std::string path = test::write_file("Trace-20250101T000000.json", devtools_trace());
  EXPECT_EQ(sniff_format(devtools_trace(), path), Format::Cpuprofile);
  // Thread 70: (program) 100, main 200, leaf 50 + 25; the sample of an unknown node is dropped.
  // The worker: two samples of 20 and 50 µs (its endTime).
  EXPECT_EQ(folded(path),
            "CrRendererMain (tid 70);(program) 100000\n"
            "CrRendererMain (tid 70);https://x/app.js:main:10 200000\n"
            "CrRendererMain (tid 70);https://x/app.js:main:10;https://x/app.js:leaf:20 75000\n"
            "DedicatedWorker thread (tid 80);https://x/w.js:work:1 70000\n");
  std::string i = info(path);
  EXPECT_NE(i.find("profiled threads: 2"), std::string::npos) << i;
  EXPECT_NE(i.find("warning: samples of nodes the profile does not have (dropped): 1"), std::string::npos) << i;
  // --group-by process adds the process the metadata names.
  EXPECT_NE(folded(path, "samples", "--group-by process").find("Renderer (pid 7);CrRendererMain (tid 70);(program) 1\n"),
            std::string::npos);
  // A recording without V8 samples is read as the Chrome trace it is.
  std::string plain = test::write_file("no-samples.json", devtools_trace(false));
  EXPECT_EQ(folded(plain), "Renderer (pid 7);CrRendererMain;RunTask 55000\n");
  test::RunResult piped = test::run("cat " + sh_quote(plain) + " | " + test::binary() + " collapse -");
  EXPECT_EQ(piped.out, "Renderer (pid 7);CrRendererMain;RunTask 55000\n") << piped.err;
  piped = test::run("cat " + sh_quote(path) + " | " + test::binary() + " collapse --weight samples -");
  EXPECT_NE(piped.out.find("CrRendererMain (tid 70);(program) 1\n"), std::string::npos) << piped.err;
  // As is a top-level array of events, with the older whole CpuProfile event.
  std::string array = test::write_file("array.json", R"J([{"name":"CpuProfile","ph":"I","pid":1,"tid":2,"ts":0,"cat":"disabled-by-default-devtools.timeline",
    "args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"parent":1,"callFrame":{"functionName":"f","url":"a.js","lineNumber":1}}],
    "samples":[2,2],"startTime":0,"endTime":30},"timeDeltas":[10,10]}}}])J");
  EXPECT_EQ(folded(array), "thread 2;a.js:f:2 20000\n");
}

TEST(Cpuprofile, KinetoTracesAreStillKineto) {
  EXPECT_EQ(sniff_format(R"J({"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "cpu_op"}]})J", "x"), Format::Kineto);
  EXPECT_EQ(sniff_format(R"J([{"ph": "X", "cat": "kernel"}])J", "x"), Format::Kineto);
  EXPECT_EQ(sniff_format(kSimple, "x"), Format::Cpuprofile);
  EXPECT_EQ(parse_format("cpuprofile"), Format::Cpuprofile);
  // chrome://tracing's own categories: tried for V8 samples first, then read as the Chrome trace
  // it is, exactly as the Chrome trace reader reads it.
  std::string chrome = R"J([{"pid":1,"tid":2,"ts":100,"ph":"X","cat":"toplevel","name":"MessageLoop::RunTask","dur":212},
    {"pid":1,"tid":2,"ts":150,"ph":"X","cat":"toplevel","name":"Inner","dur":20}])J";
  EXPECT_EQ(sniff_format(chrome, "x"), Format::Cpuprofile);
  std::string path = test::write_file("chrome69.json", chrome);
  EXPECT_EQ(folded(path), folded(path, "", "--format kineto"));
  EXPECT_NE(folded(path).find("MessageLoop::RunTask;Inner 20000"), std::string::npos);
}

TEST(Cpuprofile, BadInputIsAnError) {
  struct Case {
    std::string text, expect;
  } cases[] = {
      {R"J({"nodes":[{"id":1,"parent":2,"callFrame":{"functionName":"a"}},{"id":2,"parent":1,"callFrame":{"functionName":"b"}}],"samples":[1],"timeDeltas":[1]})J",
       "cycle"},
      {R"J({"nodes":[{"id":1,"callFrame":{"functionName":5}}],"samples":[1],"timeDeltas":[1]})J", "expected a string, not a number"},
      {R"J({"nodes":[{"id":1,"callFrame":{"functionName":"a"}}],"samples":"1","timeDeltas":[1]})J", "expected an array, not a string"},
      {R"J({"nodes":[{"id":1,"callFrame":{"functionName":"a"}}],"samples":[1],"timeDeltas":[true]})J", "expected a number"},
      {R"J({"startTime":0,"samples":[],"timeDeltas":[]})J", "not a .cpuprofile"},
      {R"J({"traceEvents":[{"name":"ProfileChunk","ph":"P","pid":1,"id":"0x1","cat":"disabled-by-default-v8.cpu_profiler","args":{"data":{"cpuProfile":{"nodes":"x"}}}}]})J",
       "expected an array"},
  };
  for (const Case& c : cases) {
    std::string path = test::write_file("bad.cpuprofile", c.text);
    std::string err = expect_clean_error(path, c.expect, "--format cpuprofile");
    EXPECT_NE(err.find(c.expect), std::string::npos) << c.text << "\n" << err;
  }
  std::string whole = kSimple;
  for (size_t n = 1; n < whole.size(); n += 37) {
    std::string path = test::write_file("truncated.cpuprofile", whole.substr(0, n));
    test::RunResult r = test::flamefold("collapse --format cpuprofile " + sh_quote(path));
    EXPECT_EQ(r.exit_code, 2) << n << ": " << r.err;
    EXPECT_NE(r.err.find("ends early"), std::string::npos) << n << ": " << r.err;
  }
  std::string trace = devtools_trace();
  for (size_t n = 1; n < trace.size(); n += 101) {
    std::string path = test::write_file("truncated-trace.json", trace.substr(0, n));
    test::RunResult r = test::flamefold("collapse " + sh_quote(path));
    EXPECT_EQ(r.exit_code, 2) << n << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << n << ": " << r.err;
  }
}

TEST(Cpuprofile, RoundTripThroughSpeedscope) {
  json_profiles::expect_round_trip(test::write_file("simple.cpuprofile", kSimple));
  json_profiles::expect_round_trip(test::write_file("trace.json", devtools_trace()));
}

// Every .cpuprofile and DevTools recording under ../shared/data, when there are any.
TEST(Cpuprofile, RealFilesFromSharedData) {
  REQUIRE_SHARED("data");
  int n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(shared_path + "data")) {
    std::string p = e.path().string();
    if (!e.is_regular_file() || e.file_size() > (64u << 20)) continue;
    bool cpuprofile = p.size() > 11 && p.substr(p.size() - 11) == ".cpuprofile";
    if (!cpuprofile && sniff_format(test::read_file(p).substr(0, 1 << 16), p) != Format::Cpuprofile) continue;
    ++n;
    SCOPED_TRACE(p);
    test::RunResult r = test::flamefold("info " + sh_quote(p));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (r.out.find("format: cpuprofile") != std::string::npos) json_profiles::expect_round_trip(p);
  }
  if (n == 0) GTEST_SKIP() << "../shared/data holds no .cpuprofile or DevTools recording";
}
