// The Kineto / Chrome trace reader on fixtures written here: every dialect, exact times, batch
// boundaries everywhere, and bad input (errors with a place, or counted warnings).
#include <gtest/gtest.h>
#include <zlib.h>

#include "flamefold/errors.h"
#include "flamefold/pipeline.h"
#include "flamefold/readers/json/kineto.h"
#include "kineto_test_util.h"
#include "test_support.h"

using namespace flamefold;
using kineto_test::counter;
using kineto_test::fact;
using kineto_test::folded;

namespace {

Profile read_text(const std::string& name, const std::string& json, const ReadOptions& ro = {}) {
  std::string path = test::write_file(name, json);
  return read_profile({path}, ro);
}

// 2022+ dialect: float µs with ns decimals, python ids, ac2g flows, metadata, a rank.
const char* kModern = R"J({
  "schemaVersion": 1,
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8},
  "traceEvents": [
  {"ph": "X", "cat": "python_function", "name": "train.py(10): <module>", "pid": 100, "tid": 100,
   "ts": 1700000000000.000, "dur": 1000.000, "args": {"Python id": 1, "Python parent id": null}},
  {"ph": "X", "cat": "python_function", "name": "model.py(42): forward", "pid": 100, "tid": 100,
   "ts": 1700000000010.500, "dur": 500.250, "args": {"Python id": 2, "Python parent id": 1}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 100,
   "ts": 1700000000020.001, "dur": 100.000, "args": {"External id": 5, "Input Dims": [[2, 2], [2, 2]]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100,
   "ts": 1700000000030.000, "dur": 5.000, "args": {"External id": 5, "cbid": 211, "correlation": 18446744073709551614}},
  {"ph": "s", "id": 18446744073709551614, "pid": 100, "tid": 100, "ts": 1700000000030.000, "cat": "ac2g", "name": "ac2g"},
  {"ph": "X", "cat": "kernel", "name": "gemm \"fp16\"", "pid": 0, "tid": 7,
   "ts": 1700000000200.000, "dur": 123.457, "args": {"device": 0, "stream": 7, "correlation": 18446744073709551614}},
  {"ph": "f", "id": 18446744073709551614, "pid": 0, "tid": 7, "ts": 1700000000200.000, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7,
   "ts": 1700000000400.000, "dur": 1.001, "args": {"correlation": 99}},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "fwd", "pid": 0, "tid": 7, "ts": 1700000000200.000, "dur": 300},
  {"name": "process_name", "ph": "M", "ts": 0, "pid": 100, "tid": 0, "args": {"name": "python3"}},
  {"name": "thread_name", "ph": "M", "ts": 0, "pid": 100, "tid": 100, "args": {"name": "main thread"}},
  {"name": "process_name", "ph": "M", "ts": 0, "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
  {"name": "thread_name", "ph": "M", "ts": 0, "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
  {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 100, "tid": 100, "ts": 1700000000001, "s": "t"},
  {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 1700000000000, "dur": 5000}
  ],
  "traceName": "x.pt.trace.json"
})J";

}  // namespace

TEST(KinetoReader, ParsesDecimalMicrosecondsExactly) {
  int64_t ns = 0;
  EXPECT_TRUE(parse_us_to_ns("1419247333072.495", ns));
  EXPECT_EQ(ns, 1419247333072495);
  EXPECT_TRUE(parse_us_to_ns("1736405443871413.640", ns));  // 16 digits: beyond a double's ns
  EXPECT_EQ(ns, 1736405443871413640);
  EXPECT_TRUE(parse_us_to_ns("5", ns));
  EXPECT_EQ(ns, 5000);
  EXPECT_TRUE(parse_us_to_ns("828.33653125", ns));  // Ascend: sub-ns digits round to nearest
  EXPECT_EQ(ns, 828337);
  EXPECT_TRUE(parse_us_to_ns("-3.5", ns));
  EXPECT_EQ(ns, -3500);
  EXPECT_TRUE(parse_us_to_ns("1.5e3", ns));
  EXPECT_EQ(ns, 1500000);
  EXPECT_TRUE(parse_us_to_ns("0.0004", ns));
  EXPECT_EQ(ns, 0);
  // 19 integer digits: the fast path's accumulator wraps (unsigned, unused); the exact path
  // answers (found by fuzz_kineto under UBSan). Past int64 ns, no number.
  EXPECT_TRUE(parse_us_to_ns("1621401187236132", ns));
  EXPECT_EQ(ns, 1621401187236132000);
  EXPECT_FALSE(parse_us_to_ns("1621401187236132362", ns));
  EXPECT_FALSE(parse_us_to_ns("", ns));
  EXPECT_FALSE(parse_us_to_ns("12a", ns));
  EXPECT_FALSE(parse_us_to_ns("-", ns));
}

