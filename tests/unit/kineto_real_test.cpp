// The Kineto reader on the real traces in ../shared/data/kineto and on ../shared/gen/gen_kineto.py
// output: every file reads, device time is conserved (checked against an independent Python
// sum), and the stacks of a small real trace match what was worked out by hand.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "flamefold/pipeline.h"
#include "kineto_test_util.h"
#include "test_support.h"

using namespace flamefold;
using kineto_test::fact;
using kineto_test::folded;

namespace {

// Device time per file, summed by Python from the decimal text (exact ns), with the same rules
// for what counts as device work: kernel/memcpy/memset categories, MTIA ccp events that carry a
// correlation, and Ascend rows of the "Ascend Hardware" process.
const char* kSumScript = R"PY(
import gzip, json, sys
from decimal import Decimal, ROUND_HALF_UP
WORK = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
for path in sys.argv[1:]:
    f = gzip.open(path) if path.endswith(".gz") else open(path, "rb")
    d = json.loads(f.read(), parse_float=str)
    ev = d["traceEvents"] if isinstance(d, dict) else d
    hw = {e.get("pid") for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"
          and e.get("args", {}).get("name") == "Ascend Hardware"}
    total = 0
    for e in ev:
        if e.get("ph") != "X": continue
        c = e.get("cat")
        a = e.get("args", {}) or {}
        work = c in WORK or (c == "mtia_ccp_events" and "correlation" in a) or (c is None and e.get("pid") in hw)
        if not work: continue
        dur = max(Decimal(str(e.get("dur", 0))), Decimal(0))  # from the decimal text: exact
        total += int((dur * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    print(total)
)PY";

std::vector<std::string> kineto_files(const std::string& root) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::string p = e.path().string();
    if (p.size() > 7 && p.compare(p.size() - 7, 7, ".tar.gz") == 0) continue;  // archives of traces: not read
    if (p.find(".json") != std::string::npos) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(KinetoReal, EveryTraceReadsAndDeviceTimeIsConserved) {
  REQUIRE_SHARED("data/kineto");
  // .tar.gz bundles (param's dlrm_kineto.tar.gz) hold several traces; they are skipped above
  // because flamefold reads single files: unpack them and pass the traces as ranks.
  std::vector<std::string> files = kineto_files(shared_path + "data/kineto");
  ASSERT_GT(files.size(), 30u);
  // Python's json takes ~10 s on all of them: the independent sum covers the small files plus
  // one trace of each remaining dialect (2021 tb_plugin, Ascend, negative tids).
  std::vector<std::string> checked;
  for (const std::string& f : files)
    if (std::filesystem::file_size(f) < 500000 || f.find("trace_view.json") != std::string::npos ||
        f.find("worker0.1623143089861") != std::string::npos || f.find("nccl_data") != std::string::npos)
      checked.push_back(f);
  std::string script = test::write_file("sum.py", kSumScript);
  std::string cmd = "python3 " + script;
  for (const std::string& f : checked) cmd += " '" + f + "'";
  test::RunResult sums = test::run(cmd);
  ASSERT_EQ(sums.exit_code, 0) << sums.err;
  std::istringstream lines(sums.out);
  std::map<std::string, int64_t> expected;
  for (const std::string& f : checked) lines >> expected[f];
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    Profile p;
    ASSERT_NO_THROW(p = read_profile({f}, {}));
    int device = p.column("gpu") >= 0 ? p.column("gpu") : p.column("npu");
    ASSERT_GE(device, 0);
    int64_t total = int64_t(p.total(device));
    EXPECT_EQ(std::stoll(fact(p, "device ns attributed")) + std::stoll(fact(p, "device ns unattributed")), total);
    if (expected.count(f)) EXPECT_EQ(total, expected[f]);
    EXPECT_GT(p.node_count(), 1u);
  }
  EXPECT_GT(expected.size(), 25u);
}

TEST(KinetoReal, KnownStacksOfASmallTraceCheckedByHand) {
  REQUIRE_SHARED("data/kineto/facebookresearch__HolisticTraceAnalysis/tests/data/call_stack/backward_thread.json");
  Profile p = read_profile({shared_path + "data/kineto/facebookresearch__HolisticTraceAnalysis/tests/data/call_stack/"
                                           "backward_thread.json"},
                           {});
  // Worked out from the 7 events: thread 24922 runs evaluate_function [364322, +145] >
  // AddmmBackward0 [364324, +102] > aten::mm [364330, +58] > cudaLaunchKernel [364374, +10];
  // the cutlass kernel (45 us) has the launch's correlation id 2131433.
  auto gpu = folded(p, "gpu");
  ASSERT_EQ(gpu.size(), 1u);
  EXPECT_EQ(gpu.begin()->second, 45000);
  EXPECT_NE(gpu.begin()->first.find(";autograd::engine::evaluate_function: AddmmBackward0;AddmmBackward0;aten::mm;"
                                    "cudaLaunchKernel;void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>"),
            std::string::npos)
      << gpu.begin()->first;
  double evaluate = 0, addmm = 0, mm = 0, launch = 0, step = 0, backward = 0;
  for (const auto& [path, w] : folded(p, "cpu")) {
    auto ends = [&](const std::string& s) { return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0; };
    if (ends(";autograd::engine::evaluate_function: AddmmBackward0")) evaluate = w;
    if (ends("AddmmBackward0;AddmmBackward0")) addmm = w;
    if (ends(";aten::mm")) mm = w;
    if (ends(";cudaLaunchKernel")) launch = w;
    if (ends(";ProfilerStep#552")) step = w;
    if (ends(";ProfilerStep#552;## backward ##")) backward = w;
  }
  EXPECT_EQ(evaluate, 43000);
  EXPECT_EQ(addmm, 44000);
  EXPECT_EQ(mm, 48000);
  EXPECT_EQ(launch, 10000);
  EXPECT_EQ(step, 413451000 - 107988000);
  EXPECT_EQ(backward, 107988000);
}

TEST(KinetoReal, GeneratedTraceConservesGpuTimeAndSelectsSteps) {
  REQUIRE_SHARED("gen/gen_kineto.py");
  std::string out = test::tmp_path("gen.json");
  auto gen = test::run("python3 " + shared_path + "gen/gen_kineto.py -o " + out + " --layers 4 --steps 2");
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  std::string script = test::write_file("sum.py", kSumScript);
  auto sum = test::run("python3 " + script + " " + out);
  ASSERT_EQ(sum.exit_code, 0) << sum.err;
  int64_t expected = std::stoll(sum.out);
  Profile p = read_profile({out}, {});
  EXPECT_EQ(int64_t(p.total(p.column("gpu"))), expected);
  EXPECT_EQ(fact(p, "device ops unattributed"), "0");
  // Every kernel sits under its launch; forward kernels under the Python frames that ran them.
  bool under_python = false;
  for (const auto& [path, w] : folded(p, "gpu")) {
    EXPECT_NE(path.find(";cuda"), std::string::npos) << path;
    under_python = under_python || path.find(";forward;") != std::string::npos;
  }
  EXPECT_TRUE(under_python);
  // One step of the two: less GPU time, and only that step's ProfilerStep frame.
  std::string first_step;
  for (FrameId f = 0; f < p.symbols.frame_count(); ++f) {
    std::string_view n = p.symbols.name(f);
    if (n.substr(0, 13) == "ProfilerStep#" && (first_step.empty() || std::string(n) < first_step)) first_step = n;
  }
  ASSERT_FALSE(first_step.empty());
  ReadOptions ro;
  ro.steps = first_step.substr(13);
  Profile one = read_profile({out}, ro);
  double one_gpu = one.total(one.column("gpu"));
  EXPECT_GT(one_gpu, 0);
  EXPECT_LT(one_gpu, double(expected));
  for (const auto& [path, w] : folded(one, "cpu"))
    if (path.find("ProfilerStep#") != std::string::npos) EXPECT_NE(path.find(first_step), std::string::npos) << path;
}
