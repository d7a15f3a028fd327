// The streaming nsys flame-graph path (read_nsys: TraceBuilder, spools, sort-merge launch join)
// against the timeline + build_profile (read_nsys_in_memory): the same Profile, node for node,
// on generated exports with every oddity the reader handles, under the selection options, with
// spools that fit in memory and spools so small that every sort spills.
#include <random>
#include <string>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/readers/sqlite/nsys.h"
#include "profile_compare.h"
#include "sqlite_fixture.h"
#include "test_support.h"

using namespace flamefold;

namespace {

int64_t gtid(int64_t pid, int64_t tid) { return (int64_t{1} << 48) | (pid << 24) | tid; }

struct Gen {
  int processes = 2, threads = 2, steps = 6, calls_per_step = 60;
  unsigned seed = 1;
  bool wrappers = true, backtraces = true;
};

// Per thread: NVTX push/pop ranges (ProfilerStep#N, nested, some sticking out, one domain),
// CUDA runtime/driver calls inside them launching kernels, memcpys and memsets; start/end
// ranges and marks; CUPTI ids reused by the other process; wrapper rows (eventClass 67) that
// share a runtime row's id, and one that shares none; backtraces (some missing); rows without
// times, without a thread, ending before they start; device work without a launch.
std::string make_generated_export(const std::string& name, const Gen& g) {
  std::mt19937_64 rng(g.seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  std::string sql = R"(
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames(nameId INTEGER, priority INTEGER, globalTid INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER, contextId INTEGER,
  streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
  streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
  streamId INTEGER, correlationId INTEGER, globalPid INTEGER, value INTEGER, bytes INTEGER, memKind INTEGER);
CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT, globalTid INTEGER,
  textId INTEGER, domainId INTEGER);
CREATE TABLE CUDA_CALLCHAINS(id INTEGER, symbol INTEGER, module INTEGER, unwindMethod INTEGER, stackDepth INTEGER);
INSERT INTO StringIds VALUES (1,'cudaLaunchKernel_v7000'),(2,'cudaMemcpyAsync_v3020'),(3,'cuMemsetD8_v2'),(4,'gemm'),
  (5,'relu'),(6,'softmax'),(7,'registered fwd'),(8,'main'),(9,'libtorch.so'),(10,'at::mm'),(11,'py::call'),
  (12,'worker'),(13,'cudaStreamSynchronize_v3020');
)";
  if (g.backtraces)
    for (int c = 0; c < 6; ++c)
      for (int d = 0; d <= c % 3; ++d)
        sql += "INSERT INTO CUDA_CALLCHAINS VALUES (" + std::to_string(c) + ", " + std::to_string(8 + (c + d) % 4) + ", 9, 0, " +
               std::to_string(d) + ");\n";
  std::string nvtx, runtime, kernels, memcpys, memsets;
  auto row = [](std::string& to, const std::vector<std::string>& v) {
    to += "(";
    for (size_t i = 0; i < v.size(); ++i) to += (i ? ", " : "") + v[i];
    to += "),\n";
  };
  auto n = [](int64_t v) { return std::to_string(v); };
  sql += "INSERT INTO NVTX_EVENTS(start,end,eventType,text,globalTid,domainId) VALUES (1, NULL, 75, 'mydomain', " +
         n(gtid(100, 100)) + ", 3);\n";
  for (int p = 0; p < g.processes; ++p) {
    const int64_t pid = 100 + p, gp = gtid(pid, 0);
    int64_t corr = 1;  // CUPTI ids restart in every process
    for (int th = 0; th < g.threads; ++th) {
      const int64_t tg = gtid(pid, pid + th);
      if (th == 1) sql += "INSERT INTO ThreadNames VALUES (12, 0, " + n(tg) + ");\n";
      int64_t t = 1000000 + p * 777 + th * 333;
      for (int step = 0; step < g.steps; ++step) {
        const int64_t step_start = t;
        std::vector<std::pair<int64_t, int64_t>> open;
        for (int k = 0; k < g.calls_per_step; ++k) {
          t += 50 + pick(200);
          int64_t b = t, e = t + 20 + pick(300);
          // An NVTX range around some calls, sometimes in the other domain, sometimes sticking out.
          if (pick(4) == 0) {
            int64_t rb = b - 10, re = e + 10 + (pick(15) == 0 ? 400 : 0);
            bool registered = pick(3) == 0;
            row(nvtx, {n(rb), n(re), "59", registered ? "NULL" : "'r" + std::to_string(pick(5)) + "'", n(tg),
                       registered ? "7" : "NULL", pick(6) == 0 ? "3" : "0"});
          }
          int roll = pick(60);
          int64_t id = corr++;
          int api = 1 + pick(3);
          std::string cls = api == 3 ? "1" : "0";
          std::string start = n(b), end = n(e), thread = n(tg);
          if (roll == 0) start = "NULL";
          else if (roll == 1) thread = "NULL";
          else if (roll == 2) end = n(b - 5);
          std::string chain = g.backtraces && pick(3) == 0 ? n(pick(8)) : "NULL";
          // Some exports put the backtrace on the wrapper row only (its frames then hold the call).
          const bool wrapped = g.wrappers && pick(10) == 0;
          std::string wrapper_chain = g.backtraces && pick(2) == 0 ? n(pick(8)) : chain;
          if (wrapped && wrapper_chain != "NULL" && pick(2) == 0) chain = "NULL";
          row(runtime, {start, end, cls, thread, n(id), n(api), "0", chain});
          if (wrapped) row(runtime, {n(b - 2), n(e + 2), "67", n(tg), n(id), "13", "0", wrapper_chain});
          if (g.wrappers && pick(40) == 0) row(runtime, {n(b + 1), n(b + 3), "67", n(tg), n(corr++), "13", "0", "NULL"});
          int64_t db = e + pick(500), de = db + 10 + pick(800);
          std::string stream = n(7 + pick(3));
          if (api == 1) row(kernels, {n(db), n(de), "0", "1", stream, n(id), n(gp), "4", n(4 + pick(3))});
          else if (api == 2) row(memcpys, {n(db), n(de), "0", "1", stream, n(id), n(gp), "4096", n(1 + pick(13))});
          else row(memsets, {n(db), n(de), "0", "1", stream, n(id), n(gp), "0", "64", "2"});
          if (pick(50) == 0) row(kernels, {n(db), n(de), "1", "1", "9", n(900000 + k), n(gp), "4", "5"});  // no launch
        }
        row(nvtx, {n(step_start - 5), n(t + 400), "59", "'ProfilerStep#" + std::to_string(step) + "'", n(tg), "NULL", "0"});
        row(nvtx, {n(step_start), n(step_start + 100), "60", "'async'", n(tg), "NULL", "0"});
        row(nvtx, {n(step_start + 7), "NULL", "34", "'mark'", n(tg), "NULL", "0"});
        t += 1000;
      }
    }
  }
  auto insert = [&](const char* table, const char* cols, std::string& rows) {
    if (rows.empty()) return;
    rows.resize(rows.size() - 2);
    sql += std::string("INSERT INTO ") + table + cols + " VALUES " + rows + ";\n";
  };
  insert("NVTX_EVENTS", "(start,end,eventType,text,globalTid,textId,domainId)", nvtx);
  insert("CUPTI_ACTIVITY_KIND_RUNTIME", "", runtime);
  insert("CUPTI_ACTIVITY_KIND_KERNEL", "", kernels);
  insert("CUPTI_ACTIVITY_KIND_MEMCPY", "", memcpys);
  insert("CUPTI_ACTIVITY_KIND_MEMSET", "", memsets);
  return test::make_db(name, sql);
}

