// Ascend profiler DB reader: torch_npu's ascend_pytorch_profiler_N.db and the msprof schemas,
// built here with the SQLite C API; seed 000's per-thread totals on the real DBs.
#include <sqlite3.h>

#include <simdjson.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "flamefold/errors.h"
#include "flamefold/readers/sqlite/ascend.h"
#include "flamefold/readers/sqlite/sqlite_db.h"
#include "sqlite_fixture.h"
#include "test_support.h"

using namespace flamefold;

namespace {

using test::make_db;

// Thread A = globalTid (7 << 32 | 70), thread B = (7 << 32 | 71). PTA strings from 2^28.
// A: train [1000,10000] > aten::linear [2000,5000] > aclnnMatmul [2500,4000];
//    ProfilerStep#1 [0,20000] (left out); overlap [4500,6000] breaks nesting (cut rule);
//    zero-length row (skipped, counted); NULL-name row (unknown, counted).
// B: CANN thread: a CANN_API launch of a task nobody claims through CONNECTION_IDS.
// aten::linear has connectionId 5 -> CONNECTION_IDS (5 -> 900, 5 -> 901) -> two TASK rows.
const char* kTorchNpu = R"(
CREATE TABLE STRING_IDS(id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE PYTORCH_API(startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, name INTEGER,
  sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER, callchainId INTEGER, type INTEGER);
CREATE TABLE CONNECTION_IDS(id INTEGER, connectionId INTEGER);
CREATE TABLE CANN_API(startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER, connectionId INTEGER, name INTEGER);
CREATE TABLE TASK(startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER,
  globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER);
CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INTEGER, blockDim INTEGER, mixBlockDim INTEGER, taskType INTEGER,
  opType INTEGER);
CREATE TABLE PYTORCH_CALLCHAINS(id INTEGER, stack INTEGER, stackDepth INTEGER);
INSERT INTO STRING_IDS VALUES (1, 'MatMulV2'), (2, 'KERNEL_AICORE'), (3, 'aclnnMatmul'), (4, 'EVENT_RECORD'),
  (268435456, 'train'), (268435457, 'aten::linear'), (268435458, 'ProfilerStep#1'), (268435459, 'overlap.py'),
  (268435460, ''), (536870912, 'main.py(10): main'), (536870913, 'model.py(42): forward');
INSERT INTO PYTORCH_API VALUES ('1000', '10000', 30064771142, NULL, 268435456, NULL, NULL, NULL, NULL, NULL, 50003);
INSERT INTO PYTORCH_API VALUES ('2000', '5000', 30064771142, 5, 268435457, NULL, NULL, NULL, NULL, 0, 50001);
INSERT INTO PYTORCH_API VALUES ('0', '20000', 30064771142, NULL, 268435458, NULL, NULL, NULL, NULL, NULL, 50001);
INSERT INTO PYTORCH_API VALUES ('4500', '6000', 30064771142, NULL, 268435459, NULL, NULL, NULL, NULL, NULL, 50003);
INSERT INTO PYTORCH_API VALUES ('7000', '7000', 30064771142, NULL, 268435457, NULL, NULL, NULL, NULL, NULL, 50001);
INSERT INTO PYTORCH_API VALUES ('8000', '9000', 30064771142, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 50001);
INSERT INTO PYTORCH_API VALUES ('9100', '9200', 30064771142, NULL, 268435460, NULL, NULL, NULL, NULL, NULL, 50001);
INSERT INTO PYTORCH_API VALUES (NULL, '9200', 30064771142, NULL, 268435457, NULL, NULL, NULL, NULL, NULL, 50001);
INSERT INTO PYTORCH_API VALUES ('100', '400', 30064771143, NULL, 268435457, NULL, NULL, NULL, NULL, NULL, 50001);
INSERT INTO CONNECTION_IDS VALUES (5, 900), (5, 901);
INSERT INTO CANN_API VALUES (2500, 4000, 20000, 30064771142, 900, 3);
INSERT INTO CANN_API VALUES (150, 300, 20000, 30064771143, 950, 3);
INSERT INTO TASK VALUES (3000, 3500, 0, 900, 1, 7, 2, 0, 4, 1, 0);
INSERT INTO TASK VALUES (3600, 3700, 0, 901, 2, 7, 4, 0, 4, 2, 0);
INSERT INTO TASK VALUES (200, 260, 0, 950, 3, 7, 2, 0, 5, 3, 0);
INSERT INTO COMPUTE_TASK_INFO VALUES (1, 1, 8, 0, 2, 1), (1, 3, 8, 0, 2, 1);
INSERT INTO PYTORCH_CALLCHAINS VALUES (0, 536870913, 0), (0, 536870912, 1);
)";

