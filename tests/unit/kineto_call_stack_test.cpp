// Older Kineto traces (2021-2022, with_stack=True) give an op's Python stack as a string in
// args["Call stack"] instead of python_function events: the frames go between the op and the
// event around it, beyond the stack the two share, with no time or calls of their own.
#include <gtest/gtest.h>

#include <numeric>

#include "flamefold/pipeline.h"
#include "flamefold/readers/json/kineto.h"
#include "kineto_test_util.h"
#include "test_support.h"

using namespace flamefold;
using kineto_test::fact;
using kineto_test::folded;
using kineto_test::path_of;

namespace {

Profile read_text(const std::string& name, const std::string& json, const ReadOptions& ro = {}) {
  return read_profile({test::write_file(name, json)}, ro);
}

// 2021 dialect (Operator/Runtime/Kernel, string tids), µs. Stacks are innermost first.
//   ProfilerStep#1 [0,1000]            no stack
//     aten::linear [10,410]            S  = <module>:1 < train:5 < forward:20   (\r\n)
//       aten::matmul [20,320]          S  (same: no frames)
//         cudaLaunchKernel [30,40]     -> gemm on stream 7, 50 µs
//     my_block [500,900]               S2 = <module>:1 < train:5 < forward:21 < helper:30   (\n)
//       aten::add [510,610]            S2 + deeper:31 + "weird entry" (no "(line): ")
//       aten::relu [620,700]           no stack
//         aten::clamp [630,650]        S2 (the stack in effect around it: no frames)
//   aten::to [2000,2100]               <module>:1 < train:6 (no enclosing op: whole stack)
const char* k2021 = R"J({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "Operator", "name": "ProfilerStep#1", "pid": 7, "tid": "7", "ts": 0, "dur": 1000,
   "args": {"Device": 7, "External id": 1}},
  {"ph": "X", "cat": "Operator", "name": "aten::linear", "pid": 7, "tid": "7", "ts": 10, "dur": 400,
   "args": {"External id": 2, "Input Dims": [[2, 2]], "Call stack": "/m/model.py(20): forward;\r\n/m/main.py(5): train;\r\n/m/main.py(1): <module>", "Input type": ["float"]}},
  {"ph": "X", "cat": "Operator", "name": "aten::matmul", "pid": 7, "tid": "7", "ts": 20, "dur": 300,
   "args": {"Call stack": "/m/model.py(20): forward;\r\n/m/main.py(5): train;\r\n/m/main.py(1): <module>", "External id": 3}},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 30, "dur": 10,
   "args": {"correlation": 70, "external id": 3}},
  {"ph": "X", "cat": "Kernel", "name": "gemm", "pid": 0, "tid": "stream 7", "ts": 500, "dur": 50,
   "args": {"stream": 7, "correlation": 70, "external id": 3}},
  {"ph": "X", "cat": "Operator", "name": "my_block", "pid": 7, "tid": "7", "ts": 500, "dur": 400,
   "args": {"Call stack": "/m/model.py(30): helper;\n/m/model.py(21): forward;\n/m/main.py(5): train;\n/m/main.py(1): <module>"}},
  {"ph": "X", "cat": "Operator", "name": "aten::add", "pid": 7, "tid": "7", "ts": 510, "dur": 100,
   "args": {"Input type": ["Call stack", "Call stack", "k"], "Call stack": "weird entry;\n/m/model.py(31): deeper;\n/m/model.py(30): helper;\n/m/model.py(21): forward;\n/m/main.py(5): train;\n/m/main.py(1): <module>;\n"}},
  {"ph": "X", "cat": "Operator", "name": "aten::relu", "pid": 7, "tid": "7", "ts": 620, "dur": 80,
   "args": {"Input type": ["\"Call stack\": \"x.py(1): fake\""]}},
  {"ph": "X", "cat": "Operator", "name": "aten::clamp", "pid": 7, "tid": "7", "ts": 630, "dur": 20,
   "args": {"Call stack": "/m/model.py(30): helper;\n/m/model.py(21): forward;\n/m/main.py(5): train;\n/m/main.py(1): <module>"}},
  {"ph": "X", "cat": "Operator", "name": "aten::to", "pid": 7, "tid": "7", "ts": 2000, "dur": 100,
   "args": {"Call stack": "/m/main.py(6): train;\r\n/m/main.py(1): <module>"}}
]})J";

const std::string kStep = "process 7;thread 7;ProfilerStep#1;";

double cpu_total(const Profile& p) {
  const auto& self = p.columns[p.column("cpu")].self;
  return std::accumulate(self.begin(), self.end(), 0.0);
}