std::vector<test::OptionCase> option_cases() {
  test::OptionCases cases;
  auto add = [&](std::string what, auto set) { cases.add(std::move(what), set); };
  add("default", [](ReadOptions&) {});
  add("--weight gpu", [](ReadOptions& o) { o.weight = "gpu"; });
  add("--stacks backtrace", [](ReadOptions& o) { o.stacks = "backtrace"; });
  add("--stacks backtrace --categories cuda-api,nvtx", [](ReadOptions& o) {
    o.stacks = "backtrace";
    o.categories = {"cuda-api", "nvtx"};
  });
  add("--categories nvtx,kernel", [](ReadOptions& o) { o.categories = {"nvtx", "kernel"}; });
  add("--thread worker", [](ReadOptions& o) { o.threads = {"worker"}; });
  add("--steps 2-3", [](ReadOptions& o) { o.steps = "2-3"; });
  add("--window", [](ReadOptions& o) {
    o.window_start_ns = 3000;
    o.window_end_ns = 40000;
  });
  add("--group-by thread", [](ReadOptions& o) { o.group_by = "thread"; });
  add("--group-by none", [](ReadOptions& o) { o.group_by = "none"; });
  add("-j 1", [](ReadOptions& o) { o.threads_to_use = 1; });
  add("flame chart", [](ReadOptions& o) { o.chart_events = 1000000; });
  add("flame chart of 500 events", [](ReadOptions& o) { o.chart_events = 500; });
  add("flame chart of 40 events, --steps 1-4", [](ReadOptions& o) {
    o.chart_events = 40;
    o.steps = "1-4";
  });
  return cases.all;
}

