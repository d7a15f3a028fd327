// Firefox Profiler (gecko) profiles: Gecko's own layout (schema + data rows, per-thread string
// tables, sub-processes, DevTools' wrapper) and the processed one (column arrays, shared
// strings, weights), sniffing, and bad input: one clear error line, never a crash.
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

// The shape of Firefox 63's "Recorded Performance Data" (speedscope's simple-firefox.json):
// the gecko profile under "profile", a JS thread, short frame rows, a sample without a stack,
// a sub-process as JSON text (older Firefox) and one written as an object.
std::string firefox_recording() {
  return R"J({"label":"simple","duration":49.4,"markers":[],"profile":{"libs":[],
"meta":{"version":12,"startTime":1536100486169.2,"categories":[{"name":"Idle","color":"transparent"},{"name":"Other","color":"grey"},{"name":"Layout","color":"purple"},{"name":"JavaScript","color":"yellow"}],"interval":1,"stackwalk":0,"processType":2},
"threads":[{"processType":"tab","name":"GeckoMain","tid":7051856,"pid":32922,"registerTime":5.79,"unregisterTime":null,
 "samples":{"schema":{"stack":0,"time":1,"responsiveness":2},"data":[[2,0.5,0],[3,1.5,0],[3,2.5],[4,3.5],[null,4.5]]},
 "markers":{"schema":{"name":0,"time":1,"data":2},"data":[]},
 "stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,0],[0,1],[1,2],[2,3],[1,4]]},
 "frameTable":{"schema":{"location":0,"implementation":1,"optimizations":2,"line":3,"column":4,"category":5},
   "data":[[0],[1,null,null,439,null,1],[2,null,null,1,14,3],[3,null,null,null,null,3],[4,1]]},
 "stringTable":["(root)","XRE_InitChildProcess","alpha (http://localhost:8000/simple.js:1:14)","beta (http://localhost:8000/simple.js:8:13)",
   "emit (resource://devtools/shared/base-loader.js -> resource://devtools/shared/event-emitter.js:150:13)"]}],
"pausedRanges":[],
"processes":["{\"meta\":{\"interval\":2},\"threads\":[{\"name\":\"Child\",\"pid\":5,\"tid\":6,\"processType\":\"default\",\"samples\":{\"schema\":{\"stack\":0,\"time\":1},\"data\":[[0,1],[0,3]]},\"stackTable\":{\"data\":[[null,0]],\"schema\":{\"prefix\":0,\"frame\":1}},\"frameTable\":{\"schema\":{\"location\":0},\"data\":[[0]]},\"stringTable\":[\"child_main (in libxul.so)\"]}]}",
  {"meta":{"interval":1},"threads":[{"name":"GPU","pid":9,"tid":9,"processType":"gpu","samples":{"schema":{"stack":0,"time":1},"data":[[0,10]]},
   "stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,0]]},"frameTable":{"schema":{"location":0},"data":[[0]]},"stringTable":["0x7fff1234"]}]}]},
"configuration":{},"fileType":"Recorded Performance Data","version":2})J";
}

// CPython's Tachyon sampler writes the processed format (preprocessedProfileVersion 57).
const char* kTachyonSamples =
    R"J({"stack":[1,2,2,null],"time":[0.0,1.0,2.0,3.0],"eventDelay":[null,null,null,null],"weight":null,"weightType":"samples","length":4})J";
std::string tachyon(const std::string& samples = kTachyonSamples) {
  return R"J({"meta":{"interval":1.0,"startTime":0,"categories":[{"name":"Other","color":"grey","subcategories":["Other"]},{"name":"Python","color":"yellow","subcategories":["Other"]},{"name":"Native","color":"blue","subcategories":["Other"]}],"version":32,"preprocessedProfileVersion":57,"product":"Python","importedFrom":"Tachyon Sampling Profiler"},
"libs":[],"threads":[{"name":"Thread-1","isMainThread":true,"pid":"42","tid":1,"processType":"default","processName":"Python Process",
"samples":)J" + samples + R"J(,
"stackTable":{"frame":[0,1,2],"category":[1,1,1],"subcategory":[0,0,0],"prefix":[null,0,1],"length":3},
"frameTable":{"address":[-1,-1,-1],"category":[1,1,2],"subcategory":[0,0,0],"func":[0,1,2],"innerWindowID":[null,null,null],"implementation":[null,null,null],"optimizations":[null,null,null],"line":[10,20,null],"column":[null,null,null],"inlineDepth":[0,0,0],"nativeSymbol":[null,null,null],"length":3},
"funcTable":{"name":[1,2,3],"isJS":[true,true,false],"relevantForJS":[true,true,false],"resource":[0,0,1],"fileName":[4,4,null],"lineNumber":[1,15,null],"columnNumber":[null,null,null],"length":3}}],
"pages":[],"shared":{"stringArray":["(root)","<module>","work","<native>","app.py"],"sources":{"length":0,"uuid":[],"filename":[]}}})J";
}

