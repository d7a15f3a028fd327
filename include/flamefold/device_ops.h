// Per-device-operation duration statistics (kernels, memcpy, memset) of a traced profile: what
// `top --weight gpu` prints as its kernel summary (like nsys stats' cuda_gpu_kern_sum). Min and
// max cannot be recovered from the call tree's summed weights, so build_profile keeps them here.
#pragma once
#include <cstdint>

namespace flamefold {

struct DeviceOpStats {
  uint32_t frame = 0;  // FrameId in the profile's symbols (name + category kernel/memcpy/memset)
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
};

}  // namespace flamefold
