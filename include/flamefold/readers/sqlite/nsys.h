// Nsight Systems SQLite exports (nsys export --type sqlite), every column set from the 2020
// exports to 2025.6: CUPTI kernels/memcpy/memset, CUDA runtime and driver calls, NVTX ranges
// and marks, thread/process/GPU names, CUDA_CALLCHAINS backtraces. Tables that are absent
// mean the activity was not traced. Opened read-only; every query binds its values.
#pragma once
#include <string>

#include "flamefold/options.h"
#include "flamefold/profile.h"
#include "flamefold/readers/sqlite/sqlite_db.h"
#include "flamefold/timeline.h"
#include "flamefold/writers/chrome_trace.h"

namespace flamefold {

struct NsysOptions {
  bool for_flamegraph = false;  // leave out what has no place in call stacks (marks, start/end ranges, API wrappers)
  bool backtraces = false;      // CUDA_CALLCHAINS frames above each CUDA call (--stacks backtrace)
  bool device_work = true;      // read kernels, memcpy, memset
  bool api_calls = true;        // read CUPTI_ACTIVITY_KIND_RUNTIME
  bool nvtx = true;             // read NVTX_EVENTS
  std::vector<std::string> nvtx_prefixes;  // keep only NVTX events whose name starts with one of these
};

struct NsysTrace {
  Timeline timeline;
  TraceSideInfo side;
};

// True when the database has the tables of an nsys export (StringIds plus CUPTI/NVTX tables).
bool is_nsys_db(const sqlite::Db& db);

NsysTrace read_nsys_trace(const std::string& path, const ReadOptions& read, const NsysOptions& options);
// Flame graph: host stacks from NVTX nesting (or backtraces) with the CUDA call as leaf, and
// device time under the launching stack ("cpu", "calls", "gpu", "kernels" columns). Streamed
// into a TraceBuilder: memory follows the call tree, not the export's size.
Profile read_nsys(const std::string& path, const ReadOptions& read);
// The same profile from the whole timeline in memory (read_nsys_trace + build_profile): the
// reference the streaming path is tested against.
Profile read_nsys_in_memory(const std::string& path, const ReadOptions& read);

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel", "cuMemFree_v2" -> "cuMemFree".
std::string_view clean_api_name(std::string_view name);

}  // namespace flamefold
