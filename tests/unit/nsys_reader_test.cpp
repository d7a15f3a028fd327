// Nsight Systems SQLite reader: fixtures for each export column set, built here with the
// SQLite C API, plus malformed databases.
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "flamefold/errors.h"
#include "flamefold/readers/sqlite/nsys.h"
#include "sqlite_fixture.h"
#include "test_support.h"

using namespace flamefold;

namespace {

using test::make_db;

// globalTid = (1 << 48) | (pid << 24) | tid, as nsys writes it.
int64_t gtid(int64_t pid, int64_t tid) { return (int64_t{1} << 48) | (pid << 24) | tid; }

std::string nsys_2024_schema() {
  return R"(
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames(nameId INTEGER, priority INTEGER, globalTid INTEGER);
CREATE TABLE PROCESSES(globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE TARGET_INFO_GPU(vmId INTEGER, id INTEGER, name TEXT, busLocation TEXT, isDiscrete INTEGER);
CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER, contextId INTEGER,
  greenContextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,
  shortName INTEGER, mangledName INTEGER, launchType INTEGER, gridX INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
  greenContextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
  streamId INTEGER, correlationId INTEGER, globalPid INTEGER, value INTEGER, bytes INTEGER, memKind INTEGER);
CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
)";
}

// One process (pid 100, main thread 100) launching two kernels inside NVTX "step" > "fwd".
std::string nsys_2024_rows() {
  std::string g = std::to_string(gtid(100, 100)), gp = std::to_string(gtid(100, 0));
  return "INSERT INTO StringIds VALUES (0,'[Unknown]'),(1,'cudaLaunchKernel_v7000'),(2,'gemm'),(3,'relu'),"
         "(4,'void gemm<float>(...)'),(5,'python3'),(6,'cudaMemcpyAsync_v3020'),(7,'registered fwd'),(8,'cuMemsetD8_v2');"
         "INSERT INTO ThreadNames VALUES (5, 0, " + g + ");"
         "INSERT INTO PROCESSES VALUES (" + gp + ", 100, 'python3 train.py');"
         "INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA A100', '0000:01:00.0', 1);"
         "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION','2024.5.1'),('EXPORT_SCHEMA_VERSION','3.13.2');"
         "INSERT INTO NVTX_EVENTS(start,end,eventType,text,globalTid,domainId) VALUES (1000, 9000, 59, 'step', " + g + ", 0);"
         "INSERT INTO NVTX_EVENTS(start,end,eventType,textId,globalTid,domainId) VALUES (1500, 5000, 59, 7, " + g + ", 0);"
         "INSERT INTO NVTX_EVENTS(start,end,eventType,text,globalTid,domainId) VALUES (500, NULL, 75, 'mydomain', " + g + ", 3);"
         "INSERT INTO NVTX_EVENTS(start,end,eventType,text,globalTid,domainId) VALUES (6000, 8000, 59, 'bwd', " + g + ", 3);"
         "INSERT INTO NVTX_EVENTS(start,end,eventType,text,globalTid,domainId) VALUES (2000, 7000, 60, 'async', " + g + ", 0);"
         "INSERT INTO NVTX_EVENTS(start,end,eventType,text,globalTid,domainId) VALUES (2500, NULL, 34, 'mark', " + g + ", 0);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (2000, 2100, 0, " + g + ", 11, 1, 0, NULL);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (3000, 3100, 0, " + g + ", 12, 1, 0, NULL);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (6500, 6600, 0, " + g + ", 13, 6, 0, NULL);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (7000, 7050, 1, " + g + ", 14, 8, 0, NULL);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2200, 2700, 0, 1, NULL, 7, 11, " + gp + ", 4, 2, NULL, 1, 1);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (3300, 4100, 0, 1, NULL, 7, 12, " + gp + ", 4, 3, NULL, 1, 1);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (6700, 6900, 0, 1, NULL, 13, 13, " + gp + ", 4096, 1);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (7100, 7200, 0, 1, 13, 14, " + gp + ", 0, 64, 2);";
}

std::map<std::string, size_t> kinds(const Timeline& tl) {
  std::map<std::string, size_t> n;
  static const char* names[] = {"host", "launch", "kernel", "memcpy", "memset", "devann", "instant", "other"};
  for (size_t i = 0; i < tl.size(); ++i) ++n[names[static_cast<int>(tl.kind[i])]];
  return n;
}