const std::string kTab = "tab (pid 32922);GeckoMain (tid 7051856);XRE_InitChildProcess;";
const std::string kAlpha = "http://localhost:8000/simple.js:alpha:1";
const std::string kEmit = "resource://devtools/shared/base-loader.js -> resource://devtools/shared/event-emitter.js:emit:150";
const std::string kThread = "Thread-1 (tid 1);app.py:<module>:10;app.py:work:20";

}  // namespace

TEST(Gecko, GeckosOwnLayoutWithSubProcessesAndTheDevToolsWrapper) {
  std::string path = test::write_file("simple-firefox.json", firefox_recording());
  EXPECT_EQ(sniff_format(firefox_recording(), path), Format::Gecko);
  // Three processes: a process level. Frames: "name (file:line:col)" gives file and line
  // (the frame table's line column first), a label stays a name, (root) is the thread.
  EXPECT_EQ(folded(path), "default (pid 5);Child (tid 6);child_main (in libxul.so) 2\n"
                          "gpu (pid 9);GPU (tid 9);0x7fff1234 1\n" +
                              kTab + kAlpha + " 1\n" + kTab + kAlpha + ";http://localhost:8000/simple.js:beta:8 2\n" + kTab +
                              kEmit + " 1\n");
  // Time in ms as the file has it: until the thread's next sample, the last one its interval.
  EXPECT_EQ(folded(path, "cpu"), "default (pid 5);Child (tid 6);child_main (in libxul.so) 4000000\n"
                                 "gpu (pid 9);GPU (tid 9);0x7fff1234 1000000\n" +
                                     kTab + kAlpha + " 1000000\n" + kTab + kAlpha +
                                     ";http://localhost:8000/simple.js:beta:8 2000000\n" + kTab + kEmit + " 1000000\n");
  std::string i = info(path);
  EXPECT_NE(i.find("weight samples (default): 7 samples"), std::string::npos) << i;
  EXPECT_NE(i.find("sub-process profiles: 2"), std::string::npos) << i;
  EXPECT_NE(i.find("warning: samples without a stack (not drawn): 1"), std::string::npos) << i;
  json_profiles::expect_round_trip(path);
}

TEST(Gecko, ProcessedLayoutFromCPythonsSampler) {
  std::string path = test::write_file("tachyon.json", tachyon());
  EXPECT_EQ(sniff_format(tachyon(), path), Format::Gecko);
  // One process: threads only. Python frames get file and line; the native one neither.
  EXPECT_EQ(folded(path), kThread + " 1\n" + kThread + ";<native> 2\n");
  EXPECT_EQ(folded(path, "cpu"), kThread + " 1000000\n" + kThread + ";<native> 2000000\n");
  EXPECT_EQ(folded(path, "", "--group-by process").substr(0, 33), "Python Process (pid 42);Thread-1 ");
  EXPECT_NE(info(path).find("layout: processed"), std::string::npos);
  json_profiles::expect_round_trip(path);
}

TEST(Gecko, WeightsAsTheFileHasThem) {
  // Sample weights (counts), time deltas instead of times.
  std::string weighted = test::write_file(
      "weighted.json", tachyon(R"J({"stack":[1,2],"timeDeltas":[5.0,0.25],"weight":[3,4],"weightType":"samples","length":2})J"));
  EXPECT_EQ(folded(weighted), kThread + " 3\n" + kThread + ";<native> 4\n");
  EXPECT_EQ(folded(weighted, "cpu"), kThread + " 250000\n" + kThread + ";<native> 1000000\n");
  // Traced milliseconds: the time itself, and no sample count.
  std::string traced = test::write_file(
      "traced.json", tachyon(R"J({"stack":[2,2],"time":[0,1],"weight":[1.5,0.000001],"weightType":"tracing-ms","length":2})J"));
  EXPECT_EQ(folded(traced), kThread + ";<native> 1500001\n");
  auto w = json_profiles::weights(info(traced));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], std::make_pair(std::string("cpu"), std::string("1500001 ns")));
  // Bytes (allocation profiles).
  std::string bytes = test::write_file("bytes.json", tachyon(R"J({"stack":[1],"time":[0],"weight":[4096],"weightType":"bytes","length":1})J"));
  EXPECT_EQ(folded(bytes), kThread + " 4096\n");
  EXPECT_NE(info(bytes).find("weight bytes (default): 4096 bytes"), std::string::npos);
}