TEST(KinetoReader, ModernDialectNestsPythonAndAttributesTheKernel) {
  Profile p = read_text("modern.json", kModern);
  auto gpu = folded(p, "gpu");
  EXPECT_EQ(gpu["python3 (pid 100);main thread;<module>;forward;aten::mm;cudaLaunchKernel;gemm \"fp16\""], 123457);
  EXPECT_EQ(gpu["[unattributed] GPU 0 stream 7;Memset (Device)"], 1001);
  EXPECT_EQ(gpu.size(), 2u);  // the gpu_user_annotation is not work
  auto cpu = folded(p, "cpu");
  EXPECT_EQ(cpu["python3 (pid 100);main thread;<module>;forward"], 500250 - 100000);
  EXPECT_EQ(cpu["python3 (pid 100);main thread;<module>"], 1000000 - 500250);
  EXPECT_EQ(cpu.count("process Spans;thread PyTorch Profiler;PyTorch Profiler (0)"), 0u);
  EXPECT_EQ(fact(p, "rank"), "3");
  // python_function frames carry file and line.
  bool found = false;
  for (FrameId f = 0; f < p.symbols.frame_count(); ++f)
    if (p.symbols.name(f) == "forward") {
      found = true;
      EXPECT_EQ(p.symbols.file(f), "model.py");
      EXPECT_EQ(p.symbols[f].line, 42u);
      EXPECT_EQ(p.symbols.category_name(p.symbols[f].category), "python");
    }
  EXPECT_TRUE(found);
  ASSERT_EQ(p.device_ops.size(), 2u);
  EXPECT_EQ(p.device_ops[0].total_ns, 123457);
}

TEST(KinetoReader, BatchBoundariesAnywhereGiveTheSameProfile) {
  Profile whole = read_text("whole.json", kModern);
  for (size_t chunk : {1, 2, 7, 64, 333}) {
    set_kineto_chunk_bytes(chunk);
    Profile p = read_text("chunked" + std::to_string(chunk) + ".json", kModern);
    set_kineto_chunk_bytes(0);
    EXPECT_EQ(folded(p, "gpu"), folded(whole, "gpu")) << "chunk " << chunk;
    EXPECT_EQ(folded(p, "cpu"), folded(whole, "cpu")) << "chunk " << chunk;
    EXPECT_EQ(fact(p, "rank"), "3");
  }
  // The same trace on one line (minified, like Ascend's trace_view.json): batches are cut
  // after "}," then, and a cut that falls inside a string only delays the batch.
  std::string one_line;
  for (char c : std::string(kModern))
    if (c != '\n') one_line += c;
  one_line.replace(one_line.find("\"name\": \"aten::mm\""), 18, "\"name\": \"aten::mm}, {x\"");
  Profile line_whole = read_text("line.json", one_line);
  EXPECT_EQ(folded(line_whole, "gpu").size(), 2u);
  for (size_t chunk : {3, 50, 400}) {
    set_kineto_chunk_bytes(chunk);
    Profile p = read_text("line" + std::to_string(chunk) + ".json", one_line);
    set_kineto_chunk_bytes(0);
    EXPECT_EQ(folded(p, "gpu"), folded(line_whole, "gpu")) << "chunk " << chunk;
    EXPECT_EQ(folded(p, "cpu"), folded(line_whole, "cpu")) << "chunk " << chunk;
  }
  EXPECT_NE(folded(line_whole, "cpu").count("python3 (pid 100);main thread;<module>;forward;aten::mm}, {x"), 0u);

  set_kineto_portable_parser(true);  // simdjson's generic kernels, for CPUs without AVX2
  set_kineto_chunk_bytes(5);
  Profile portable = read_text("portable.json", kModern);
  set_kineto_chunk_bytes(0);
  set_kineto_portable_parser(false);
  EXPECT_EQ(folded(portable, "gpu"), folded(whole, "gpu"));
  EXPECT_EQ(folded(portable, "cpu"), folded(whole, "cpu"));
}

