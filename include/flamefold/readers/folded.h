// Folded stacks ("a;b;c 12"), as written by stackcollapse-*.pl, inferno, py-spy, austin and
// CPython's sampling profiler (whose dialect starts with "tid:N;" and writes frames as
// "file.py:func:line").
#pragma once
#include <string_view>

#include "flamefold/input.h"
#include "flamefold/options.h"
#include "flamefold/profile.h"

namespace flamefold {

bool looks_like_folded(std::string_view head);
Profile read_folded(Input& input, const ReadOptions& options);

}  // namespace flamefold
