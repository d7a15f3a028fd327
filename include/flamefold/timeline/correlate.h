// correlate: device work (kernel, memcpy, memset) -> the launch (runtime/driver call) that
// caused it, by correlation id (Kineto "correlation" / ac2g flow id, CUPTI correlationId,
// Ascend connectionId). One hash join over the timeline; correlation ids are per rank.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "flamefold/timeline.h"

namespace flamefold {

struct LaunchJoin {
  // (device-work event, its launch) for each device op that has one, by event id: 8 B per op
  // rather than 4 B per event of the timeline.
  std::vector<std::pair<uint32_t, uint32_t>> launched;
  uint64_t device_ops = 0;
  uint64_t device_without_launch = 0;
  uint64_t launches = 0;              // Launch events with a correlation id
  uint64_t launches_without_device = 0;
  uint64_t duplicate_launch_ids = 0;  // two launches of one rank with the same id (the first wins)
};

LaunchJoin join_launches(const Timeline& timeline);

}  // namespace flamefold