size_t find_event(const Timeline& tl, std::string_view name) {
  for (size_t i = 0; i < tl.size(); ++i)
    if (tl.symbols.name(tl.frame[i]) == name) return i;
  return SIZE_MAX;
}

}  // namespace

TEST(NsysReader, CleansAbiSuffixes) {
  EXPECT_EQ(clean_api_name("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(clean_api_name("cuMemFree_v2"), "cuMemFree");
  EXPECT_EQ(clean_api_name("cudaGetDeviceProperties_v2_v12000"), "cudaGetDeviceProperties_v2");
  EXPECT_EQ(clean_api_name("cudaMalloc"), "cudaMalloc");
  EXPECT_EQ(clean_api_name("v2"), "v2");
  EXPECT_EQ(clean_api_name("foo_3"), "foo_3");
}

TEST(NsysReader, Reads2024ExportWithEveryActivity) {
  std::string db = make_db("r.sqlite", nsys_2024_schema() + nsys_2024_rows());
  NsysTrace t = read_nsys_trace(db, ReadOptions{}, NsysOptions{});
  const Timeline& tl = t.timeline;
  auto n = kinds(tl);
  EXPECT_EQ(n["kernel"], 2u);
  EXPECT_EQ(n["memcpy"], 1u);
  EXPECT_EQ(n["memset"], 1u);
  EXPECT_EQ(n["launch"], 4u);
  EXPECT_EQ(n["host"], 4u);  // step, registered fwd, bwd, async (start/end)
  EXPECT_EQ(n["instant"], 1u);
  // Runtime and driver names come out clean; NVTX textId resolves through StringIds.
  EXPECT_NE(find_event(tl, "cudaLaunchKernel"), SIZE_MAX);
  EXPECT_NE(find_event(tl, "cuMemsetD8"), SIZE_MAX);
  EXPECT_EQ(find_event(tl, "cudaLaunchKernel_v7000"), SIZE_MAX);
  EXPECT_NE(find_event(tl, "registered fwd"), SIZE_MAX);
  EXPECT_NE(find_event(tl, "Memcpy HtoD"), SIZE_MAX);
  // Kernel names are the short names; the thread is named from ThreadNames; pid/tid decoded.
  size_t k = find_event(tl, "gemm");
  ASSERT_NE(k, SIZE_MAX);
  const Track& dev = tl.tracks[tl.track[k]];
  EXPECT_TRUE(dev.device);
  EXPECT_EQ(dev.device_index, 0);
  EXPECT_EQ(dev.tid, 7);
  EXPECT_EQ(tl.correlation[k], (uint64_t{100} << 32) | 11u);  // pid above the per-process id
  size_t step = find_event(tl, "step");
  const Track& host = tl.tracks[tl.track[step]];
  EXPECT_EQ(host.pid, 100);
  EXPECT_EQ(host.tid, 100);
  EXPECT_EQ(tl.symbols.strings[host.name], "python3");
  // A named domain becomes the category.
  size_t bwd = find_event(tl, "bwd");
  EXPECT_EQ(tl.symbols.category_name(tl.symbols[tl.frame[bwd]].category), "nvtx:mydomain");
  ASSERT_EQ(t.side.device_names.size(), 1u);
  EXPECT_EQ(t.side.device_names[0].second, "NVIDIA A100");
  ASSERT_EQ(t.side.bytes.size(), 2u);
  EXPECT_EQ(t.side.bytes[0].second, 4096);
  bool version_fact = false;
  for (auto& [k2, v] : tl.facts) version_fact |= (k2 == "nsys version" && v == "2024.5.1");
  EXPECT_TRUE(version_fact);
}

TEST(NsysReader, FlamegraphModeLeavesOutMarksAndStartEndRanges) {
  std::string db = make_db("r.sqlite", nsys_2024_schema() + nsys_2024_rows());
  NsysOptions o;
  o.for_flamegraph = true;
  NsysTrace t = read_nsys_trace(db, ReadOptions{}, o);
  auto n = kinds(t.timeline);
  EXPECT_EQ(n["instant"], 0u);
  EXPECT_EQ(n["host"], 3u);
  uint64_t counted = 0;
  for (const Counter& c : t.timeline.counters) counted += c.count;
  EXPECT_EQ(counted, 2u);
}

TEST(NsysReader, NvtxPrefixFilterUsesResolvedNames) {
  std::string db = make_db("r.sqlite", nsys_2024_schema() + nsys_2024_rows());
  NsysOptions o;
  o.nvtx_prefixes = {"reg", "bw"};
  NsysTrace t = read_nsys_trace(db, ReadOptions{}, o);
  EXPECT_NE(find_event(t.timeline, "registered fwd"), SIZE_MAX);
  EXPECT_NE(find_event(t.timeline, "bwd"), SIZE_MAX);
  EXPECT_EQ(find_event(t.timeline, "step"), SIZE_MAX);
}

TEST(NsysReader, Oldest2020ColumnSet) {
  // lockfuehrer-era: no mangledName/sharedMemoryLimitConfig, no callchainId, no NVTX table,
  // GPU names in TARGET_INFO_CUDA_GPU(deviceId, name).
  std::string g = std::to_string(gtid(7, 8)), gp = std::to_string(gtid(7, 0));
  std::string db = make_db("old.sqlite", std::string(R"(
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER, launchType INTEGER, cacheConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER, returnValue INTEGER);
CREATE TABLE TARGET_INFO_CUDA_GPU(vmId INTEGER, name TEXT, pciBusId TEXT, deviceId INTEGER);
INSERT INTO StringIds VALUES (1,'k1'),(2,'cudaLaunch_v3020');
INSERT INTO TARGET_INFO_CUDA_GPU VALUES (0, 'Tesla V100', 'x', 1);
)") + "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10, 20, 0, " + g + ", 5, 2, 0);"
       "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (30, 90, 1, 1, 3, 5, " + gp + ", 1, 1, 0, 0);");
  NsysTrace t = read_nsys_trace(db, ReadOptions{}, NsysOptions{});
  auto n = kinds(t.timeline);
  EXPECT_EQ(n["kernel"], 1u);
  EXPECT_EQ(n["launch"], 1u);
  EXPECT_NE(find_event(t.timeline, "cudaLaunch"), SIZE_MAX);
  ASSERT_EQ(t.side.device_names.size(), 1u);
  EXPECT_EQ(t.side.device_names[0].first, 1);
  EXPECT_EQ(t.side.device_names[0].second, "Tesla V100");
}