std::map<std::string, double> thread_totals(const std::string& folded) {
  std::map<std::string, double> t;
  size_t pos = 0;
  while (pos < folded.size()) {
    size_t nl = folded.find('\n', pos);
    if (nl == std::string::npos) nl = folded.size();
    std::string line = folded.substr(pos, nl - pos);
    pos = nl + 1;
    size_t sp = line.rfind(' ');
    if (sp == std::string::npos) continue;
    std::string stack = line.substr(0, sp);
    std::string thread = "?";
    size_t at = stack.find("thread_");
    if (at != std::string::npos) thread = stack.substr(at, stack.find(';', at) - at);
    t[thread] += std::stod(line.substr(sp + 1));
  }
  return t;
}

size_t find_event(const Timeline& tl, std::string_view name) {
  for (size_t i = 0; i < tl.size(); ++i)
    if (tl.symbols.name(tl.frame[i]) == name) return i;
  return SIZE_MAX;
}

uint64_t counter(const Timeline& tl, std::string_view what) {
  for (const Counter& c : tl.counters)
    if (c.what == what) return c.count;
  return 0;
}

}  // namespace

TEST(AscendReader, ClassifiesLikeTheSeed) {
  EXPECT_EQ(classify_ascend_frame("aclnnMatmul"), "cann");
  EXPECT_EQ(classify_ascend_frame("HcclAllreduce"), "cann");
  EXPECT_EQ(classify_ascend_frame("aten::linear"), "python_framework");
  EXPECT_EQ(classify_ascend_frame("torch/nn/modules/module.py(1501): _call_impl"), "python_framework");
  EXPECT_EQ(classify_ascend_frame("main.py(10): main"), "python");
  EXPECT_EQ(classify_ascend_frame("Enqueue"), "unknown");
  AscendCategoryRules rules;
  rules.cann.push_back("enqueue");
  EXPECT_EQ(classify_ascend_frame("Enqueue", rules), "cann");
}

TEST(AscendReader, SeedSemanticsOnTheHostTable) {
  std::string db = make_db("ascend_pytorch_profiler_0.db", kTorchNpu);
  AscendTrace t = read_ascend_trace(db, ReadOptions{}, AscendOptions{});
  const Timeline& tl = t.timeline;
  EXPECT_EQ(find_event(tl, "ProfilerStep#1"), SIZE_MAX);
  EXPECT_EQ(counter(tl, "non-positive durations skipped"), 1u);
  EXPECT_EQ(counter(tl, "empty API names replaced with unknown"), 2u);  // NULL name and ''
  EXPECT_EQ(counter(tl, "rows without a start or end time (left out) (PYTORCH_API)"), 1u);
  bool summary = false;
  for (auto& [k, v] : tl.facts)
    summary |= k == "invalid records" && v == "1 non-positive durations skipped, 2 empty API names replaced with unknown";
  EXPECT_TRUE(summary);
  size_t linear = find_event(tl, "aten::linear");
  ASSERT_NE(linear, SIZE_MAX);
  EXPECT_EQ(tl.start[linear], 2000);  // TEXT timestamps
  const Track& a = tl.tracks[tl.track[linear]];
  EXPECT_EQ(tl.symbols.strings[a.name], "thread_70 (globalTid: 30064771142)");
  EXPECT_EQ(a.pid, 7);
  EXPECT_EQ(tl.symbols.category_name(tl.symbols[tl.frame[linear]].category), "python_framework");
  size_t unknown = find_event(tl, "unknown");
  EXPECT_EQ(tl.symbols.category_name(tl.symbols[tl.frame[unknown]].category), "unknown");
  EXPECT_EQ(tl.symbols.category_name(tl.symbols[tl.frame[find_event(tl, "overlap.py")]].category), "python");
  // NPU tasks: named from COMPUTE_TASK_INFO, else from the task type.
  EXPECT_NE(find_event(tl, "MatMulV2"), SIZE_MAX);
  EXPECT_NE(find_event(tl, "EVENT_RECORD"), SIZE_MAX);
}

