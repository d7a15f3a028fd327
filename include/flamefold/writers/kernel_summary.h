// `top --weight gpu|npu`: the per-kernel table after the hottest stacks, like nsys stats'
// cuda_gpu_kern_sum (name, count, total, mean, min, max, % of device time), from
// Profile::device_ops (filled by build_profile for traced formats).
#pragma once
#include "flamefold/options.h"
#include "flamefold/output.h"
#include "flamefold/profile.h"

namespace flamefold {

// Writes nothing when the profile has no device operations.
void write_kernel_summary(const Profile& profile, OutputFile& out, const WriteOptions& options);

}  // namespace flamefold
