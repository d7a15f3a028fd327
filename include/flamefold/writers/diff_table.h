// `flamefold diff` without an output file: the frames whose weight grew and shrank most, as a
// table (or JSON for scripts); and the regression gate's verdict (--fail-above).
#pragma once
#include <string>
#include <vector>

#include "flamefold/diff.h"
#include "flamefold/options.h"
#include "flamefold/output.h"
#include "flamefold/profile.h"

namespace flamefold {

void write_diff_table(const Profile& diff, int column, OutputFile& out, const WriteOptions& options);

// Frames whose inclusive weight grew by more than `percent` percent of the before side's total
// (with --normalize the before side is already scaled to the after side's, so shares are
// compared), largest growth first.
std::vector<FrameChange> regressions(const Profile& diff, int column, double percent);
// One line per regression: "flamefold: regression: NAME grew by X UNIT (+P% of the before total)".
std::string regression_report(const Profile& diff, int column, const std::vector<FrameChange>& grew);

}  // namespace flamefold
