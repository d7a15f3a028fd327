// PyTorch without Kineto (Debian's python3-torch 1.13, CPU): torch.profiler falls back to the
// autograd profiler, whose export_chrome_trace writes a bare array of "X" op events with
// "pid": "CPU functions", integer microseconds, no categories and no Python stacks, plus a
// "cpu_to_cuda" flow start per kernel a CUDA op launched (never its end), and for remote
// events a string tid. The events are host ranges: nested into op stacks, with ProfilerStep#N
// ranges that --steps selects.
#include <gtest/gtest.h>

#include "flamefold/errors.h"
#include "flamefold/pipeline.h"
#include "kineto_test_util.h"
#include "test_support.h"

using namespace flamefold;
using kineto_test::folded;

namespace {

// As torch/autograd/profiler_util.py EventList.export_chrome_trace writes it (events in the
// order the profiler recorded them: by start, parents first).
const char* kLegacy = R"J([{"name": "aten::zeros", "ph": "X", "ts": 154, "dur": 10, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "aten::empty", "ph": "X", "ts": 159, "dur": 1, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "ProfilerStep#1", "ph": "X", "ts": 175, "dur": 500, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "aten::linear", "ph": "X", "ts": 232, "dur": 107, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "aten::addmm", "ph": "X", "ts": 240, "dur": 90, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "aten::addmm", "ph": "s", "ts": 240, "tid": 1, "pid": "CPU functions", "id": 0, "cat": "cpu_to_cuda", "args": {}}, {"name": "ProfilerStep#2", "ph": "X", "ts": 700, "dur": 300, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "aten::relu", "ph": "X", "ts": 710, "dur": 40, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "autograd::engine::evaluate_function: MmBackward0", "ph": "X", "ts": 720, "dur": 60, "tid": 2, "pid": "CPU functions", "args": {}}, {"name": "rpc_async#udf", "ph": "X", "ts": 730, "dur": 5, "tid": " node_id:1, thread_id:7 ", "pid": "CPU functions", "args": {}}])J";

}  // namespace

TEST(KinetoLegacy, OpEventsWithoutCategoriesNestIntoHostStacks) {
  Profile p = read_profile({test::write_file("legacy.json", kLegacy)}, {});
  EXPECT_EQ(p.source_format, "kineto");
  auto cpu = folded(p, "cpu");
  EXPECT_EQ(cpu["CPU functions;thread 1;aten::zeros"], 9000);
  EXPECT_EQ(cpu["CPU functions;thread 1;aten::zeros;aten::empty"], 1000);
  EXPECT_EQ(cpu["CPU functions;thread 1;ProfilerStep#1"], 393000);
  EXPECT_EQ(cpu["CPU functions;thread 1;ProfilerStep#1;aten::linear"], 17000);
  EXPECT_EQ(cpu["CPU functions;thread 1;ProfilerStep#1;aten::linear;aten::addmm"], 90000);
  EXPECT_EQ(cpu["CPU functions;thread 1;ProfilerStep#2;aten::relu"], 40000);
  EXPECT_EQ(cpu["CPU functions;thread 2;autograd::engine::evaluate_function: MmBackward0"], 60000);
  // The host time adds up to the union of each thread's events: 10 + 500 + 300, 60 and 5 µs.
  EXPECT_EQ(p.total(p.column("cpu")), (10 + 500 + 300 + 60 + 5) * 1000.0);
  EXPECT_EQ(p.total(p.column("calls")), 9);  // every X event; the flow start is not a call
  EXPECT_EQ(p.total(p.column("gpu")), 0);
  size_t remote = 0;
  for (const auto& [path, w] : cpu)
    if (path.find("rpc_async#udf") != std::string::npos) remote += static_cast<size_t>(w);
  EXPECT_EQ(remote, 5000u);
  EXPECT_TRUE(p.counters.empty()) << p.counters[0].what;
}

TEST(KinetoLegacy, StepsAndWindowsSelectTheHostRanges) {
  std::string path = test::write_file("legacy.json", kLegacy);
  ReadOptions two;
  two.steps = "2";
  auto cpu = folded(read_profile({path}, two), "cpu");
  EXPECT_EQ(cpu["CPU functions;thread 1;ProfilerStep#2"], 260000);
  EXPECT_EQ(cpu["CPU functions;thread 1;ProfilerStep#2;aten::relu"], 40000);
  for (const auto& [stack, w] : cpu) EXPECT_EQ(stack.find("ProfilerStep#1"), std::string::npos) << stack;

  ReadOptions missing;
  missing.steps = "7";
  EXPECT_THROW(read_profile({path}, missing), UsageError);

  // 0.5 to 0.6 ms after the first event (154 µs): 654-754 µs of each thread.
  ReadOptions window;
  window.window_start_ns = 500000;
  window.window_end_ns = 600000;
  Profile w = read_profile({path}, window);
  EXPECT_EQ(w.total(w.column("cpu")), (675 - 654 + 754 - 700 + 754 - 720 + 5) * 1000.0);
  EXPECT_EQ(folded(w, "cpu")["CPU functions;thread 1;ProfilerStep#2;aten::relu"], 40000);

  test::RunResult r = test::flamefold("collapse --steps 1 " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "CPU functions;thread 1;ProfilerStep#1 393000\n"
            "CPU functions;thread 1;ProfilerStep#1;aten::linear 17000\n"
            "CPU functions;thread 1;ProfilerStep#1;aten::linear;aten::addmm 90000\n");
}
