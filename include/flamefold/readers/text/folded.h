// Folded stacks ("a;b;c 12"), as written by stackcollapse-*.pl, inferno, py-spy, austin and
// CPython's sampling profiler (whose dialect starts with "tid:N;" and writes frames as
// "file.py:func:line").
//
// Lines are read the way flamegraph.pl reads them: the stack, one blank, a count with an
// optional fraction ("12", "0.5", "3."); a stack ending in a second count is a differential
// line and the second count is used. Frames are split at ';' (trailing empty frames dropped).
// Blank lines are skipped; lines without a count are counted and reported; CRLF, a UTF-8
// byte-order mark and UTF-16 (with its byte-order mark) are accepted. In the CPython dialect
// the "tid:N" prefix becomes a thread group frame and "file:func:line" a frame with its file
// and line; frames without that shape (built-ins) stay names.
#pragma once
#include <string_view>

#include "flamefold/input.h"
#include "flamefold/options.h"
#include "flamefold/profile.h"

namespace flamefold {

bool looks_like_folded(std::string_view head);
Profile read_folded(Input& input, const ReadOptions& options);

}  // namespace flamefold