// The same trace with its Call stack args renamed (so never read).
std::string without_stacks(std::string json) {
  for (size_t at; (at = json.find("\"Call stack\":")) != std::string::npos;) json.replace(at, 13, "\"No stack\":");
  return json;
}

}  // namespace

TEST(KinetoCallStack, OpsGetTheFramesBeyondTheStackAroundThem) {
  Profile p = read_text("stacks2021.json", k2021);
  auto cpu = folded(p, "cpu");
  EXPECT_EQ(cpu[kStep.substr(0, kStep.size() - 1)], 200000);
  // Whole stack under an op without one, outermost first; the child with the same stack directly under it.
  EXPECT_EQ(cpu[kStep + "<module>;train;forward;aten::linear"], 100000);
  EXPECT_EQ(cpu[kStep + "<module>;train;forward;aten::linear;aten::matmul"], 290000);
  EXPECT_EQ(cpu[kStep + "<module>;train;forward;aten::linear;aten::matmul;cudaLaunchKernel"], 10000);
  EXPECT_EQ(cpu[kStep + "<module>;train;forward;helper;my_block"], 220000);
  // A deeper stack: only the extra frames, the malformed entry kept as a plain frame.
  EXPECT_EQ(cpu[kStep + "<module>;train;forward;helper;my_block;deeper;weird entry;aten::add"], 100000);
  // No stack: directly under its parent; below it, the stack in effect (my_block's) again.
  EXPECT_EQ(cpu[kStep + "<module>;train;forward;helper;my_block;aten::relu"], 60000);
  EXPECT_EQ(cpu[kStep + "<module>;train;forward;helper;my_block;aten::relu;aten::clamp"], 20000);
  // Under no op: the whole stack, outermost first.
  EXPECT_EQ(cpu["process 7;thread 7;<module>;train;aten::to"], 100000);
  EXPECT_EQ(cpu.size(), 9u);  // Python frames have no self time
  EXPECT_EQ(fact(p, "ops with a Python call stack (Call stack args)"), "6");

  // The GPU view attributes the kernel to the op under its Python frames.
  auto gpu = folded(p, "gpu");
  EXPECT_EQ(gpu[kStep + "<module>;train;forward;aten::linear;aten::matmul;cudaLaunchKernel;gemm"], 50000);
  EXPECT_EQ(gpu.size(), 1u);

  // Frames shaped like python_function ones (name, file, line, category python); no time, no calls.
  int python_nodes = 0;
  const int calls = p.column("calls"), cpu_col = p.column("cpu");
  for (NodeId n = 1; n < p.node_count(); ++n) {
    const Frame& f = p.symbols[p.frame[n]];
    if (p.symbols.category_name(f.category) != "python") continue;
    ++python_nodes;
    EXPECT_EQ(p.columns[cpu_col].self[n], 0) << path_of(p, n);
    EXPECT_EQ(p.columns[calls].self[n], 0) << path_of(p, n);
    std::string_view name = p.symbols.name(p.frame[n]);
    if (name == "weird entry") {
      EXPECT_EQ(p.symbols.file(p.frame[n]), "");
      EXPECT_EQ(f.line, 0u);
    } else if (name == "train" && path_of(p, n) == "process 7;thread 7;<module>;train") {
      EXPECT_EQ(p.symbols.file(p.frame[n]), "/m/main.py");
      EXPECT_EQ(f.line, 6u);
    } else if (name == "helper") {
      EXPECT_EQ(p.symbols.file(p.frame[n]), "/m/model.py");
      EXPECT_EQ(f.line, 30u);
    }
  }
  EXPECT_EQ(python_nodes, 9);  // <module> train forward:20 | forward:21 helper | deeper "weird entry" | <module> train:6

  // The thread's CPU total is the one without the Python frames: the union of its intervals.
  Profile plain = read_text("nostacks2021.json", without_stacks(k2021));
  EXPECT_EQ(cpu_total(p), 1100000);
  EXPECT_EQ(cpu_total(plain), cpu_total(p));
  EXPECT_EQ(folded(plain, "cpu")[kStep + "aten::linear;aten::matmul"], 290000);
  EXPECT_EQ(fact(plain, "ops with a Python call stack (Call stack args)"), "");
}

TEST(KinetoCallStack, LeavingOutThePythonCategoryLeavesOutTheFrames) {
  ReadOptions ro;
  ro.categories = {"cpu_op", "cuda_runtime"};
  Profile p = read_text("stacks2021_cats.json", k2021, ro);
  auto cpu = folded(p, "cpu");
  EXPECT_EQ(cpu[kStep + "aten::linear;aten::matmul"], 290000);
  EXPECT_EQ(cpu["process 7;thread 7;aten::to"], 100000);
  EXPECT_EQ(cpu_total(p), 1100000);
}