TEST(KinetoReader, Dialect2021WithStringTidsAndStreamNames) {
  const char* json = R"J({"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "cat": "Operator", "name": "aten::conv2d", "pid": 25738, "tid": "25738", "ts": 1000, "dur": 50,
     "args": {"External id": 3}},
    {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 25738, "tid": 25738, "ts": 1010, "dur": 4,
     "args": {"correlation": 77, "external id": 3, "external ts": 1000}},
    {"ph": "X", "cat": "Kernel", "name": "implicit_gemm", "pid": 0, "tid": "stream 7", "ts": 1100, "dur": 30,
     "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 77, "external id": 3}},
    {"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": "stream 7", "ts": 1200, "dur": 2,
     "args": {"correlation": 78}},
    {"ph": "s", "id": 77, "pid": 25738, "tid": 25738, "ts": 1010, "cat": "async", "name": "launch"},
    {"ph": "f", "id": 77, "pid": 0, "tid": "stream 7", "ts": 1100, "cat": "async", "name": "launch", "bp": "e"}
  ]})J";
  Profile p = read_text("t2021.json", json);
  auto gpu = folded(p, "gpu");
  EXPECT_EQ(gpu["process 25738;thread 25738;aten::conv2d;cudaLaunchKernel;implicit_gemm"], 30000);
  EXPECT_EQ(gpu["[unattributed] GPU 0 stream 7;Memcpy HtoD (Pageable -> Device)"], 2000);
  EXPECT_EQ(folded(p, "cpu")["process 25738;thread 25738;aten::conv2d"], 46000);  // one thread, string or not
}

TEST(KinetoReader, PythonParentIdsPlaceIdenticalIntervalsEvenWhenIdsAreHuge) {
  // Two python frames with the same interval, the child written first: only the ids tell
  // which one is the parent. Ids far apart take the sorted (not the direct-table) lookup.
  const char* json = R"J({"traceEvents": [
    {"ph": "X", "cat": "python_function", "name": "a.py(2): inner", "pid": 1, "tid": 1, "ts": 0, "dur": 10,
     "args": {"Python id": 9223372036854775807, "Python parent id": 5}},
    {"ph": "X", "cat": "python_function", "name": "a.py(1): outer", "pid": 1, "tid": 1, "ts": 0, "dur": 10,
     "args": {"Python id": 5, "Python parent id": 0}}
  ]})J";
  auto calls = folded(read_text("pyids.json", json), "calls");
  EXPECT_EQ(calls["process 1;thread 1;outer;inner"], 1);
  EXPECT_EQ(calls["process 1;thread 1;outer"], 1);
}

TEST(KinetoReader, PythonParentIdsPastTheHintColumnAndRepeatedIdsResolve) {
  // A parent id that does not fit the 4 B hint slot (2^32 - 1 and up) waits in the far list; an
  // id given twice names its first event. Children come first and share their parent's interval.
  const char* json = R"J({"traceEvents": [
    {"ph": "X", "cat": "python_function", "name": "a.py(2): inner", "pid": 1, "tid": 1, "ts": 0, "dur": 10,
     "args": {"Python id": 3, "Python parent id": 4294967295}},
    {"ph": "X", "cat": "python_function", "name": "a.py(1): outer", "pid": 1, "tid": 1, "ts": 0, "dur": 10,
     "args": {"Python id": 4294967295, "Python parent id": null}},
    {"ph": "X", "cat": "python_function", "name": "b.py(2): inner2", "pid": 1, "tid": 1, "ts": 100, "dur": 10,
     "args": {"Python id": 8, "Python parent id": 7}},
    {"ph": "X", "cat": "python_function", "name": "b.py(1): outer2", "pid": 1, "tid": 1, "ts": 100, "dur": 10,
     "args": {"Python id": 7, "Python parent id": null}},
    {"ph": "X", "cat": "python_function", "name": "b.py(9): again", "pid": 1, "tid": 1, "ts": 100, "dur": 10,
     "args": {"Python id": 7, "Python parent id": 8}}
  ]})J";
  auto calls = folded(read_text("pyids_far.json", json), "calls");
  EXPECT_EQ(calls["process 1;thread 1;outer;inner"], 1);
  EXPECT_EQ(calls["process 1;thread 1;outer"], 1);
  EXPECT_EQ(calls["process 1;thread 1;outer2;inner2;again"], 1);  // id 7 is outer2, not `again`
  EXPECT_EQ(calls["process 1;thread 1;outer2;inner2"], 1);
  EXPECT_EQ(calls.size(), 5u);
}

