// `top --json` on a device view carries the kernel summary that the text table prints after
// the frames (name, kind, count, total, mean, min, max, percent; times in ns), checked by
// parsing the output with python3's json module.
#include <string>

#include "test_support.h"

namespace {

// Three launches of two kernels and a memcpy under one CPU op; device time 60.5 us in all.
const char* kTrace = R"J({"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"correlation": 1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {"correlation": 2}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 5, "args": {"correlation": 3}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 40, "dur": 5, "args": {"correlation": 4}},
 {"ph": "X", "cat": "kernel", "name": "gemm \"fp16\"", "pid": 0, "tid": 7, "ts": 50, "dur": 30, "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "gemm \"fp16\"", "pid": 0, "tid": 7, "ts": 90, "dur": 10, "args": {"correlation": 2}},
 {"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": 110, "dur": 20, "args": {"correlation": 3}},
 {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 8, "ts": 140, "dur": 0.5, "args": {"correlation": 4}}
]})J";

// Runs python3 on `json_path` with a script that prints what it checks.
test::RunResult python(const std::string& script, const std::string& json_path) {
  std::string script_path = test::write_file("check.py", script);
  return test::run("python3 " + script_path + " " + json_path);
}

}  // namespace

TEST(MiscTopJson, GpuViewHasTheKernelTable) {
  if (test::run("python3 -c 'import json'").exit_code != 0) GTEST_SKIP() << "python3 is not installed";
  std::string trace = test::write_file("trace.json", kTrace);
  std::string out = test::tmp_path("top.json");
  test::RunResult r = test::flamefold("top " + trace + " --weight gpu --json -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  test::RunResult py = python(R"PY(
import json, sys
d = json.load(open(sys.argv[1]))
k = d["kernels"]
print(d["weight"], d["kernel_unit"], d["kernel_total"], d["kernel_count"], d["kernel_names"], len(k))
for row in k:
    print("|".join(str(row[f]) for f in ("name", "kind", "count", "total", "mean", "min", "max", "percent")))
print(round(sum(row["percent"] for row in k), 2), sum(row["total"] for row in k) == d["kernel_total"])
)PY",
                              out);
  ASSERT_EQ(py.exit_code, 0) << py.err << test::read_file(out);
  EXPECT_EQ(py.out,
            "gpu ns 60500 4 3 3\n"
            "gemm \"fp16\"|kernel|2|40000|20000.0|10000|30000|66.1157\n"
            "relu|kernel|1|20000|20000.0|20000|20000|33.0579\n"
            "Memcpy HtoD|memcpy|1|500|500.0|500|500|0.8264\n"
            "100.0 True\n");
  // --limit applies to the kernel rows too; the totals still cover every kernel.
  r = test::flamefold("top " + trace + " --weight gpu --json --limit 1 -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  py = python("import json, sys\nd = json.load(open(sys.argv[1]))\nprint(len(d['frames']), len(d['kernels']), d['kernel_total'])\n",
              out);
  EXPECT_EQ(py.out, "1 1 60500\n") << py.err;
}

TEST(MiscTopJson, CpuViewAndSampledInputsHaveNoKernelTable) {
  if (test::run("python3 -c 'import json'").exit_code != 0) GTEST_SKIP() << "python3 is not installed";
  std::string trace = test::write_file("trace.json", kTrace);
  std::string folded = test::write_file("a.folded", "a;b 3\na;c 1\n");
  for (const std::string& args : {trace + " --weight cpu", folded}) {
    std::string out = test::tmp_path("top.json");
    test::RunResult r = test::flamefold("top " + args + " --json -o " + out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    test::RunResult py = python("import json, sys\nd = json.load(open(sys.argv[1]))\nprint('kernels' in d, len(d['frames']) > 0)\n", out);
    EXPECT_EQ(py.out, "False True\n") << args << py.err;
  }
}