TEST(KinetoCallStack, IgnoredWhenTheFileHasPythonFunctionEvents) {
  // A python_function event first (the parser stops looking for stacks) or last (the stacks
  // already read are dropped): either way the Call stack strings are not used.
  const std::string py =
      R"J({"ph": "X", "cat": "python_function", "name": "/m/main.py(1): <module>", "pid": 7, "tid": 7, "ts": 3000, "dur": 10, "args": {"Python id": 1, "Python parent id": null}})J";
  std::string first(k2021), last(k2021);
  first.insert(first.find('[') + 1, py + ",");
  last.insert(last.rfind(']'), "," + py);
  for (bool at_end : {false, true}) {
    Profile p = read_text("stacks_and_python.json", at_end ? last : first);
    auto cpu = folded(p, "cpu");
    EXPECT_EQ(cpu[kStep + "aten::linear;aten::matmul"], 290000);
    EXPECT_EQ(cpu["process 7;thread 7;aten::to"], 100000);
    EXPECT_EQ(cpu["process 7;thread 7;<module>"], 10000);  // the python_function event itself
    EXPECT_EQ(cpu.size(), 10u);
    // Said when stacks were read before the first python_function event.
    EXPECT_EQ(fact(p, "ops' Call stack args"), at_end ? "ignored (the file has python_function events)" : "");
    EXPECT_EQ(fact(p, "ops with a Python call stack (Call stack args)"), "");
    EXPECT_EQ(folded(p, "gpu")[kStep + "aten::linear;aten::matmul;cudaLaunchKernel;gemm"], 50000);
  }
}

TEST(KinetoCallStack, BatchBoundariesAndThePortableParserGiveTheSameProfile) {
  Profile whole = read_text("stacks_whole.json", k2021);
  for (size_t chunk : {1, 7, 64, 500}) {
    set_kineto_chunk_bytes(chunk);
    Profile p = read_text("stacks_chunk" + std::to_string(chunk) + ".json", k2021);
    set_kineto_chunk_bytes(0);
    EXPECT_EQ(folded(p, "cpu"), folded(whole, "cpu")) << "chunk " << chunk;
    EXPECT_EQ(folded(p, "gpu"), folded(whole, "gpu")) << "chunk " << chunk;
  }
  set_kineto_portable_parser(true);
  Profile portable = read_text("stacks_portable.json", k2021);
  set_kineto_portable_parser(false);
  EXPECT_EQ(folded(portable, "cpu"), folded(whole, "cpu"));
  EXPECT_EQ(folded(portable, "gpu"), folded(whole, "gpu"));
}

TEST(KinetoCallStack, RealTrace2021HasPythonFramesAndUnchangedThreadTotals) {
  REQUIRE_SHARED("data/kineto");
  const std::string path =
      shared_path + "/data/kineto/pytorch__kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
  Profile p = read_profile({path}, {});
  ReadOptions no_python;
  no_python.categories = {"cpu_op", "cuda_runtime"};  // every host category of the file but python
  Profile plain = read_profile({path}, no_python);
  EXPECT_NE(fact(p, "ops with a Python call stack (Call stack args)"), "");
  // Per thread, the CPU time is the same with and without the Python frames.
  auto per_thread = [](const Profile& q) {
    std::map<std::string, double> out;
    for (const auto& [stack, w] : folded(q, "cpu")) out[stack.substr(0, stack.find(';', stack.find(';') + 1))] += w;
    return out;
  };
  EXPECT_EQ(per_thread(p), per_thread(plain));
  EXPECT_EQ(cpu_total(p), cpu_total(plain));
  auto gpu_total = [](const Profile& q) {
    const auto& self = q.columns[q.column("gpu")].self;
    return std::accumulate(self.begin(), self.end(), 0.0);
  };
  EXPECT_EQ(gpu_total(p), gpu_total(plain));
  // The training script's frames are there, with file and line, above the ops.
  bool found = false;
  for (const auto& [stack, w] : folded(p, "gpu"))
    if (stack.find(";<module>;") != std::string::npos && stack.find(";aten::conv2d;") != std::string::npos) found = true;
  EXPECT_TRUE(found);
  bool script_frame = false;
  for (FrameId f = 0; f < p.symbols.frame_count(); ++f)
    if (p.symbols.file(f) == "resnet50_profiler_api.py" && p.symbols[f].line > 0) script_frame = true;
  EXPECT_TRUE(script_frame);
}
