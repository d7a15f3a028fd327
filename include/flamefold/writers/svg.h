// SVG flame graph with flamegraph.pl's options, search and click-to-zoom script inside.
#pragma once
#include "flamefold/options.h"
#include "flamefold/output.h"
#include "flamefold/profile.h"

namespace flamefold {

void write_svg(const Profile& profile, int column, OutputFile& out, const WriteOptions& options);

}  // namespace flamefold
