// The streaming Ascend reader (read_ascend: spools, sort-merge joins, bounded memory) against
// the timeline reader + build_profile (read_ascend_in_memory): the same Profile, node for node,
// on generated DBs with every oddity the reader handles, under every selection option, with
// spools that fit in memory and with spools so small that every sort spills to disk.
#include <sqlite3.h>

#include <random>
#include <string>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/readers/sqlite/ascend.h"
#include "flamefold/readers/sqlite/sqlite_db.h"
#include "html_payload.h"
#include "profile_compare.h"
#include "sqlite_fixture.h"
#include "test_support.h"

using namespace flamefold;

namespace {

struct Gen {
  int threads = 3;
  int steps = 12;
  int calls_per_step = 80;  // top-level calls per thread per step
  unsigned seed = 1;
  bool callchains = true;
};

// A torch_npu-like DB: per thread, nested calls written per step grouped by row type (so each
// thread's rows come in a few interleaved ascending runs), links to NPU tasks through
// CONNECTION_IDS (one id reached by several rows, ids reused much later as backward ops do, one
// id -> two connections), CANN_API launches, tasks without times or ending before they start,
// compute-task names and task-type names, callchains (some missing), ProfilerStep rows, NULL and
// empty names, zero and negative durations, rows without a thread, identical intervals.
std::string make_generated_db(const std::string& name, const Gen& g) {
  std::mt19937_64 rng(g.seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  std::string sql = R"(
CREATE TABLE STRING_IDS(id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE PYTORCH_API(startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, name INTEGER,
  sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER, callchainId INTEGER, type INTEGER);
CREATE TABLE CONNECTION_IDS(id INTEGER, connectionId INTEGER);
CREATE TABLE CANN_API(startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER, connectionId INTEGER PRIMARY KEY, name INTEGER);
CREATE TABLE TASK(startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER,
  globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER);
CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim INTEGER);
CREATE TABLE PYTORCH_CALLCHAINS(id INTEGER, stack INTEGER, stackDepth INTEGER);
)";
  // Names: ops (python_framework, cann, python, unknown), task names, callchain frames.
  const std::vector<std::string> ops = {"aten::linear", "aten::mm",     "aclnnMatmul", "aclnnAdd",  "Enqueue",
                                        "Dequeue@aclnnAdd", "model.py",  "train_step",  "nn.Module: Linear",
                                        "HcclAllreduce", "aten::copy_", "python_loop", "aten::add"};
  const std::vector<std::string> kernels = {"MatMulV3", "Add", "Cast", "TransData"};
  const std::vector<std::string> types = {"KERNEL_AICORE", "EVENT_RECORD", "MEMCPY_ASYNC"};
  for (size_t i = 0; i < ops.size(); ++i) sql += "INSERT INTO STRING_IDS VALUES (" + std::to_string(1000 + i) + ", '" + ops[i] + "');\n";
  for (size_t i = 0; i < kernels.size(); ++i) sql += "INSERT INTO STRING_IDS VALUES (" + std::to_string(2000 + i) + ", '" + kernels[i] + "');\n";
  for (size_t i = 0; i < types.size(); ++i) sql += "INSERT INTO STRING_IDS VALUES (" + std::to_string(3000 + i) + ", '" + types[i] + "');\n";
  for (int i = 0; i < 12; ++i)
    sql += "INSERT INTO STRING_IDS VALUES (" + std::to_string(4000 + i) + ", 'src/m" + std::to_string(i % 5) + ".py(" +
           std::to_string(10 + i) + "): f" + std::to_string(i) + "');\n";
  sql += "INSERT INTO STRING_IDS VALUES (5000, ''), (5001, 'ProfilerStep#0');\n";
  for (int i = 1; i < g.steps; ++i) sql += "INSERT INTO STRING_IDS VALUES (" + std::to_string(5001 + i) + ", 'ProfilerStep#" + std::to_string(i) + "');\n";
  // Callchains 0..7 (8 and 9 are referenced but missing), 1-3 frames each, depth 0 innermost.
  if (g.callchains)
    for (int c = 0; c < 8; ++c)
      for (int d = 0; d <= c % 3; ++d)
        sql += "INSERT INTO PYTORCH_CALLCHAINS VALUES (" + std::to_string(c) + ", " + std::to_string(4000 + (c + d) % 12) + ", " +
               std::to_string(d) + ");\n";

  struct Row {
    int64_t b, e;
    int64_t gtid;
    int64_t link;  // -1 = NULL
    int64_t name;  // -1 = NULL
    int64_t chain;  // -1 = NULL
    int type;
    bool null_start = false, null_thread = false;
  };
  int64_t next_id = 0, next_c = 9000;
  std::vector<int64_t> reusable_ids;  // ids a later row links to again (backward ops)
  std::vector<std::pair<int64_t, int64_t>> conn;  // (id, connectionId)
  std::vector<int64_t> cann_links;
  struct Task {
    int64_t b, e, c, task_id, type;
    bool null_time = false, null_link = false;
  };
  std::vector<Task> tasks;
  std::vector<std::string> cann_rows;
  int64_t task_id = 0;
  const int64_t pid = 42;
  int64_t t = 1700000000000000000LL;
  std::string api;
  for (int step = 0; step < g.steps; ++step) {
    const int64_t step_start = t;
    std::vector<Row> rows;
    for (int th = 0; th < g.threads; ++th) {
      const int64_t gtid = (pid << 32) | (100 + th);
      int64_t at = step_start + pick(50);
      for (int k = 0; k < g.calls_per_step / (th + 1); ++k) {
        // A call and up to three levels of children, nested (sometimes sticking out: cut rule).
        std::vector<std::pair<int64_t, int64_t>> spans{{at, at + 200 + pick(800)}};
        for (int depth = 0; depth < 3 && pick(3) != 0; ++depth) {
          auto [pb, pe] = spans.back();
          int64_t b = pb + pick(static_cast<int>((pe - pb) / 3) + 1);
          int64_t e = b + 1 + pick(static_cast<int>(pe - b));
          if (pick(20) == 0) e = pe + 50;  // breaks nesting
          spans.emplace_back(b, e);
        }
        for (auto [b, e] : spans) {
          Row r{b, e, gtid, -1, 1000 + pick(static_cast<int>(ops.size())), -1, 50001 + pick(3)};
          int roll = pick(40);
          if (roll == 0) r.name = -1;                   // NULL name: unknown
          else if (roll == 1) r.name = 5000;            // empty name: unknown
          else if (roll == 2) r.e = r.b;                // zero duration
          else if (roll == 3) r.e = r.b - 10;           // negative duration
          else if (roll == 4) r.null_start = true;      // no start
          else if (roll == 5) r.null_thread = true;     // no thread
          if (pick(3) == 0) {
            if (!reusable_ids.empty() && pick(4) == 0) {
              r.link = reusable_ids[static_cast<size_t>(pick(static_cast<int>(reusable_ids.size())))];
            } else {
              r.link = next_id++;
              int64_t c = next_c++;
              conn.emplace_back(r.link, c);
              if (pick(6) == 0) conn.emplace_back(r.link, next_c++);  // one id, two connections
              if (pick(2) == 0) reusable_ids.push_back(r.link);
              int n = 1 + pick(2);
              for (int i = 0; i < n; ++i) {
                Task tk{r.b + 100 + pick(500), 0, c, task_id++, 3000 + pick(3)};
                tk.e = tk.b + 20 + pick(300);
                if (pick(25) == 0) tk.null_time = true;
                if (pick(25) == 0) tk.e = tk.b - 5;
                tasks.push_back(tk);
              }
            }
          }
          if (g.callchains && pick(3) == 0) r.chain = pick(10);
          rows.push_back(r);
          if (pick(30) == 0) rows.push_back(r);  // an identical interval
        }
        at = spans.front().second + 10 + pick(100);
      }
      // CANN launches for tasks no op claims, on this thread.
      for (int i = 0; i < 3; ++i) {
        int64_t c = next_c++;
        int64_t b = step_start + pick(3000);
        cann_rows.push_back("(" + std::to_string(b) + ", " + std::to_string(b + 40) + ", 20000, " + std::to_string(gtid) + ", " +
                            std::to_string(c) + ", " + std::to_string(1000 + pick(static_cast<int>(ops.size()))) + ")");
        Task tk{b + 60, b + 90, c, task_id++, 3000};
        if (pick(3) == 0) tk.null_link = true;
        tasks.push_back(tk);
      }
    }
    int64_t step_end = step_start;
    for (const Row& r : rows) step_end = std::max(step_end, r.e);
    rows.push_back(Row{step_start - 5, step_end + 5, (pid << 32) | 100, -1, 5001 + step, -1, 50001});
    // torch_npu writes a step's rows grouped by type.
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.type < b.type; });
    for (const Row& r : rows) {
      auto num = [](int64_t v) { return v < 0 ? std::string("NULL") : std::to_string(v); };
      api += "('" + std::to_string(r.b) + "', " + (r.null_start ? std::string("NULL") : "'" + std::to_string(r.e) + "'") + ", " +
             (r.null_thread ? std::string("NULL") : std::to_string(r.gtid)) + ", " + num(r.link) + ", " + num(r.name) +
             ", NULL, NULL, NULL, NULL, " + num(r.chain) + ", " + std::to_string(r.type) + "),\n";
    }
    t = step_end + 1000;
  }
  api.resize(api.size() - 2);
  sql += "INSERT INTO PYTORCH_API VALUES " + api + ";\n";
  std::string c;
  for (auto [id, cid] : conn) c += "(" + std::to_string(id) + ", " + std::to_string(cid) + "),";
  if (!c.empty()) sql += "INSERT INTO CONNECTION_IDS VALUES " + c.substr(0, c.size() - 1) + ";\n";
  std::string cann;
  for (const std::string& r : cann_rows) cann += r + ",";
  sql += "INSERT INTO CANN_API VALUES " + cann.substr(0, cann.size() - 1) + ";\n";
  std::string task, cti;
  for (const Task& tk : tasks) {
    task += "(" + (tk.null_time ? std::string("NULL") : std::to_string(tk.b)) + ", " + std::to_string(tk.e) + ", 0, " +
            (tk.null_link ? std::string("NULL") : std::to_string(tk.c)) + ", " + std::to_string(tk.task_id) + ", " +
            std::to_string(pid) + ", " + std::to_string(tk.type) + ", 0, " + std::to_string(tk.task_id % 3) + ", 0, 0),";
    if (tk.task_id % 4 != 0) cti += "(" + std::to_string(2000 + tk.task_id % 4) + ", " + std::to_string(tk.task_id) + ", 8),";
  }
  sql += "INSERT INTO TASK VALUES " + task.substr(0, task.size() - 1) + ";\n";
  sql += "INSERT INTO COMPUTE_TASK_INFO VALUES " + cti.substr(0, cti.size() - 1) + ";\n";
  return test::make_db(name, sql);
}