TEST(KinetoReader, FlowIdsSupplyAMissingCorrelation) {
  const char* json = R"J({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 2},
    {"ph": "s", "id": 5, "pid": 1, "tid": 1, "ts": 10, "cat": "ac2g", "name": "ac2g"},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 2, "tid": 0, "ts": 20, "dur": 3},
    {"ph": "f", "id": 5, "pid": 2, "tid": 0, "ts": 20, "cat": "ac2g", "name": "ac2g", "bp": "e"}
  ]})J";
  auto gpu = folded(read_text("flows.json", json), "gpu");
  EXPECT_EQ(gpu["process 1;thread 1;hipLaunchKernel;k"], 3000);
}

TEST(KinetoReader, BareArrayWithStringTimestampsAndNoCategories) {
  // Ascend trace_view.json: a top-level array, string ts, NPU rows told apart by process.
  const char* json = R"J([
    {"ph": "X", "name": "aten::add", "pid": 5, "tid": 6, "ts": "1736405443871413.640", "dur": 10.5, "cat": "cpu_op"},
    {"name": "AscendCL@aclnnAdd", "pid": 9, "tid": 6, "ts": "1736405443871414.000", "dur": 2, "args": {"connection_id": 11}, "ph": "X"},
    {"name": "Add_kernel", "pid": 8, "tid": 2, "ts": "1736405443871420.000", "dur": 1.25, "args": {"connection_id": 11}, "ph": "X"},
    {"name": "AI Core Freq", "ts": "1736405443871413.000", "pid": 7, "tid": 0, "args": {"MHz": 1800}, "ph": "C"},
    {"ph": "M", "name": "process_name", "pid": 5, "tid": 0, "args": {"name": "Python"}},
    {"ph": "M", "name": "process_labels", "pid": 5, "tid": 0, "args": {"labels": "CPU"}},
    {"ph": "M", "name": "process_name", "pid": 9, "tid": 0, "args": {"name": "CANN"}},
    {"ph": "M", "name": "process_labels", "pid": 9, "tid": 0, "args": {"labels": "CPU"}},
    {"ph": "M", "name": "process_name", "pid": 8, "tid": 0, "args": {"name": "Ascend Hardware"}},
    {"ph": "M", "name": "process_labels", "pid": 8, "tid": 0, "args": {"labels": "NPU"}},
    {"ph": "M", "name": "thread_name", "pid": 8, "tid": 2, "args": {"name": "Stream 2"}}
  ])J";
  Profile p = read_text("trace_view.json", json);
  ASSERT_GE(p.column("npu"), 0);
  auto npu = folded(p, "npu");
  EXPECT_EQ(npu["Python (pid 5);thread 6;aten::add;AscendCL@aclnnAdd;Add_kernel"], 1250);
  EXPECT_EQ(folded(p, "cpu")["Python (pid 5);thread 6;aten::add"], 8500);
  EXPECT_EQ(fact(p, "counter events (not drawn)"), "1");
}

TEST(KinetoReader, GzipInputAndBeginEndPairs) {
  std::string json = R"J({"traceEvents": [
    {"ph": "B", "name": "outer", "pid": 1, "tid": 1, "ts": 0, "cat": "user_annotation"},
    {"ph": "B", "name": "inner", "pid": 1, "tid": 1, "ts": 10, "cat": "cpu_op"},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 30},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 100},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 200},
    {"ph": "B", "name": "never closed", "pid": 1, "tid": 1, "ts": 300}
  ]})J";
  std::string path = test::tmp_path("be.json.gz");
  gzFile gz = gzopen(path.c_str(), "wb");
  gzwrite(gz, json.data(), unsigned(json.size()));
  gzclose(gz);
  Profile p = read_profile({path}, {});
  auto cpu = folded(p, "cpu");
  EXPECT_EQ(cpu["process 1;thread 1;outer"], 80000);
  EXPECT_EQ(cpu["process 1;thread 1;outer;inner"], 20000);
  EXPECT_EQ(counter(p, "E events without a matching B"), 1u);
  EXPECT_EQ(counter(p, "B events never closed"), 1u);
}