void expect_streaming_matches(const std::string& db) {
  for (const test::OptionCase& c : option_cases()) {
    for (size_t spool : {size_t(0), size_t(4096)}) {
      SCOPED_TRACE(c.what + (spool ? " (tiny spools)" : ""));
      ReadOptions o = c.o;
      o.spool_bytes = spool;
      test::expect_same_profile(read_nsys(db, o), read_nsys_in_memory(db, o));
    }
  }
}

}  // namespace

TEST(NsysStream, MatchesTheTimelineBuildOnAGeneratedExport) {
  expect_streaming_matches(make_generated_export("gen_0.sqlite", Gen{}));
}

TEST(NsysStream, MatchesWithoutWrappersOrBacktraces) {
  Gen g;
  g.processes = 1;
  g.threads = 4;
  g.seed = 5;
  g.wrappers = false;
  g.backtraces = false;
  expect_streaming_matches(make_generated_export("gen_1.sqlite", g));
}

TEST(NsysStream, AWrappersBacktraceStaysAboveTheCallItWraps) {
  // The runtime call has no backtrace; the wrapper row around it (same correlation id) has one.
  std::string g = std::to_string(gtid(100, 100)), gp = std::to_string(gtid(100, 0));
  std::string db = test::make_db("wrapped.sqlite", R"(
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER, contextId INTEGER,
  streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);
CREATE TABLE CUDA_CALLCHAINS(id INTEGER, symbol INTEGER, module INTEGER, unwindMethod INTEGER, stackDepth INTEGER);
INSERT INTO StringIds VALUES (1,'cudaLaunchKernel_v7000'),(2,'cudaLaunchKernel'),(3,'main'),(4,'app'),(5,'gemm');
INSERT INTO CUDA_CALLCHAINS VALUES (0, 3, 4, 0, 1), (0, 1, 4, 0, 0);
)" + std::string("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 200, 0, ") + g + ", 7, 1, 0, NULL), (90, 210, 67, " + g +
                                                     ", 7, 2, 0, 0);" +
                                                     "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (300, 400, 0, 1, 7, 7, " + gp +
                                                     ", 5, 5);");
  ReadOptions o;
  o.stacks = "backtrace";
  test::RunResult r = test::flamefold("collapse --stacks backtrace --weight gpu " + db);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("thread 100;app:main;app:cudaLaunchKernel_v7000;cudaLaunchKernel;gemm 100\n"), std::string::npos) << r.out;
  test::expect_same_profile(read_nsys(db, o), read_nsys_in_memory(db, o));
}

TEST(NsysStream, WrapperRowsAreLeftOutAndCounted) {
  std::string db = make_generated_export("gen_wrappers.sqlite", Gen{});
  Profile p = read_nsys(db, ReadOptions{});
  uint64_t wrappers = 0;
  for (const Counter& c : p.counters)
    if (c.what.find("wrapper rows") != std::string::npos) wrappers = c.count;
  EXPECT_GT(wrappers, 0u);
}

TEST(NsysStreamReal, EveryRealExportMatches) {
  REQUIRE_SHARED("data/nsys");
  size_t files = 0;
  for (auto& entry : std::filesystem::recursive_directory_iterator(shared_path + "data/nsys")) {
    if (entry.path().extension() != ".sqlite") continue;
    ++files;
    for (const test::OptionCase& c : option_cases()) {
      SCOPED_TRACE(entry.path().string() + " " + c.what);
      test::expect_same_outcome(entry.path().string(), c.o, read_nsys_in_memory, read_nsys);
    }
  }
  EXPECT_GE(files, 5u);
}
