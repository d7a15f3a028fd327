// Folded stacks, one line per call path with self weight: flamegraph.pl input.
// Lines come out in byte order of their stacks, as stackcollapse-perf.pl sorts them.
#pragma once
#include "flamefold/options.h"
#include "flamefold/output.h"
#include "flamefold/profile.h"

namespace flamefold {

void write_folded(const Profile& profile, int column, OutputFile& out, const WriteOptions& options);
// Formats a weight the way folded files carry it: integers without a fraction.
void append_weight(std::string& out, double w);

}  // namespace flamefold