TEST(KinetoReader, OddEventsAreCountedAndTheRunGoesOn) {
  const char* json = R"J({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "neg", "pid": 1, "tid": 1, "ts": 0, "dur": -5},
    {"ph": "X", "cat": "cpu_op", "name": "nodur", "pid": 1, "tid": 1, "ts": 10},
    {"ph": "X", "cat": "brand_new_cat", "name": "mystery", "pid": 1, "tid": 1, "ts": 20, "dur": 1},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 1, "args": {"correlation": 4}},
    {"ph": "X", "cat": "kernel", "name": "lonely", "pid": 0, "tid": 7, "ts": 40, "dur": 2, "args": {"correlation": 5}},
    {"ph": "X", "cat": "cpu_op", "name": "badts", "pid": 1, "tid": 1, "ts": "soon", "dur": 1},
    42,
    {"ph": "Z", "name": "weird phase"}
  ]})J";
  Profile p = read_text("odd.json", json);
  EXPECT_EQ(counter(p, "negative duration"), 1u);
  EXPECT_EQ(counter(p, "without a usable dur"), 1u);
  EXPECT_EQ(counter(p, "unknown category"), 1u);
  EXPECT_EQ(counter(p, "unreadable ts"), 1u);
  EXPECT_EQ(counter(p, "not objects"), 1u);
  EXPECT_EQ(counter(p, "unsupported phase"), 1u);
  EXPECT_EQ(counter(p, "without a launch"), 1u);
  EXPECT_EQ(fact(p, "launches without device work"), "1");
  EXPECT_EQ(folded(p, "calls")["process 1;thread 1;mystery"], 1);
  EXPECT_EQ(folded(p, "gpu")["[unattributed] GPU 0 stream 7;lonely"], 2000);
}

