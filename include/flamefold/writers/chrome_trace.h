// Timeline -> Chrome trace-event JSON ({"traceEvents":[...]}, opens in Perfetto and
// chrome://tracing), streamed to the output file event by event. Port of nsys2json's
// behaviour (activities kernel / nvtx / nvtx-kernel / cuda-api, NVTX name-prefix filter,
// regex -> Chrome colour scheme) plus memcpy/memset, process/thread names, launch -> kernel
// flow arrows, numeric device/stream ordering and a deterministic event order.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "flamefold/output.h"
#include "flamefold/timeline.h"

namespace flamefold {

struct ChromeTraceOptions {
  bool device_work = true;      // "kernel": kernels, memcpy, memset (device tracks)
  bool host_ranges = false;     // "nvtx": host ranges and marks (NVTX, PYTORCH_API rows)
  bool range_projection = true; // "nvtx-kernel": each host range over the GPU span of the kernels launched in it
  bool api_calls = false;       // "cuda-api": runtime/driver (CANN) calls
  bool flows = true;            // launch -> device work arrows (when both ends are shown)
  std::vector<std::string> name_prefixes;  // keep only host ranges whose name starts with one of these
  std::vector<std::pair<std::string, std::string>> colors;  // regex -> Chrome colour name; first match wins
};

// "kernel,nvtx,nvtx-kernel,cuda-api" (also accepts "all"); throws UsageError on an unknown name.
void parse_activities(const std::string& list, ChromeTraceOptions& o);
// '{"regex":"colour", ...}' in the given order; throws UsageError on bad JSON or a bad regex.
void parse_color_scheme(const std::string& json, ChromeTraceOptions& o);

// What a trace carries beyond the Timeline: names for processes and devices, byte counts.
struct TraceSideInfo {
  std::vector<std::pair<int64_t, std::string>> process_names;  // pid -> name
  std::vector<std::pair<int32_t, std::string>> device_names;   // device index -> name
  std::vector<std::pair<uint32_t, int64_t>> bytes;             // event id -> bytes (memcpy/memset)
  std::string device_label = "GPU";                            // "GPU" or "NPU"
};

struct ChromeTraceStats {
  uint64_t events = 0, device_events = 0, projections = 0, flows = 0;
};

ChromeTraceStats write_chrome_trace(const Timeline& timeline, const TraceSideInfo& side, const ChromeTraceOptions& options,
                                    OutputFile& out);

}  // namespace flamefold