std::vector<test::OptionCase> option_cases() {
  test::OptionCases cases;
  auto add = [&](std::string what, auto set) { cases.add(std::move(what), set); };
  add("default", [](ReadOptions&) {});
  add("--weight npu", [](ReadOptions& o) { o.weight = "npu"; });
  add("--stacks callchain", [](ReadOptions& o) { o.stacks = "callchain"; });
  add("--stacks callchain --weight npu", [](ReadOptions& o) { o.stacks = "callchain"; o.weight = "npu"; });
  add("--categories python_framework,cann", [](ReadOptions& o) { o.categories = {"python_framework", "cann"}; });
  add("--categories unknown,python --stacks callchain", [](ReadOptions& o) {
    o.categories = {"unknown", "python"};
    o.stacks = "callchain";
  });
  add("--categories cann,kernel", [](ReadOptions& o) { o.categories = {"cann", "kernel"}; });
  add("--thread 101", [](ReadOptions& o) { o.threads = {"101"}; });
  add("--window", [](ReadOptions& o) {
    o.window_start_ns = 20000;
    o.window_end_ns = 90000;
  });
  add("--group-by process", [](ReadOptions& o) { o.group_by = "process"; });
  add("--group-by none --weight npu", [](ReadOptions& o) {
    o.group_by = "none";
    o.weight = "npu";
  });
  add("-j 1", [](ReadOptions& o) { o.threads_to_use = 1; });
  add("flame chart", [](ReadOptions& o) { o.chart_events = 1000000; });
  add("flame chart of 300 events, --stacks callchain", [](ReadOptions& o) {
    o.chart_events = 300;
    o.stacks = "callchain";
  });
  add("--category-rule cann+=Enqueue", [](ReadOptions& o) { o.category_rules = {"cann+=Enqueue"}; });
  return cases.all;
}