// Task names come from COMPUTE_TASK_INFO by id, the name index sized by a first pass over the
// ids alone: ids that are the rowid (INTEGER PRIMARY KEY, as a column or a table constraint)
// or a column of their own name the same tasks, with dense ids and with an id far from the others.
TEST(AscendReader, TaskNamesAreFoundWhetherTheIdIsTheRowidOrNot) {
  const std::string table = "CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INTEGER, blockDim INTEGER, mixBlockDim INTEGER, taskType INTEGER,\n  opType INTEGER);";
  const std::string base(kTorchNpu);
  ASSERT_NE(base.find(table), std::string::npos);
  struct Variant {
    std::string table;
    bool rowid;
  };
  const std::vector<Variant> variants = {
      {"CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INTEGER, blockDim INTEGER, mixBlockDim INTEGER, taskType INTEGER, opType INTEGER);", false},
      {"CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim INTEGER, mixBlockDim INTEGER, taskType INTEGER, opType INTEGER);", true},
      {"CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INTEGER, blockDim INTEGER, mixBlockDim INTEGER, taskType INTEGER, opType INTEGER, CONSTRAINT pk PRIMARY KEY (globalTaskId));", true},
      {"CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INT PRIMARY KEY, blockDim INTEGER, mixBlockDim INTEGER, taskType INTEGER, opType INTEGER);", false},
  };
  for (bool far : {false, true}) {
    for (size_t v = 0; v < variants.size(); ++v) {
      SCOPED_TRACE("schema " + std::to_string(v) + (far ? ", an id far from the others" : ""));
      std::string sql = base;
      sql.replace(sql.find(table), table.size(), variants[v].table);
      if (far)  // a task whose compute info has id 10^12: sparse ids
        sql += "INSERT INTO COMPUTE_TASK_INFO VALUES (1, 1000000000000, 8, 0, 2, 1);\n"
               "INSERT INTO TASK VALUES (3800, 3900, 0, 901, 1000000000000, 7, 2, 0, 4, 4, 0);\n";
      std::string db = make_db("ascend_pytorch_profiler_0.db", sql);
      {
        // The rowid-alias schemas keep the id out of the record (SQLite stores NULL there).
        sqlite::Db d = sqlite::Db::open(db);
        sqlite::Statement s = d.prepare("SELECT COUNT(*) FROM pragma_table_info('COMPUTE_TASK_INFO') WHERE pk > 0 AND type = 'INTEGER'", "test");
        ASSERT_TRUE(s.step());
        EXPECT_EQ(s.i64(0) == 1, variants[v].rowid);
      }
      for (int threads : {1, 0}) {
        ReadOptions r;
        r.threads_to_use = threads;
        AscendTrace t = read_ascend_trace(db, r, AscendOptions{});
        const Timeline& tl = t.timeline;
        size_t named = 0, by_type = 0;
        for (size_t i = 0; i < tl.size(); ++i) {
          named += tl.symbols.name(tl.frame[i]) == "MatMulV2";
          by_type += tl.symbols.name(tl.frame[i]) == "EVENT_RECORD";
        }
        EXPECT_EQ(named, far ? 3u : 2u);  // tasks 1 and 3 (and 10^12); task 2 has no compute info
        EXPECT_EQ(by_type, 1u);
        // The streamed flame graph reads them the same way.
        Profile p = read_ascend(db, r);
        size_t frames = 0;
        for (NodeId n = 1; n < p.node_count(); ++n) frames += p.symbols.name(p.frame[n]) == "MatMulV2";
        EXPECT_GE(frames, 1u);
      }
    }
  }
}

