// `top --weight gpu|npu`: the per-kernel table after the hottest stacks, like nsys stats'
// cuda_gpu_kern_sum (name, count, total, mean, min, max, % of device time), from
// Profile::device_ops (filled by build_profile for traced formats).
#pragma once
#include "flamefold/options.h"
#include "flamefold/output.h"
#include "flamefold/profile.h"

namespace flamefold {

// Totals over Profile::device_ops and how many rows `--limit` leaves (text and JSON tables).
struct DeviceOpsTotals {
  int64_t total_ns = 0;
  uint64_t count = 0;
  size_t rows = 0;
};
DeviceOpsTotals device_ops_totals(const Profile& profile, const WriteOptions& options);

// Writes nothing when the profile has no device operations.
void write_kernel_summary(const Profile& profile, OutputFile& out, const WriteOptions& options);

}  // namespace flamefold