TEST(KinetoReader, MalformedAndTruncatedInputsAreOneLineErrorsWithAPlace) {
  auto error_of = [](const std::string& name, const std::string& content) -> std::string {
    try {
      read_text(name, content);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  std::string truncated = std::string(kModern).substr(0, std::string(kModern).size() / 2);
  std::string e = error_of("truncated.json", truncated);
  EXPECT_NE(e.find("truncated.json:byte "), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
  e = error_of("garbage.json", R"J({"traceEvents": [{"ph": "X", "ts": 1,, "dur": 2}]})J");
  EXPECT_NE(e.find("garbage.json:byte 17"), std::string::npos) << e;
  e = error_of("noevents.json", R"J({"schemaVersion": 1})J");
  EXPECT_NE(e.find("without traceEvents"), std::string::npos) << e;
  e = error_of("empty.json", "  \n");
  EXPECT_NE(e.find("empty"), std::string::npos) << e;

  // A gzip stream cut in the middle.
  std::string big = "{\"traceEvents\": [";
  for (int i = 0; i < 20000; ++i)
    big += R"J({"ph": "X", "cat": "cpu_op", "name": "op)J" + std::to_string(i) + R"(", "pid": 1, "tid": 1, "ts": )" +
           std::to_string(i * 10) + R"(, "dur": 5},)" + "\n";
  big += "{}]}";
  std::string gz_path = test::tmp_path("cut.json.gz");
  gzFile gz = gzopen(gz_path.c_str(), "wb");
  gzwrite(gz, big.data(), unsigned(big.size()));
  gzclose(gz);
  std::string bytes = test::read_file(gz_path);
  std::string cut_path = test::write_file("cut_half.json.gz", bytes.substr(0, bytes.size() / 2));
  EXPECT_THROW(read_profile({cut_path}, {}), InputError);
  auto r = test::flamefold("collapse " + cut_path + " -o " + test::tmp_path("never.folded"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cut_half.json.gz"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(test::tmp_path("never.folded")));
}

TEST(KinetoReader, SeveralRanksMergeUnderRankFramesAndTopShowsKernelSummary) {
  std::string a = test::write_file("rank_a.json", kModern);
  std::string b_json = kModern;
  b_json.replace(b_json.find("\"rank\": 3"), 9, "\"rank\": 5");
  std::string b = test::write_file("rank_b.json", b_json);
  std::string c = test::write_file("norank.json", R"J({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "x", "pid": 1, "tid": 1, "ts": 0, "dur": 5}]})J");
  Profile p = read_profile({a, b, c}, {});
  auto gpu = folded(p, "gpu");
  EXPECT_EQ(gpu["rank 3;python3 (pid 100);main thread;<module>;forward;aten::mm;cudaLaunchKernel;gemm \"fp16\""], 123457);
  EXPECT_EQ(gpu["rank 5;python3 (pid 100);main thread;<module>;forward;aten::mm;cudaLaunchKernel;gemm \"fp16\""], 123457);
  EXPECT_EQ(folded(p, "cpu")["norank.json;process 1;thread 1;x"], 5000);
  ASSERT_FALSE(p.device_ops.empty());
  EXPECT_EQ(p.device_ops[0].count, 2u);

  auto r = test::flamefold("top " + a + " " + b + " --weight gpu");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("device operations: 4 in 2 names"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gemm \"fp16\""), std::string::npos);
  r = test::flamefold("collapse " + a + " --steps 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("ProfilerStep"), std::string::npos) << r.err;
  r = test::flamefold("collapse " + a + " --window 20us:");  // from 20 us after the first event on
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("python3 (pid 100);main thread;train.py:<module>:10 489250\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(";train.py:<module>:10;model.py:forward:42 390750\n"), std::string::npos) << r.out;
  r = test::flamefold("collapse " + a + " --window 5:1");
  EXPECT_EQ(r.exit_code, 2);
  r = test::flamefold("collapse " + a + " --thread main --window 0:0.02 --categories python_function");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("python3 (pid 100);main thread;train.py:<module>:10 10500"), std::string::npos) << r.out;
  // The same options before the file: each takes one value, so the file name stays an input.
  auto before = test::flamefold("collapse --thread main --categories python_function --window 0:0.02 " + a);
  EXPECT_EQ(before.exit_code, 0) << before.err;
  EXPECT_EQ(before.out, r.out);
}

// --group-by on a Kineto trace: process > thread by default; thread and none drop levels.
TEST(KinetoReader, GroupByLevels) {
  std::string path = test::write_file("t.json", kModern);
  test::RunResult by_default = test::flamefold("collapse " + path);
  test::RunResult thread = test::flamefold("collapse --group-by thread " + path);
  test::RunResult none = test::flamefold("collapse --group-by none " + path);
  for (const auto* r : {&by_default, &thread, &none}) ASSERT_EQ(r->exit_code, 0) << r->err;
  EXPECT_EQ(by_default.out.rfind("python3 (pid 100);main thread;", 0), 0u) << by_default.out;
  EXPECT_EQ(thread.out, test::drop_root_frames(by_default.out, 1));
  EXPECT_EQ(thread.out.rfind("main thread;", 0), 0u) << thread.out;
  EXPECT_EQ(none.out, test::drop_root_frames(by_default.out, 2));
}

// The legacy profiler (torch without Kineto) writes "pid": "CPU functions": that string is the
// process's name, shown once ("CPU functions", not "process CPU functions"; `info` does not say
// "process process").
TEST(KinetoReader, StringPidIsTheProcessName) {
  std::string path = test::write_file("legacy.json", R"J([
  {"name": "aten::mm", "ph": "X", "ts": 10, "dur": 5, "tid": 0, "pid": "CPU functions", "args": {}},
  {"name": "aten::add", "ph": "X", "ts": 20, "dur": 3, "tid": 0, "pid": "CPU functions", "args": {}}
])J");
  test::RunResult r = test::flamefold("collapse " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "CPU functions;thread 0;aten::add 3000\nCPU functions;thread 0;aten::mm 5000\n");
  test::RunResult info = test::flamefold("info " + path);
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("\n  process CPU functions\n"), std::string::npos) << info.out;
  EXPECT_EQ(info.out.find("process process"), std::string::npos) << info.out;
}
