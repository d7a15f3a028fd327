// Combining profiles: several ranks or files into one tree.
#pragma once
#include "flamefold/profile.h"

namespace flamefold {

// Copies every node of `from` below node `at` of `into`, re-interning frames and matching
// weight columns by name (columns missing in `into` are added).
void graft(Profile& into, NodeId at, const Profile& from);

}  // namespace flamefold
