// Whole-profile transforms that writers apply before drawing.
#pragma once
#include "flamefold/profile.h"

namespace flamefold {

// Copies the frame table and categories of `from` into an empty `to`, keeping every FrameId
// and CategoryId the same (so node frames can be copied as they are).
void copy_symbols(const Symbols& from, Symbols& to);

// The stacks turned upside down (flamegraph.pl --reverse): every path root -> node that
// carries self weight becomes node -> ... -> root's child, so stacks are merged from the leaf.
// Group frames (process/thread/rank) stay on top, in their order, and the frames below them
// are reversed. All weight columns, units, facts and counters are kept.
Profile reversed(const Profile& profile);

}  // namespace flamefold