TEST(AscendReader, OpsBecomeTheLaunchesOfTheirTasks) {
  std::string db = make_db("ascend_pytorch_profiler_0.db", kTorchNpu);
  AscendOptions o;
  o.for_flamegraph = true;
  AscendTrace t = read_ascend_trace(db, ReadOptions{}, o);
  const Timeline& tl = t.timeline;
  size_t linear = find_event(tl, "aten::linear");
  ASSERT_EQ(tl.kind[linear], EventKind::Launch);
  size_t joined = 0;
  for (size_t i = 0; i < tl.size(); ++i)
    if (tl.kind[i] == EventKind::Kernel && tl.correlation[i] == tl.correlation[linear]) ++joined;
  EXPECT_EQ(joined, 2u);  // CONNECTION_IDS is 1:N
  EXPECT_EQ(find_event(tl, "aclnnMatmul"), SIZE_MAX);  // CANN_API only in the device view
  o.cann_launches = true;
  AscendTrace n = read_ascend_trace(db, ReadOptions{}, o);
  EXPECT_NE(find_event(n.timeline, "aclnnMatmul"), SIZE_MAX);
}

TEST(AscendReader, CallchainFramesAboveTheOp) {
  std::string db = make_db("ascend_pytorch_profiler_0.db", kTorchNpu);
  AscendOptions o;
  o.for_flamegraph = true;
  o.callchains = true;
  AscendTrace t = read_ascend_trace(db, ReadOptions{}, o);
  const Timeline& tl = t.timeline;
  size_t linear = find_event(tl, "aten::linear"), forward = find_event(tl, "forward"), main_ev = find_event(tl, "main");
  ASSERT_NE(forward, SIZE_MAX);
  ASSERT_NE(main_ev, SIZE_MAX);
  EXPECT_EQ(tl.parent_hint[linear], forward);
  EXPECT_EQ(tl.parent_hint[forward], main_ev);
  EXPECT_EQ(tl.symbols.file(tl.frame[forward]), "model.py");
  EXPECT_EQ(tl.symbols[tl.frame[forward]].line, 42u);
}

TEST(AscendReader, OldestMsprofSchemaStartEndCorrelationId) {
  // report_0: API(start,end,level,...) with TEXT times (some in float notation),
  // TASK(start,end,...,correlationId), COMPUTE_TASK_INFO(name, correlationId, block_dim).
  std::string db = make_db("report_0.db", R"(
CREATE TABLE STRING_IDS(id INTEGER, value TEXT);
CREATE TABLE API(start TEXT, end TEXT, level INTEGER, globalTid INTEGER, connectionId INTEGER, name INTEGER);
CREATE TABLE TASK(start TEXT, end TEXT, deviceId INTEGER, connectionId INTEGER, correlationId INTEGER, globalPid INTEGER,
  taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER);
CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, correlationId INTEGER, block_dim INTEGER);
INSERT INTO STRING_IDS VALUES (1, 'aclnnAdd'), (2, 'Add'), (3, 'KERNEL');
INSERT INTO API VALUES ('1000', '2000', 20000, 5, 8, 1);
INSERT INTO API VALUES ('1.23282223627722e+17', '1.23282223627841e+17', 20000, 5, 9, 1);
INSERT INTO TASK VALUES ('1500', '1800', 0, 8, 77, 1, 3, 0, 2, 1, 0);
INSERT INTO COMPUTE_TASK_INFO VALUES (2, 77, 4);
)");
  AscendOptions o;
  o.for_flamegraph = true;
  AscendTrace t = read_ascend_trace(db, ReadOptions{}, o);
  const Timeline& tl = t.timeline;
  size_t add = find_event(tl, "Add");
  ASSERT_NE(add, SIZE_MAX);
  EXPECT_EQ(tl.kind[add], EventKind::Kernel);
  size_t launch = SIZE_MAX;
  for (size_t i = 0; i < tl.size(); ++i)
    if (tl.kind[i] == EventKind::Launch && tl.start[i] == 1000) launch = i;
  ASSERT_NE(launch, SIZE_MAX);
  EXPECT_EQ(tl.correlation[launch], tl.correlation[add]);
  // Float-notation TEXT times are read as numbers, not cut at the '.'.
  bool big = false;
  for (size_t i = 0; i < tl.size(); ++i) big |= tl.start[i] > 123282223627000000LL && tl.end[i] > tl.start[i];
  EXPECT_TRUE(big);
}