void expect_streaming_matches(const std::string& db) {
  for (const test::OptionCase& c : option_cases()) {
    for (size_t spool : {size_t(0), size_t(4096)}) {
      SCOPED_TRACE(c.what + (spool ? " (tiny spools)" : ""));
      ReadOptions o = c.o;
      o.spool_bytes = spool;
      Profile want = read_ascend_in_memory(db, o);
      Profile got = read_ascend(db, o);
      test::expect_same_profile(got, want);
    }
  }
}

}  // namespace

TEST(AscendStream, MatchesTheTimelineBuildOnAGeneratedDb) {
  Gen g;
  expect_streaming_matches(make_generated_db("gen_0.db", g));
}

TEST(AscendStream, MatchesWithManyThreadsAndNoCallchains) {
  Gen g;
  g.threads = 7;
  g.steps = 5;
  g.seed = 7;
  g.callchains = false;
  expect_streaming_matches(make_generated_db("gen_1.db", g));
}

TEST(AscendStream, MatchesOnABigDbDecodedAhead) {
  // Enough rows for the second thread to decode the tables ahead (the device tables too when
  // callchain frames come last), to spill with the default spool size in the tiny-spool runs,
  // and enough provisional launches for the join to read them on the second core (dropping the
  // unconfirmed ones there).
  Gen g;
  g.threads = 2;
  g.steps = 100;
  g.calls_per_step = 600;
  g.seed = 3;
  std::string db = make_generated_db("gen_big_0.db", g);
  {
    sqlite::Db d = sqlite::Db::open(db);
    ASSERT_GE(d.scalar("SELECT COUNT(connectionId) FROM PYTORCH_API", "test"), 65536)
        << "the launches must be many enough to be joined on the second core";
  }
  for (size_t spool : {size_t(0), size_t(64) << 10}) {
    SCOPED_TRACE(spool ? "tiny spools" : "default spools");
    ReadOptions o;
    o.spool_bytes = spool;
    test::expect_same_profile(read_ascend(db, o), read_ascend_in_memory(db, o));
    ReadOptions npu = o;
    npu.weight = "npu";
    test::expect_same_profile(read_ascend(db, npu), read_ascend_in_memory(db, npu));
    ReadOptions chains = o;
    chains.stacks = "callchain";
    test::expect_same_profile(read_ascend(db, chains), read_ascend_in_memory(db, chains));
    ReadOptions chart = o;
    chart.chart_events = 1000000;
    test::expect_same_profile(read_ascend(db, chart), read_ascend_in_memory(db, chart));
  }
}

