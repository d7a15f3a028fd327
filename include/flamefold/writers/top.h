// `flamefold top`: the hottest frames as a table (or JSON for scripts).
#pragma once
#include "flamefold/options.h"
#include "flamefold/output.h"
#include "flamefold/profile.h"

namespace flamefold {

void write_top(const Profile& profile, int column, OutputFile& out, const WriteOptions& options);

}  // namespace flamefold