TEST(AscendReader, MsprofGlobalTaskIdLinkAndInsightColumns) {
  // The second msprof schema links API.globalTaskId -> TASK.globalTaskId; Insight adds depth
  // columns and tables that must be tolerated.
  std::string db = make_db("msprof_0.db", R"(
CREATE TABLE STRING_IDS(id INTEGER, value TEXT);
CREATE TABLE API(startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER, globalTaskId INTEGER, name INTEGER, depth INTEGER);
CREATE TABLE TASK(startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER, globalPid INTEGER,
  taskType INTEGER, streamId INTEGER, depth INTEGER);
CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INTEGER, block_dim INTEGER);
CREATE TABLE status_info(x INTEGER);
CREATE TABLE connectionCats(x INTEGER);
INSERT INTO STRING_IDS VALUES (1, 'aclnnMul'), (2, 'Mul');
INSERT INTO API VALUES (100, 200, 20000, 9, 33, 1, 0);
INSERT INTO TASK VALUES (150, 190, 0, 999, 33, 1, 0, 3, 0);
INSERT INTO COMPUTE_TASK_INFO VALUES (2, 33, 1);
)");
  AscendOptions o;
  o.for_flamegraph = true;
  AscendTrace t = read_ascend_trace(db, ReadOptions{}, o);
  const Timeline& tl = t.timeline;
  size_t mul = find_event(tl, "Mul"), call = find_event(tl, "aclnnMul");
  ASSERT_NE(mul, SIZE_MAX);
  ASSERT_NE(call, SIZE_MAX);
  EXPECT_EQ(tl.correlation[mul], tl.correlation[call]);
}

TEST(AscendReader, InputChecks) {
  std::string no_tables = make_db("ascend_pytorch_profiler_1.db", "CREATE TABLE X(a);");
  try {
    read_ascend_trace(no_tables, ReadOptions{}, AscendOptions{});
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing required tables"), std::string::npos);
  }
  std::string no_api = make_db("ascend_pytorch_profiler_2.db", "CREATE TABLE STRING_IDS(id, value);");
  EXPECT_THROW(read_ascend_trace(no_api, ReadOptions{}, AscendOptions{}), InputError);
  std::string db = make_db("ascend_pytorch_profiler_0.db", kTorchNpu);
  ReadOptions capped;
  capped.max_input_bytes = 1000;
  try {
    read_ascend_trace(db, capped, AscendOptions{});
    ADD_FAILURE() << "expected the size cap";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("size limit"), std::string::npos);
  }
  EXPECT_THROW(read_ascend_trace(test::write_file("x.db", "SQLite format 2 not really"), ReadOptions{}, AscendOptions{}),
               InputError);
  std::string bytes = test::read_file(db);
  std::string cut = test::write_file("cut.db", bytes.substr(0, bytes.size() / 2));
  try {
    read_ascend_trace(cut, ReadOptions{}, AscendOptions{});
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cut.db"), std::string::npos);
  }
  // Wrong column types and NULLs everywhere: counted, never a crash.
  std::string nulls = make_db("nulls.db", R"(
CREATE TABLE STRING_IDS(id, value);
CREATE TABLE PYTORCH_API(startNs, endNs, globalTid, connectionId, name, callchainId);
CREATE TABLE TASK(startNs, endNs, deviceId, connectionId, globalTaskId, taskType, streamId);
INSERT INTO STRING_IDS VALUES (NULL, NULL), ('x', 5);
INSERT INTO PYTORCH_API VALUES (NULL, NULL, NULL, NULL, NULL, NULL), ('a', x'01', 'b', 'c', 'd', 'e'), (1, 5, NULL, 1, 1, 1);
INSERT INTO TASK VALUES (NULL, NULL, NULL, NULL, NULL, NULL, NULL), ('q', 'r', 's', 't', 'u', 'v', 'w');
)");
  AscendOptions o;
  o.for_flamegraph = true;
  o.callchains = true;
  AscendTrace t = read_ascend_trace(nulls, ReadOptions{}, o);
  EXPECT_FALSE(t.timeline.counters.empty());
}

