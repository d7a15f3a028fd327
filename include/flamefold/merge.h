// Combining profiles: several ranks or files into one tree.
#pragma once
#include <string_view>

#include "flamefold/profile.h"

namespace flamefold {

// Copies every node of `from` below node `at` of `into`, re-interning frames and matching
// weight columns by name (columns missing in `into` are added).
void graft(Profile& into, NodeId at, const Profile& from);

// Adds one part of a merged profile (a rank, a file), as read_profile merges several inputs:
// its tree below a top-level "rank" frame named `label` (an empty label: at the root, for a part
// that already has its rank frames on top), with its kernel statistics, counters and inputs.
// The first part also gives the merged profile its format and default weight.
void add_part(Profile& into, const Profile& part, std::string_view label);

}  // namespace flamefold