TEST(NsysReader, Newest2025ColumnSetWithExtraColumns) {
  // 2025.5+: extra kernel columns after the known ones, binaryData in NVTX; 41-column TARGET_INFO_GPU uses id.
  std::string g = std::to_string(gtid(3, 4)), gp = std::to_string(gtid(3, 0));
  std::string db = make_db("new.sqlite", std::string(R"(
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, greenContextId INTEGER,
  streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER, mangledName INTEGER,
  qmdBulkReleaseDone INTEGER, graphId INTEGER, clusterX INTEGER, maxActiveClusters INTEGER);
CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, text TEXT, globalTid INTEGER, textId INTEGER,
  domainId INTEGER, binaryData TEXT);
INSERT INTO StringIds VALUES (1,'flash_attn');
)") + "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 200, 2, 1, 0, 9, 1, " + gp + ", 1, 1, 1, 0, 0, 1, 1);"
       "INSERT INTO NVTX_EVENTS VALUES (50, 250, 59, 'layer', " + g + ", NULL, 0, NULL);");
  NsysTrace t = read_nsys_trace(db, ReadOptions{}, NsysOptions{});
  auto n = kinds(t.timeline);
  EXPECT_EQ(n["kernel"], 1u);
  EXPECT_EQ(n["host"], 1u);
  size_t k = find_event(t.timeline, "flash_attn");
  ASSERT_NE(k, SIZE_MAX);
  EXPECT_EQ(t.timeline.tracks[t.timeline.track[k]].device_index, 2);
}

TEST(NsysReader, WrapperRowsSharingACorrelationId) {
  // pipit saxpy: eventClass 67 "cudaMalloc" wraps eventClass 0 "cudaMalloc_v3020" under one correlation id.
  std::string g = std::to_string(gtid(1, 1));
  std::string db = make_db("w.sqlite", std::string(R"(
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER, name TEXT);
INSERT INTO StringIds VALUES (1,'cudaMalloc'),(2,'cudaMalloc_v3020');
)") + "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 400, 67, " + g + ", 9, 1, 0, 0, NULL);"
       "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (110, 390, 0, " + g + ", 9, 2, 0, NULL, NULL);");
  NsysTrace t = read_nsys_trace(db, ReadOptions{}, NsysOptions{});
  auto n = kinds(t.timeline);
  EXPECT_EQ(n["launch"], 1u);
  EXPECT_EQ(n["other"], 1u);
  for (size_t i = 0; i < t.timeline.size(); ++i)
    EXPECT_EQ(t.timeline.kind[i], t.timeline.start[i] == 100 ? EventKind::Other : EventKind::Launch);
  NsysOptions o;
  o.for_flamegraph = true;
  NsysTrace f = read_nsys_trace(db, ReadOptions{}, o);
  ASSERT_EQ(f.timeline.size(), 1u);
  EXPECT_EQ(f.timeline.start[0], 110);
}

