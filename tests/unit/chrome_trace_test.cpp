// Chrome trace-event JSON writer: a hand-built timeline, the CLI on a generated nsys DB, and
// (when ../shared is present) every real nsys/Ascend database, cross-checked against seed 003.
#include <simdjson.h>
#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "flamefold/errors.h"
#include "flamefold/output.h"
#include "flamefold/writers/chrome_trace.h"
#include "test_support.h"

using namespace flamefold;

namespace {

struct Built {
  Timeline tl;
  TraceSideInfo side;
};

// Host thread 100/100 with NVTX step [1000,9000] > fwd [1500,5000]; launches at 1500 (the
// range's own start: not inside it, as nsys2json decides), 2000 and 3000; kernels on
// device 0 streams 10 and 2.
Built sample() {
  Built b;
  Timeline& tl = b.tl;
  tl.ranks.push_back("r");
  Symbols& s = tl.symbols;
  Track host;
  host.pid = 100;
  host.tid = 100;
  host.name = s.strings.intern("python3");
  uint32_t h = tl.add_track(host);
  Track s10;
  s10.device = true;
  s10.device_index = 0;
  s10.tid = 10;
  s10.name = s.strings.intern("stream 10");
  uint32_t d10 = tl.add_track(s10);
  Track s2 = s10;
  s2.tid = 2;
  s2.name = s.strings.intern("stream 2");
  uint32_t d2 = tl.add_track(s2);
  CategoryId nvtx = s.category("nvtx"), api = s.category("cuda-api"), kern = s.category("kernel");
  tl.add(h, 1000, 9000, s.frame("step", {}, 0, nvtx), EventKind::HostRange);
  tl.add(h, 1500, 5000, s.frame("fwd \"quoted\"", {}, 0, nvtx), EventKind::HostRange);
  tl.add(h, 1500, 1600, s.frame("cudaLaunchKernel", {}, 0, api), EventKind::Launch, 10);
  tl.add(h, 2000, 2100, s.frame("cudaLaunchKernel", {}, 0, api), EventKind::Launch, 11);
  tl.add(h, 3000, 3100, s.frame("cudaLaunchKernel", {}, 0, api), EventKind::Launch, 12);
  tl.add(d10, 1700, 1800, s.frame("early", {}, 0, kern), EventKind::Kernel, 10);
  tl.add(d10, 2200, 2700, s.frame("gemm", {}, 0, kern), EventKind::Kernel, 11);
  tl.add(d2, 3300, 4100, s.frame("relu", {}, 0, kern), EventKind::Kernel, 12);
  tl.add(h, 2500, 2500, s.frame("mark", {}, 0, nvtx), EventKind::Instant);
  b.side.device_names.emplace_back(0, "A100");
  return b;
}

std::string write(const Built& b, const ChromeTraceOptions& o, ChromeTraceStats* stats = nullptr) {
  std::string path = test::tmp_path("trace.json");
  OutputFile f(path);
  ChromeTraceStats st = write_chrome_trace(b.tl, b.side, o, f);
  f.commit();
  if (stats) *stats = st;
  return path;
}

struct Ev {
  std::string ph, name, cat;
  int64_t pid = 0, tid = 0;
  double ts = 0, dur = 0;
  std::string cname;
  uint64_t id = 0;
};

std::vector<Ev> parse(const std::string& path) {
  simdjson::dom::parser p;
  simdjson::dom::element doc = p.load(path);  // throws on invalid JSON
  std::vector<Ev> out;
  for (simdjson::dom::element e : doc["traceEvents"].get_array()) {
    Ev v;
    v.ph = std::string(e["ph"].get_string().value());
    if (auto n = e["name"].get_string(); !n.error()) v.name = std::string(n.value());
    if (auto c = e["cat"].get_string(); !c.error()) v.cat = std::string(c.value());
    v.pid = e["pid"].get_int64().value();
    v.tid = e["tid"].get_int64().value();
    if (auto t = e["ts"].get_double(); !t.error()) v.ts = t.value();
    if (auto d = e["dur"].get_double(); !d.error()) v.dur = d.value();
    if (auto c = e["cname"].get_string(); !c.error()) v.cname = std::string(c.value());
    if (auto i = e["id"].get_uint64(); !i.error()) v.id = i.value();
    out.push_back(v);
  }
  return out;
}

size_t count(const std::vector<Ev>& evs, std::string_view ph, std::string_view cat = {}) {
  size_t n = 0;
  for (const Ev& e : evs) n += e.ph == ph && (cat.empty() || e.cat == cat);
  return n;
}

int64_t db_count(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  int64_t n = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

bool has_python3() { return test::run("python3 -c 'import sqlite3, json'").exit_code == 0; }

}  // namespace

TEST(ChromeTrace, DefaultActivitiesAreKernelsAndRangeProjections) {
  Built b = sample();
  ChromeTraceOptions o;
  ChromeTraceStats st;
  std::vector<Ev> evs = parse(write(b, o, &st));
  EXPECT_EQ(count(evs, "X", "kernel"), 3u);
  EXPECT_EQ(count(evs, "X", "nvtx"), 0u);
  EXPECT_EQ(count(evs, "X", "cuda-api"), 0u);
  EXPECT_EQ(count(evs, "s"), 0u);  // no flows when the launches are not shown
  // Projections: step and fwd both span the kernels of the calls at 2000 and 3000; the call at
  // 1500 starts with fwd, so "early" does not count for fwd (it does for step).
  std::map<std::string, std::pair<double, double>> proj;
  for (const Ev& e : evs)
    if (e.cat == "nvtx-kernel") proj[e.name] = {e.ts, e.dur};
  ASSERT_EQ(proj.size(), 2u);
  EXPECT_DOUBLE_EQ(proj["step"].first, 1.7);
  EXPECT_DOUBLE_EQ(proj["step"].second, 2.4);
  EXPECT_DOUBLE_EQ(proj["fwd \"quoted\""].first, 2.2);
  EXPECT_DOUBLE_EQ(proj["fwd \"quoted\""].second, 1.9);
  EXPECT_EQ(st.projections, 2u);
  EXPECT_EQ(st.device_events, 3u);
}

TEST(ChromeTrace, EveryActivityWithFlowsNamesAndOrder) {
  Built b = sample();
  ChromeTraceOptions o;
  parse_activities("kernel,nvtx,nvtx-kernel,cuda-api", o);
  std::vector<Ev> evs = parse(write(b, o));
  EXPECT_EQ(count(evs, "X", "cuda-api"), 3u);
  EXPECT_EQ(count(evs, "X", "nvtx"), 2u);
  EXPECT_EQ(count(evs, "i"), 1u);
  // One arrow per kernel: s at the launch (host lane), f at the kernel (device lane), same id.
  ASSERT_EQ(count(evs, "s"), 3u);
  ASSERT_EQ(count(evs, "f"), 3u);
  std::map<uint64_t, std::pair<Ev, Ev>> flows;
  for (const Ev& e : evs) {
    if (e.ph == "s") flows[e.id].first = e;
    if (e.ph == "f") flows[e.id].second = e;
  }
  for (auto& [id, sf] : flows) {
    EXPECT_EQ(sf.first.pid, 100);
    EXPECT_NE(sf.second.pid, 100);
    EXPECT_LE(sf.first.ts, sf.second.ts);
  }
  // Names: process and thread metadata; the device gets its GPU name.
  std::set<std::string> meta;
  for (const Ev& e : evs)
    if (e.ph == "M") meta.insert(e.name);
  EXPECT_TRUE(meta.count("process_name") && meta.count("thread_name") && meta.count("thread_sort_index"));
  std::string text = test::read_file(test::tmp_path("trace.json"));
  EXPECT_NE(text.find("GPU 0 (A100)"), std::string::npos);
  // Numeric stream order: stream 2's kernels come before stream 10's; host lanes before devices.
  size_t relu = text.find("\"relu\""), gemm = text.find("\"gemm\""), step = text.find("\"name\":\"step\"");
  EXPECT_LT(relu, gemm);
  EXPECT_LT(step, relu);
  // ts/dur are exact µs with three decimals.
  EXPECT_NE(text.find("\"ts\":2.200,\"dur\":0.500"), std::string::npos);
}

TEST(ChromeTrace, PrefixFilterAndColours) {
  Built b = sample();
  ChromeTraceOptions o;
  parse_activities("nvtx,nvtx-kernel", o);
  o.name_prefixes = {"fw"};
  parse_color_scheme(R"({"^f.*quoted": "thread_state_iowait", "step": "good"})", o);
  std::vector<Ev> evs = parse(write(b, o));
  ASSERT_EQ(count(evs, "X", "nvtx"), 1u);
  for (const Ev& e : evs)
    if (e.cat == "nvtx" || e.cat == "nvtx-kernel") {
      EXPECT_EQ(e.name, "fwd \"quoted\"");
      EXPECT_EQ(e.cname, "thread_state_iowait");
    }
  EXPECT_EQ(count(evs, "X", "nvtx-kernel"), 1u);
}

TEST(ChromeTrace, OptionErrors) {
  ChromeTraceOptions o;
  EXPECT_THROW(parse_activities("kernel,gpu", o), UsageError);
  EXPECT_THROW(parse_activities("", o), UsageError);
  EXPECT_THROW(parse_color_scheme("{not json", o), UsageError);
  EXPECT_THROW(parse_color_scheme(R"({"(": "good"})", o), UsageError);
  EXPECT_THROW(parse_color_scheme(R"(["a"])", o), UsageError);
  parse_activities("all", o);
  EXPECT_TRUE(o.device_work && o.host_ranges && o.range_projection && o.api_calls);
}

TEST(ChromeTrace, OutputIsDeterministic) {
  Built b = sample();
  ChromeTraceOptions o;
  parse_activities("all", o);
  std::string first = test::read_file(write(b, o));
  std::string second = test::read_file(write(b, o));
  EXPECT_EQ(first, second);
  EXPECT_EQ(first.rfind("{\"traceEvents\":[", 0), 0u);
}

TEST(ChromeTrace, StreamsManyEventsInBoundedBuffers) {
  // 300k kernels: the output is written as it goes (OutputFile flushes each MiB).
  Timeline tl;
  tl.ranks.push_back("r");
  Track t;
  t.device = true;
  t.device_index = 0;
  t.tid = 7;
  uint32_t track = tl.add_track(t);
  FrameId k = tl.symbols.frame("k", {}, 0, tl.symbols.category("kernel"));
  for (int64_t i = 0; i < 300000; ++i) tl.add(track, i * 10, i * 10 + 5, k, EventKind::Kernel, static_cast<uint64_t>(i + 1));
  std::string path = test::tmp_path("big.json");
  OutputFile f(path);
  ChromeTraceStats st = write_chrome_trace(tl, TraceSideInfo{}, ChromeTraceOptions{}, f);
  EXPECT_LT(f.buffer().size(), size_t{3} << 20);
  f.commit();
  EXPECT_EQ(st.device_events, 300000u);
  EXPECT_EQ(count(parse(path), "X", "kernel"), 300000u);
}

// ---- the CLI on real exports -------------------------------------------------------------

TEST(ChromeTraceReal, EveryNsysExportConvertsWithOneEventPerKernelRow) {
  REQUIRE_SHARED("data/nsys");
  size_t files = 0;
  for (auto& entry : std::filesystem::recursive_directory_iterator(shared_path + "data/nsys")) {
    if (entry.path().extension() != ".sqlite") continue;
    ++files;
    std::string in = entry.path().string(), out = test::tmp_path("real.json");
    test::RunResult r = test::flamefold("convert '" + in + "' -o " + out + " --activities all");
    ASSERT_EQ(r.exit_code, 0) << in << ": " << r.err;
    std::vector<Ev> evs = parse(out);
    int64_t kernels = db_count(in, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
    EXPECT_EQ(static_cast<int64_t>(count(evs, "X", "kernel")), std::max<int64_t>(kernels, 0)) << in;
    int64_t api = db_count(in, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME");
    EXPECT_EQ(static_cast<int64_t>(count(evs, "X", "cuda-api") + count(evs, "X", "cuda-driver")), std::max<int64_t>(api, 0)) << in;
    EXPECT_EQ(count(evs, "s"), count(evs, "f")) << in;
  }
  EXPECT_GE(files, 10u);
}

// seed 003's option names work as aliases (its list options take one comma-separated value here).
TEST(ChromeTraceReal, Seed003OptionNamesAreAliases) {
  REQUIRE_SHARED("data/nsys");
  for (auto& entry : std::filesystem::recursive_directory_iterator(shared_path + "data/nsys")) {
    if (entry.path().extension() != ".sqlite") continue;
    std::string in = "'" + entry.path().string() + "'", ours = test::tmp_path("ours.json"), seeds = test::tmp_path("seeds.json");
    std::string colors = " '{\"a\": \"good\"}'";
    test::RunResult a = test::flamefold("convert " + in + " -o " + ours + " --activities nvtx,kernel --nvtx-prefix a --nvtx-color" + colors);
    test::RunResult b = test::flamefold("convert " + in + " -o " + seeds +
                                        " --activity-type nvtx,kernel --nvtx-event-prefix a --nvtx-color-scheme" + colors);
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(test::read_file(ours), test::read_file(seeds));
    return;  // one export is enough
  }
  FAIL() << "no .sqlite file under data/nsys";
}

TEST(ChromeTraceReal, SameKernelsAndRangeSpansAsSeed003) {
  REQUIRE_SHARED("baselines/seed003_nsys2json.py");
  if (!has_python3()) GTEST_SKIP() << "python3 is not available";
  size_t compared = 0;
  for (auto& entry : std::filesystem::recursive_directory_iterator(shared_path + "data/nsys")) {
    if (entry.path().extension() != ".sqlite") continue;
    std::string in = entry.path().string(), ours = test::tmp_path("ours.json"), seed = test::tmp_path("seed.json");
    std::filesystem::remove(seed);
    test::RunResult s = test::run("python3 " + shared_path + "baselines/seed003_nsys2json.py -f '" + in + "' -o " + seed);
    if (s.exit_code != 0) continue;  // the seed fails on exports without kernels/runtime tables
    ASSERT_EQ(test::flamefold("convert '" + in + "' -o " + ours).exit_code, 0) << in;
    // (name, ts ns, dur ns) multisets per category.
    using Key = std::tuple<std::string, int64_t, int64_t>;
    auto keys = [](const std::vector<Ev>& evs, std::string_view cat) {
      std::multiset<Key> k;
      for (const Ev& e : evs)
        if (e.ph == "X" && e.cat == cat) k.insert({e.name, std::llround(e.ts * 1000), std::llround(e.dur * 1000)});
      return k;
    };
    simdjson::dom::parser p;
    std::vector<Ev> seed_evs;
    for (simdjson::dom::element e : p.load(seed).get_array()) {  // the seed writes a bare array
      Ev v;
      v.ph = "X";
      if (auto n = e["name"].get_string(); !n.error()) v.name = std::string(n.value());
      v.cat = std::string(e["cat"].get_string().value());
      if (v.cat == "cuda") v.cat = "kernel";
      v.ts = e["ts"].get_double().value();
      v.dur = e["dur"].get_double().value();
      seed_evs.push_back(v);
    }
    std::vector<Ev> our_evs = parse(ours);
    EXPECT_EQ(keys(our_evs, "kernel"), keys(seed_evs, "kernel")) << in;
    // Same spans; same names except where the seed writes "" (it ignores textId-registered names).
    auto spans = [](const std::multiset<Key>& k) {
      std::multiset<std::pair<int64_t, int64_t>> s;
      for (auto& [n, ts, dur] : k) s.insert({ts, dur});
      return s;
    };
    std::multiset<Key> ours_nk = keys(our_evs, "nvtx-kernel"), seed_nk = keys(seed_evs, "nvtx-kernel");
    EXPECT_EQ(spans(ours_nk), spans(seed_nk)) << in;
    for (const Key& k : seed_nk)
      if (!std::get<0>(k).empty()) EXPECT_TRUE(ours_nk.count(k)) << in << ": " << std::get<0>(k);
    ++compared;
  }
  EXPECT_GE(compared, 1u);
}

TEST(ChromeTraceReal, EveryAscendDbConverts) {
  REQUIRE_SHARED("data/ascend");
  size_t files = 0;
  for (auto& entry : std::filesystem::recursive_directory_iterator(shared_path + "data/ascend")) {
    if (entry.path().extension() != ".db") continue;
    ++files;
    std::string in = entry.path().string(), out = test::tmp_path("ascend.json");
    test::RunResult r = test::flamefold("convert '" + in + "' -o " + out);
    ASSERT_EQ(r.exit_code, 0) << in << ": " << r.err;
    std::vector<Ev> evs = parse(out);
    int64_t tasks = db_count(in, "SELECT COUNT(*) FROM TASK");
    EXPECT_EQ(static_cast<int64_t>(count(evs, "X", "kernel") + count(evs, "X", "npu_task")), std::max<int64_t>(tasks, 0)) << in;
  }
  EXPECT_GE(files, 5u);
}
