// Timeline -> Profile (src/flamefold/timeline/): nest each host track's intervals into call
// paths, then attribute device work to the host stack that launched it.
//
// The profile it returns has these weight columns:
//   "cpu"     ns of host time per call path (self time; the nest rule of DESIGN.md)
//   "calls"   how many times each call path was entered (pstats ncalls come from it)
//   "gpu"     ns of device time (named "npu" for Ascend), with the kernel/memcpy/memset as leaf
//   "kernels" number of device operations under each path
// Group frames (rank, process, thread) sit at the top; device work with no launch found goes
// under "[unattributed] <device/stream>".
#pragma once
#include "flamefold/options.h"
#include "flamefold/profile.h"
#include "flamefold/timeline.h"

namespace flamefold {

struct BuildOptions {
  std::string device_weight = "gpu";  // "gpu" or "npu": the name of the device-time column
  bool default_to_device = false;     // make the device column the profile's default
  // Without --group-by: a process level above the threads always (Kineto, nsys: as trace
  // viewers group tracks), or only when some rank holds several processes (Ascend: seed 000's
  // trees start at the threads).
  bool process_level_always = true;
};

Profile build_profile(Timeline&& timeline, const ReadOptions& read, const BuildOptions& build);

}  // namespace flamefold
