// `flamefold merge-gpu` (seed 002's merge_gpu_cpu_trace.py, without its quadratic scan):
// CPU stacks caught at cudaLaunchKernel (extended folded lines `ts_ns comm pid tid cpu f1;f2;...`)
// joined with the CUPTI kernels they launched, written as folded stacks with the kernel as leaf.
//
//   GPU side: {"traceEvents": [...]} with `CUDA_Runtime` events whose name holds "LaunchKernel"
//   and `GPU_Kernel` (or "Kernel: ...") events sharing args.correlationId, times in µs; or a
//   PyTorch/Kineto trace (`cuda_runtime` launches and `kernel` events sharing args.correlation).
//   Each CPU stack takes the launch nearest in time, strictly within the tolerance (ties: the
//   first launch in file order), then the first kernel with that launch's correlation id:
//   leaf `[GPU_Kernel]<name>`, or `[GPU_Launch_Pending]` when none matches.
//   The seed's quirks are kept: frames `_start`, `__libc_start_main` and empty ones dropped
//   (`<no-symbol>` kept), the first cudaLaunchKernel/__device_stub__ frame renamed
//   `cudaLaunchKernel` and later ones dropped, µs -> ns by truncation, every "Kernel: " removed
//   from kernel names, lines sorted bytewise.
#pragma once
#include <cstdint>
#include <string>

#include "flamefold/output.h"

namespace flamefold {

struct GpuMergeOptions {
  double tolerance_ms = 10.0;
  bool weight_gpu = false;  // weight = matched kernel ns instead of stack count
};

struct GpuMergeReport {
  uint64_t cpu_stacks = 0, malformed_lines = 0, kernels = 0, launches = 0;
  uint64_t matched = 0, unmatched = 0, unique_stacks = 0;
  uint64_t times_out_of_range = 0;   // GPU events whose ts or ts + dur is past int64 ns (left out)
  uint64_t without_correlation = 0;  // launches and kernels without a correlation id (left out)
  double total_weight = 0;
  std::string first_malformed;  // "line N: text"
  std::string summary;          // seed 002's "=== Summary Statistics ===" block
};

// Throws InputError for an unreadable CPU file (no stack line at all) or GPU JSON (malformed,
// no traceEvents array).
GpuMergeReport merge_gpu_cpu(const std::string& cpu_path, const std::string& gpu_path, const GpuMergeOptions& options,
                             OutputFile& out);

}  // namespace flamefold