TEST(AscendReader, CliFlamegraphKeepsUnionPerThreadAndConservesNpuTime) {
  std::string db = make_db("ascend_pytorch_profiler_0.db", kTorchNpu);
  std::string out = test::tmp_path("cpu.folded");
  test::RunResult r = test::flamefold("collapse " + db + " -o " + out);
  if (r.exit_code != 0 && r.err.find("not implemented") != std::string::npos) GTEST_SKIP() << "build_profile not ready";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("non-positive durations skipped: 1"), std::string::npos);
  auto totals = thread_totals(test::read_file(out));
  // Thread A: union of [1000,10000] and nothing outside it = 9000 ns; B: [100,400] = 300.
  EXPECT_DOUBLE_EQ(totals["thread_70 (globalTid: 30064771142)"], 9000);
  EXPECT_DOUBLE_EQ(totals["thread_71 (globalTid: 30064771143)"], 300);
  std::string npu = test::tmp_path("npu.folded");
  r = test::flamefold("collapse " + db + " -o " + npu + " --weight npu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = test::read_file(npu);
  double total = 0;
  for (auto& [k, v] : thread_totals(text)) total += v;
  EXPECT_DOUBLE_EQ(total, 500 + 100 + 60);
  EXPECT_NE(text.find("aten::linear;MatMulV2 500"), std::string::npos) << text;
}

// Seed 000's trees start at its thread nodes: flamefold's roots must be the same nodes (no
// process level for a one-process DB), with per-thread totals within 0.5 %, in every output.
TEST(AscendReaderReal, RootsAndPerThreadTotalsEqualSeed000) {
  REQUIRE_SHARED("baselines/seed000_flamegraph.py");
  if (test::run("python3 -c 'import sqlite3'").exit_code != 0) GTEST_SKIP() << "python3 is not available";
  size_t compared = 0;
  for (auto& entry : std::filesystem::recursive_directory_iterator(shared_path + "data/ascend")) {
    if (entry.path().extension() != ".db") continue;
    std::string in = entry.path().string();
    std::string html_dir = test::tmp_path("seed");
    std::filesystem::create_directories(html_dir);
    test::RunResult s = test::run("python3 " + shared_path + "baselines/seed000_flamegraph.py '" + in + "' -o " + html_dir);
    std::string folded = test::tmp_path("ours.folded"), html = test::tmp_path("ours.html"), svg = test::tmp_path("ours.svg");
    test::RunResult r = test::flamefold("collapse '" + in + "' -o " + folded);
    ASSERT_EQ(r.exit_code, 0) << in << ": " << r.err;
    ASSERT_EQ(test::flamefold("flamegraph '" + in + "' -o " + html).exit_code, 0) << in;
    ASSERT_EQ(test::flamefold("flamegraph '" + in + "' -o " + svg).exit_code, 0) << in;
    if (s.exit_code != 0) continue;  // the seed needs PYTORCH_API (no msprof DBs)
    // The seed's tree is JSON inside its HTML: {"metadata":...,"flamegraph":{"name":"all","children":[threads]}}.
    std::string page = test::read_file(html_dir + "/flamegraph.html");
    const std::string marker = "const FLAMEGRAPH_DATA = ";
    size_t json_at = page.find(marker);
    ASSERT_NE(json_at, std::string::npos) << in;
    json_at += marker.size();
    size_t json_end = page.find(";\n</script>", json_at);
    ASSERT_NE(json_end, std::string::npos) << in;
    simdjson::dom::parser parser;
    simdjson::padded_string json(page.substr(json_at, json_end - json_at));
    simdjson::dom::element doc = parser.parse(json);
    std::map<std::string, double> seed_roots;  // thread node -> value (us)
    for (simdjson::dom::element child : doc["flamegraph"]["children"].get_array())
      seed_roots[std::string(std::string_view(child["name"]))] = double(child["value"]);
    ASSERT_FALSE(seed_roots.empty()) << in;

    std::map<std::string, double> our_roots;  // first frame of each folded line -> ns
    std::istringstream lines(test::read_file(folded));
    for (std::string line; std::getline(lines, line);) {
      size_t sp = line.rfind(' ');
      our_roots[line.substr(0, std::min(line.find(';'), sp))] += std::stod(line.substr(sp + 1));
    }
    std::vector<std::string> seed_names, our_names;
    for (auto& [name, v] : seed_roots) seed_names.push_back(name);
    for (auto& [name, v] : our_roots) our_names.push_back(name);
    EXPECT_EQ(our_names, seed_names) << in;
    double all_us = 0;
    for (auto& [name, us] : seed_roots) all_us += us;
    const std::string svg_text = test::read_file(svg);
    for (auto& [name, us] : seed_roots) {
      double ns = our_roots[name];
      EXPECT_NEAR(ns, us * 1000, std::max(20.0, 0.005 * us * 1000)) << in << " " << name;
      // The SVG draws the same roots (those wide enough to be drawn).
      if (us > all_us / 100) EXPECT_NE(svg_text.find("<title>" + name + " ("), std::string::npos) << in << " " << name;
    }
    std::string info = test::flamefold("info '" + in + "'").out;
    EXPECT_EQ(info.find("\n  process"), std::string::npos) << in << ": a one-process DB has no process level\n" << info;
    ++compared;
  }
  EXPECT_GE(compared, 3u);
}