TEST(Gecko, TablesInAnyKeyOrderAndPerThreadStrings) {
  // "data" before "schema", samples before the tables they point into, strings last.
  std::string path = test::write_file("reordered.json", R"J({"threads":[{"samples":{"data":[[1,0],[1,2]],"schema":{"time":1,"stack":0}},
    "frameTable":{"data":[[7],[8]],"schema":{"location":0}},
    "stackTable":{"data":[[null,0],[0,1]],"schema":{"frame":1,"prefix":0}},
    "name":"Main","tid":3,"pid":2,"stringTable":["x","y","z","w","v","u","t","outer (a.js:3)","inner (b.js:4:2)"]}],
    "meta":{"interval":0.5,"version":27}})J");
  EXPECT_EQ(sniff_format(test::read_file(path), path), Format::Gecko);
  EXPECT_EQ(folded(path), "Main (tid 3);a.js:outer:3;b.js:inner:4 2\n");
  EXPECT_EQ(folded(path, "cpu"), "Main (tid 3);a.js:outer:3;b.js:inner:4 2500000\n");
  // Processed threads with their own stringArray (before profile.shared existed).
  std::string own = test::write_file("own-strings.json", R"J({"meta":{"interval":1,"preprocessedProfileVersion":40},"threads":[{"name":"T","tid":1,
    "stringArray":["f","g.py"],"samples":{"stack":[0],"time":[0],"weightType":"samples","length":1},
    "stackTable":{"frame":[0],"prefix":[null],"length":1},"frameTable":{"func":[0],"line":[null],"length":1},
    "funcTable":{"name":[0],"fileName":[1],"lineNumber":[12],"length":1}}]})J");
  EXPECT_EQ(folded(own), "T (tid 1);g.py:f:12 1\n");
}

TEST(Gecko, BadInputIsAnError) {
  struct Case {
    std::string text, expect;
  } cases[] = {
      {R"J({"meta":{"interval":1},"threads":[{"name":"T","samples":{"stack":[1],"time":[0]},"stackTable":{"frame":[0,0],"prefix":[1,0]},
          "frameTable":{"func":[0]},"funcTable":{"name":[0]},"stringArray":["f"]}]})J",
       "a cycle"},
      {R"J({"meta":{"interval":1},"threads":{}})J", "threads: expected an array, not an object"},
      {R"J({"meta":{"interval":"1"},"threads":[]})J", "meta.interval: expected a number, not a string"},
      {R"J({"meta":{"interval":1},"threads":[{"samples":{"stack":["a"]}}]})J", "expected an index"},
      {R"J({"meta":{"interval":1},"threads":[{"samples":{"schema":{"stack":0},"data":[5]}}]})J", "expected an array, not a number"},
      {R"J({"meta":{"interval":1},"libs":[]})J", "no \"threads\""},
      {R"J({"meta":{"interval":1},"threads":[],"processes":["{\"threads\": [}"]})J", "processes[0] (JSON text), byte 13: threads[]: expected an object"},
  };
  for (const Case& c : cases) {
    std::string path = test::write_file("bad-gecko.json", c.text);
    std::string err = expect_clean_error(path, c.expect, "--format gecko");
    EXPECT_NE(err.find(c.expect), std::string::npos) << c.text << "\n" << err;
  }
  // Out-of-range references are counted, not followed.
  std::string refs = test::write_file("refs.json", R"J({"meta":{"interval":1},"threads":[{"name":"T","tid":1,"samples":{"stack":[0,7],"time":[0,1]},
    "stackTable":{"frame":[9],"prefix":[null]},"frameTable":{"func":[0]},"funcTable":{"name":[0]},"stringArray":["f"]}]})J");
  std::string i = info(refs);
  EXPECT_NE(i.find("table references out of range"), std::string::npos) << i;
  std::string whole = firefox_recording();
  for (size_t n = 1; n < whole.size(); n += 53) {
    std::string path = test::write_file("truncated.json", whole.substr(0, n));
    test::RunResult r = test::flamefold("collapse --format gecko " + sh_quote(path));
    EXPECT_EQ(r.exit_code, 2) << n << ": " << r.err;
    EXPECT_NE(r.err.find("ends early"), std::string::npos) << n << ": " << r.err;
  }
}

// Every Firefox profile under ../shared/data, when there are any.
TEST(Gecko, RealFilesFromSharedData) {
  REQUIRE_SHARED("data");
  int n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(shared_path + "data")) {
    std::string p = e.path().string();
    if (!e.is_regular_file() || e.file_size() > (64u << 20)) continue;
    if (sniff_format(test::read_file(p).substr(0, 1 << 16), p) != Format::Gecko) continue;
    ++n;
    SCOPED_TRACE(p);
    EXPECT_NE(info(p).find("format: gecko"), std::string::npos);
    json_profiles::expect_round_trip(p);
  }
  if (n == 0) GTEST_SKIP() << "../shared/data holds no Firefox (gecko) profile";
}