TEST(NsysReader, BacktracesChainAboveTheCall) {
  std::string g = std::to_string(gtid(1, 2));
  std::string db = make_db("bt.sqlite", std::string(R"(
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
CREATE TABLE CUDA_CALLCHAINS(id INTEGER, symbol INTEGER, module INTEGER, unresolved INTEGER, originalIP INTEGER, stackDepth INTEGER);
INSERT INTO StringIds VALUES (1,'cudaMemcpy_v3020'),(2,'main'),(3,'copy_data'),(4,'libcudart.so'),(5,'app');
INSERT INTO CUDA_CALLCHAINS VALUES (7, 4, 4, 0, 0, 0), (7, 3, 5, 0, 0, 1), (7, 2, 5, 0, 0, 2);
)") + "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10, 50, 0, " + g + ", 1, 1, 0, 7);");
  NsysOptions o;
  o.for_flamegraph = true;
  o.backtraces = true;
  NsysTrace t = read_nsys_trace(db, ReadOptions{}, o);
  const Timeline& tl = t.timeline;
  ASSERT_EQ(tl.size(), 4u);
  size_t call = find_event(tl, "cudaMemcpy"), main_ev = find_event(tl, "main"), copy = find_event(tl, "copy_data");
  ASSERT_NE(call, SIZE_MAX);
  EXPECT_EQ(tl.parent_hint[main_ev], kNone);  // outermost: placed by time
  EXPECT_EQ(tl.parent_hint[copy], main_ev);
  size_t leaf_frame = tl.parent_hint[call];
  EXPECT_EQ(tl.symbols.name(tl.frame[leaf_frame]), "libcudart.so");
  EXPECT_EQ(tl.parent_hint[leaf_frame], copy);
  EXPECT_EQ(tl.symbols.file(tl.frame[copy]), "app");
}

TEST(NsysReader, MissingTablesMeanTheActivityIsAbsent) {
  std::string db = make_db("empty.sqlite", "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);");
  NsysTrace t = read_nsys_trace(db, ReadOptions{}, NsysOptions{});
  EXPECT_EQ(t.timeline.size(), 0u);
  EXPECT_TRUE(t.timeline.counters.empty());
}

TEST(NsysReader, NullsAndWrongTypesAreCountedNotFatal) {
  std::string g = std::to_string(gtid(1, 2));
  std::string db = make_db("nulls.sqlite", R"(
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName, shortName);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start, end, eventClass, globalTid, correlationId, nameId, returnValue);
CREATE TABLE NVTX_EVENTS(start, end, eventType, text, globalTid, textId, domainId);
INSERT INTO StringIds VALUES (1, NULL), (NULL, 'x');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, NULL, NULL, NULL, NULL, NULL, NULL, 999);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ('abc', x'00ff', 'dev', 1.5, NULL, NULL, NULL, NULL, 'name');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (50, 40, 0, 0, 0, 0, 0, 0, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1, 2, NULL, NULL, NULL, NULL, NULL);
INSERT INTO NVTX_EVENTS VALUES (NULL, NULL, 59, NULL, NULL, NULL, NULL);
INSERT INTO NVTX_EVENTS VALUES (5, NULL, 59, NULL, 1, NULL, NULL);
INSERT INTO NVTX_EVENTS VALUES (5, 9, 59, NULL, 1, 12345, NULL);
)");
  NsysTrace t = read_nsys_trace(db, ReadOptions{}, NsysOptions{});
  const Timeline& tl = t.timeline;
  EXPECT_NE(find_event(tl, "[unknown kernel]"), SIZE_MAX);
  EXPECT_NE(find_event(tl, "[unnamed NVTX range]"), SIZE_MAX);
  uint64_t counted = 0;
  for (const Counter& c : tl.counters) counted += c.count;
  EXPECT_GE(counted, 5u);
}

