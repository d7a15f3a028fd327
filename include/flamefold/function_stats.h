// Per-frame totals derived from the call tree: self weight, and total weight counted once
// per call path even under recursion (a frame's nodes below another node of the same frame
// are not added again). Used by `top`, the viewer's table and the call graph.
#pragma once
#include <vector>

#include "flamefold/profile.h"

namespace flamefold {

struct FrameStats {
  FrameId frame;
  double self = 0;
  double total = 0;
  double calls = 0;  // from the "calls" column when the profile has one
};

// One entry per frame that carries weight, in frame-id order. Group frames (threads,
// processes, ranks) are left out.
std::vector<FrameStats> frame_stats(const Profile& profile, int column);

}  // namespace flamefold