// The flame chart's default bound is smaller for streamed databases (options.h,
// kStreamedChartEvents): past it the chart keeps the first steps or stretch of time that fit,
// while a bound the user gives is kept as given.
TEST(AscendStream, TheChartsDefaultBoundIsSmallerForDatabases) {
  Gen g;
  g.threads = 2;
  g.steps = 40;
  g.calls_per_step = 600;
  g.seed = 3;
  std::string db = make_generated_db("gen_chart_0.db", g);
  ReadOptions o;
  o.chart_events = 1000000;
  o.chart_events_default = true;
  Profile by_default = read_ascend(db, o);
  ASSERT_TRUE(by_default.chart);
  EXPECT_GT(by_default.chart->trace_events, kStreamedChartEvents);  // the DB has more events than the bound
  EXPECT_EQ(by_default.chart->limit, kStreamedChartEvents);
  EXPECT_LE(by_default.chart->events.size(), kStreamedChartEvents);
  EXPECT_NE(by_default.chart->scope, TimelineChart::Scope::kAll);
  o.chart_events_default = false;
  Profile asked = read_ascend(db, o);
  ASSERT_TRUE(asked.chart);
  EXPECT_EQ(asked.chart->limit, 1000000u);
  EXPECT_EQ(asked.chart->scope, TimelineChart::Scope::kAll);
  EXPECT_EQ(asked.chart->events.size(), asked.chart->trace_events);
  // The flame graph itself does not depend on the chart.
  by_default.chart.reset();
  asked.chart.reset();
  test::expect_same_profile(by_default, asked);

  // The command line: the default bound for a DB, the one given when given (the payload's
  // timeline section starts with version, origin, trace end, trace events, limit).
  auto limit_in_page = [&](const std::string& extra) {
    std::string out = test::tmp_path("chart_bound.html");
    test::RunResult r = test::run(test::binary() + " flamegraph " + db + " -o " + out + extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    html_payload::Decoded d =
        html_payload::decode(html_payload::payload_of(test::read_file(out)), by_default.columns.size());
    if (!d.sections.count(1)) return uint64_t(0);
    html_payload::ByteReader br{d.sections.at(1)};
    br.varint();
    br.zigzag();
    br.varint();
    br.varint();
    return br.varint();
  };
  EXPECT_EQ(limit_in_page(""), kStreamedChartEvents);
  EXPECT_EQ(limit_in_page(" --timeline-events 1000000"), 1000000u);
  EXPECT_EQ(limit_in_page(" --timeline-events 300"), 300u);
  EXPECT_EQ(limit_in_page(" --timeline-events 0"), 0u);
}

// A damaged page in the middle of the host table, while the task tables are decoded ahead
// behind it: the read ends with the page's error. (The scans ahead waiting for room and for each
// other used to deadlock here, so the run hung instead of failing.)
TEST(AscendStream, ADamagedHostPageFailsWhileTablesAreDecodedAhead) {
  Gen g;
  g.threads = 2;
  g.steps = 40;
  g.calls_per_step = 600;
  g.seed = 3;
  std::string db = make_generated_db("gen_big_damaged_0.db", g);
  int64_t root = 0, tasks = 0, page_size = 0;
  {
    sqlite::Db d = sqlite::Db::open(db);
    root = d.scalar("SELECT rootpage FROM sqlite_master WHERE name = 'PYTORCH_API'", "test");
    tasks = d.scalar("SELECT COUNT(*) FROM TASK", "test");
    page_size = d.scalar("PRAGMA page_size", "test");
  }
  ASSERT_GT(tasks, 5 * 4096) << "the TASK scan ahead must fill its queue for this test";
  std::string bytes = test::read_file(db);
  auto at = [&](int64_t page) { return reinterpret_cast<unsigned char*>(bytes.data()) + (page - 1) * page_size + (page == 1 ? 100 : 0); };
  // From the root down through middle children to a leaf: its page type made invalid.
  int64_t page = root;
  while (at(page)[0] == 0x05) {
    const unsigned char* h = at(page);
    const unsigned cells = (h[3] << 8) | h[4];
    const unsigned char* ptr = h + 12 + 2 * (cells / 2);
    const unsigned char* cell = reinterpret_cast<unsigned char*>(bytes.data()) + (page - 1) * page_size + ((ptr[0] << 8) | ptr[1]);
    page = (int64_t(cell[0]) << 24) | (cell[1] << 16) | (cell[2] << 8) | cell[3];
  }
  ASSERT_EQ(at(page)[0], 0x0D) << "a table leaf page";
  at(page)[0] = 0x7F;
  const std::string damaged = test::write_file("gen_big_damaged_1.db", bytes);
  ReadOptions o;
  o.stacks = "callchain";  // the callchain frames come last: the task tables are decoded ahead
  try {
    read_ascend(damaged, o);
    ADD_FAILURE() << "a damaged page read without an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("page " + std::to_string(page)), std::string::npos) << e.what();
  }
}

TEST(AscendStream, StepsAreRefusedAsBefore) {
  std::string db = make_generated_db("gen_steps_0.db", Gen{});
  ReadOptions o;
  o.steps = "2";
  std::string want, got;
  try {
    read_ascend_in_memory(db, o);
  } catch (const UsageError& e) {
    want = e.what();
  }
  try {
    read_ascend(db, o);
  } catch (const UsageError& e) {
    got = e.what();
  }
  EXPECT_FALSE(want.empty());
  EXPECT_EQ(got, want);
}

TEST(AscendStreamReal, EveryRealDbMatches) {
  REQUIRE_SHARED("data/ascend");
  size_t files = 0;
  for (auto& entry : std::filesystem::recursive_directory_iterator(shared_path + "data/ascend")) {
    if (entry.path().extension() != ".db") continue;
    ++files;
    for (const test::OptionCase& c : option_cases()) {
      SCOPED_TRACE(entry.path().string() + " " + c.what);
      test::expect_same_outcome(entry.path().string(), c.o, read_ascend_in_memory, read_ascend);
    }
  }
  EXPECT_GE(files, 4u);
}