TEST(NsysReader, MalformedFilesGiveOneLineErrors) {
  std::string text = test::write_file("notdb.sqlite", "this is not a database\n");
  EXPECT_THROW(read_nsys_trace(text, ReadOptions{}, NsysOptions{}), InputError);
  std::string dir = test::tmp_path("adir.sqlite");
  std::filesystem::create_directories(dir);
  EXPECT_THROW(read_nsys_trace(dir, ReadOptions{}, NsysOptions{}), InputError);
  EXPECT_THROW(read_nsys_trace(test::tmp_path("missing.sqlite"), ReadOptions{}, NsysOptions{}), InputError);
  // An SQLite DB without StringIds (an Ascend DB, say) is not an nsys export.
  std::string other = make_db("other.sqlite", "CREATE TABLE STRING_IDS(id INTEGER, value TEXT);");
  try {
    read_nsys_trace(other, ReadOptions{}, NsysOptions{});
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("StringIds"), std::string::npos);
  }
  // A truncated database: the header survives, the pages do not.
  std::string full = make_db("full.sqlite", nsys_2024_schema() + nsys_2024_rows());
  std::string bytes = test::read_file(full);
  for (size_t keep : {size_t{100}, size_t{4096}, bytes.size() / 2, bytes.size() - 1000}) {
    std::string cut = test::write_file("cut" + std::to_string(keep) + ".sqlite", bytes.substr(0, std::min(keep, bytes.size())));
    try {
      read_nsys_trace(cut, ReadOptions{}, NsysOptions{});
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(cut), std::string::npos);
    }
  }
}

TEST(NsysReader, CliErrorsExitTwoWithoutOutput) {
  std::string text = test::write_file("bad.sqlite", "SQLite format 3");
  std::string out = test::tmp_path("out.json");
  test::RunResult r = test::flamefold("convert " + text + " -o " + out + " --format nsys");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_NE(r.err.find("bad.sqlite"), std::string::npos);
}

TEST(NsysReader, CliFlamegraphCpuAndGpuViews) {
  std::string db = make_db("r.sqlite", nsys_2024_schema() + nsys_2024_rows());
  std::string cpu = test::tmp_path("cpu.folded"), gpu = test::tmp_path("gpu.folded");
  test::RunResult r = test::flamefold("collapse " + db + " -o " + cpu);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = test::read_file(cpu);
  // NVTX push/pop nesting with the CUDA call as leaf (the textId name resolved).
  EXPECT_NE(text.find("step;registered fwd;cudaLaunchKernel 200"), std::string::npos) << text;
  EXPECT_NE(text.find("step;bwd;cudaMemcpyAsync 100"), std::string::npos) << text;
  r = test::flamefold("collapse " + db + " -o " + gpu + " --weight gpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  text = test::read_file(gpu);
  EXPECT_NE(text.find("step;registered fwd;cudaLaunchKernel;gemm 500"), std::string::npos) << text;
  EXPECT_NE(text.find("step;registered fwd;cudaLaunchKernel;relu 800"), std::string::npos) << text;
  // Conservation: every ns of device work appears once (500 + 800 + 200 + 100).
  double total = 0;
  size_t pos = 0;
  while ((pos = text.find('\n', pos)) != std::string::npos) {
    size_t sp = text.rfind(' ', pos);
    total += std::stod(text.substr(sp + 1, pos - sp - 1));
    ++pos;
  }
  EXPECT_DOUBLE_EQ(total, 1600);
}

// --group-by on an nsys export: process > thread by default (as trace viewers group tracks),
// then each coarser level is the same stacks with the levels above them dropped and merged.
TEST(NsysReader, GroupByLevels) {
  std::string db = make_db("r.sqlite", nsys_2024_schema() + nsys_2024_rows());
  test::RunResult by_default = test::flamefold("collapse " + db);
  test::RunResult process = test::flamefold("collapse --group-by process " + db);
  test::RunResult thread = test::flamefold("collapse --group-by thread " + db);
  test::RunResult none = test::flamefold("collapse --group-by none " + db);
  for (const auto* r : {&by_default, &process, &thread, &none}) ASSERT_EQ(r->exit_code, 0) << r->err;
  EXPECT_EQ(process.out, by_default.out);
  EXPECT_EQ(by_default.out.rfind("process ", 0), 0u) << by_default.out;
  EXPECT_EQ(thread.out, test::drop_root_frames(by_default.out, 1));
  EXPECT_EQ(none.out, test::drop_root_frames(by_default.out, 2));
  EXPECT_EQ(none.out.rfind("step 2500\nstep;bwd ", 0), 0u) << none.out;
}
