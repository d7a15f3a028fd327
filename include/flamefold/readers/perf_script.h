// `perf script` text, collapsed the way stackcollapse-perf.pl does it.
#pragma once
#include <string_view>

#include "flamefold/input.h"
#include "flamefold/options.h"
#include "flamefold/profile.h"

namespace flamefold {

bool looks_like_perf_script(std::string_view head);
Profile read_perf_script(Input& input, const ReadOptions& options);

}  // namespace flamefold