// Host tables of 200k rows or more are read by two SQLite connections (rowid halves placed in
// order); -j 1 forces one scan. Both must give the same bytes, in every view.
TEST(AscendReader, TwoConnectionReadEqualsOneScanOnABigTable) {
  std::string sql = std::string(kTorchNpu) + R"(;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 240000)
INSERT INTO PYTORCH_API
  SELECT CAST(20000 + i * 100 AS TEXT), CAST(20000 + i * 100 + 40 + (i % 3) * 50 AS TEXT),
         30064771142 + (i % 2), CASE WHEN i % 7 = 0 THEN 5 ELSE NULL END,
         CASE WHEN i % 5 = 0 THEN 268435456 ELSE 268435457 END, NULL, NULL, NULL, NULL, NULL, 50001
  FROM n)";
  std::string db = make_db("ascend_pytorch_profiler_big_0.db", sql);
  for (const std::string& weight : {std::string(""), std::string(" --weight npu")}) {
    test::RunResult two = test::flamefold("collapse " + db + weight);
    test::RunResult one = test::flamefold("collapse -j 1 " + db + weight);
    ASSERT_EQ(two.exit_code, 0) << two.err;
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_GT(two.out.size(), 50u);
    EXPECT_EQ(two.out, one.out) << "view:" << weight;
    EXPECT_EQ(two.err, one.err);
  }
}

TEST(AscendReader, CategoryRulesReplaceOrAddKeywords) {
  AscendCategoryRules rules;
  apply_category_rules(rules, {"cann+=enqueue", "python_framework=linear"});
  EXPECT_EQ(classify_ascend_frame("Enqueue", rules), "cann");
  EXPECT_EQ(classify_ascend_frame("aclnnMatmul", rules), "cann");           // defaults kept by +=
  EXPECT_EQ(classify_ascend_frame("aten::relu", rules), "unknown");         // replaced by =
  EXPECT_EQ(classify_ascend_frame("aten::linear", rules), "python_framework");
  EXPECT_EQ(classify_ascend_frame("main.py(10): main", rules), "python");  // the seed's python rule
  apply_category_rules(rules, {"python=main"});
  EXPECT_EQ(classify_ascend_frame("main.py(10): main", rules), "python");
  EXPECT_EQ(classify_ascend_frame("model.py(42): forward", rules), "unknown");
  apply_category_rules(rules, {"cann="});  // no keywords: never cann
  EXPECT_EQ(classify_ascend_frame("aclnnMatmul", rules), "unknown");
  EXPECT_THROW(apply_category_rules(rules, {"kernels=foo"}), UsageError);
  EXPECT_THROW(apply_category_rules(rules, {"cann"}), UsageError);
}

