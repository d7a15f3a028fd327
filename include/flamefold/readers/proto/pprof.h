// pprof profiles (github.com/google/pprof's profile.proto: Go's runtime/pprof, Java's
// async-profiler and JFR converters, gperftools through `pprof -proto`, Pyroscope, ...),
// gzip-compressed (as they are usually stored) or plain; Input decompresses.
//
// Every sample type becomes a weight column (`--weight` picks one by name; pprof's default,
// default_sample_type or else the last type, is the default). Locations expand into one frame
// per line, inlined callees below their callers. A frame is a function (name, file and its
// start_line), not a line in it: samples at several lines of a function add up in one frame,
// as in pprof's own flame graph (its default granularity). A location without lines is named
// `module+0xOFFSET` (`0xADDRESS` without a mapping). A frame's category is its mapping's file
// name (the binary or library). Sample labels become group levels at the top of the tree:
// rank, process (`process`, `pid`), thread (`thread`, `tid`, `thread_id`, `thread_name`),
// device, then every other string label as a `key=value` level of category "label".
// Numeric labels other than those (a heap profile's per-object `bytes`) are not levels: they
// would split the tree by value; `info` lists their keys.
#pragma once
#include <string_view>

#include "flamefold/input.h"
#include "flamefold/options.h"
#include "flamefold/profile.h"

namespace flamefold {

Profile read_pprof(Input& input, const ReadOptions& options);

// Whether `head`, the first bytes of a decoded file (the whole file when shorter than the
// sniffing window), parses as a serialized pprof Profile: only fields the format defines,
// with their wire types and well-formed sub-messages.
bool looks_like_pprof(std::string_view head, size_t window);

}  // namespace flamefold
