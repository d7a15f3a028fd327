// Differential profiles: two runs of the same program in one tree. The tree is the union of
// both sides' trees; the after side's weights are the ordinary columns (so every writer draws the
// after side unchanged), and each has a companion column "before:<name>" with the before side's
// weights on the same nodes. Writers that know about differences (folded's three columns, the SVG's
// red/blue, the HTML viewer's differential mode, the diff table) find the pair with before_column().
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "flamefold/profile.h"

namespace flamefold {

inline constexpr std::string_view kBeforePrefix = "before:";

// The before side's column of an after-side column; -1 when the profile is not differential.
int before_column(const Profile& p, int after_column);
bool is_differential(const Profile& p);

struct DiffOptions {
  // difffolded.pl -n: scale each before-side stack to the after side's total, truncating.
  bool normalize = false;
  // difffolded.pl -s: hex numbers (addresses) in frame names read as "0x...".
  bool strip_hex = false;
};

// One differential profile from the two sides (each already merged from its inputs).
Profile make_diff(Profile before, Profile after, const DiffOptions& options);

// "0x7f3a9c0b1e30" -> "0x..." everywhere in `text` (difffolded.pl's -s).
std::string strip_hex_numbers(std::string_view text);

// A frame (function) whose weight changed: its totals on both sides, counted once per call path
// even under recursion (as `top` counts them).
struct FrameChange {
  FrameId frame;
  double before_self = 0, after_self = 0, before_total = 0, after_total = 0;
};
// Every frame with weight on either side, in frame-id order (group frames left out).
std::vector<FrameChange> frame_changes(const Profile& p, int after_column);

}  // namespace flamefold