TEST(AscendReader, CategoryRuleOptionChangesAFramesCategory) {
  std::string db = make_db("ascend_pytorch_profiler_0.db", kTorchNpu);
  auto category_of = [](const AscendTrace& t, const char* name) {
    const Timeline& tl = t.timeline;
    for (size_t i = 0; i < tl.size(); ++i)
      if (tl.symbols.name(tl.frame[i]) == name) return std::string(tl.symbols.category_name(tl.symbols[tl.frame[i]].category));
    return std::string("(no such frame)");
  };
  EXPECT_EQ(category_of(read_ascend_trace(db, ReadOptions{}, AscendOptions{}), "aten::linear"), "python_framework");
  ReadOptions r;
  r.category_rules = {"cann+=linear"};
  EXPECT_EQ(category_of(read_ascend_trace(db, r, AscendOptions{}), "aten::linear"), "cann");
  // Through the command line: the frame's category in `top --json`.
  test::RunResult plain = test::flamefold("top --json " + db);
  test::RunResult custom = test::flamefold("top --json --category-rule cann+=linear " + db);
  ASSERT_EQ(custom.exit_code, 0) << custom.err;
  EXPECT_NE(plain.out.find("\"aten::linear\""), std::string::npos) << plain.out;
  auto category_in = [](const std::string& json) {
    size_t at = json.find("\"aten::linear\"");
    size_t c = at == std::string::npos ? at : json.find("\"category\":", at);
    return c == std::string::npos ? std::string() : json.substr(c + 11, json.find('"', c + 12) - c - 10);
  };
  EXPECT_EQ(category_in(plain.out), "\"python_framework\"");
  EXPECT_EQ(category_in(custom.out), "\"cann\"");
  test::RunResult bad = test::flamefold("top --category-rule kernels=x " + db);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("cann, python_framework or python"), std::string::npos) << bad.err;
}

// --group-by: a one-process DB starts at its threads (seed 000's roots); `process` adds the
// process level, `none` merges the threads; a DB with two processes gets the level by default.
TEST(AscendReader, GroupByLevels) {
  std::string db = make_db("ascend_pytorch_profiler_0.db", kTorchNpu);
  test::RunResult by_default = test::flamefold("collapse " + db);
  test::RunResult thread = test::flamefold("collapse --group-by thread " + db);
  test::RunResult process = test::flamefold("collapse --group-by process " + db);
  test::RunResult none = test::flamefold("collapse --group-by none " + db);
  for (const auto* r : {&by_default, &thread, &process, &none}) ASSERT_EQ(r->exit_code, 0) << r->err;
  EXPECT_EQ(by_default.out.rfind("thread_70 (globalTid: 30064771142);train", 0), 0u) << by_default.out;
  EXPECT_EQ(thread.out, by_default.out);
  EXPECT_EQ(process.out.rfind("process 7;thread_70 (globalTid: 30064771142);train", 0), 0u) << process.out;
  EXPECT_EQ(test::drop_root_frames(process.out, 1), by_default.out);
  EXPECT_EQ(none.out, test::drop_root_frames(by_default.out, 1));
  EXPECT_NE(("\n" + none.out).find("\naten::linear 300\n"), std::string::npos) << none.out;  // thread B's op, first level
  test::RunResult bad = test::flamefold("collapse --group-by rank " + db);
  EXPECT_EQ(bad.exit_code, 2);

  // A second process (pid 8) in the same DB: the process level comes back by default.
  std::string two = make_db("ascend_pytorch_profiler_1.db", std::string(kTorchNpu) +
      ";INSERT INTO PYTORCH_API VALUES ('100', '900', 34359738448, NULL, 268435457, NULL, NULL, NULL, NULL, NULL, 50001)");
  test::RunResult both = test::flamefold("collapse " + two);
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(both.out.find("process 7;thread_70 (globalTid: 30064771142);train"), std::string::npos) << both.out;
  EXPECT_NE(both.out.find("process 8;thread_80 (globalTid: 34359738448);aten::linear 800"), std::string::npos) << both.out;
  EXPECT_EQ(test::flamefold("collapse --group-by thread " + two).out, test::drop_root_frames(both.out, 1));
}
