// pprof output (profile.proto; `go tool pprof`, Pyroscope, Grafana, Parca ...).
//
// One sample type per weight column with its unit (ns -> nanoseconds, samples -> count, other
// units as they are), default_sample_type the chosen column. One sample per call path with
// weight of its own (self), its stack leaf first. Group frames on top of a path (thread,
// process, rank, device, label) become sample labels, not locations, so that `-tagfocus`,
// `-tagignore` and `-tagroot` work; a `label` frame `key=value` becomes label key=value.
// One location per frame, one function per (name, file, line) with the line as its start_line
// and on the location's line; a frame's category becomes the mapping of its location (read
// back as the category).
// Profile facts become comments ("key: value"). Weights are rounded to whole numbers
// (pprof's values are int64); PprofStats says how many were not whole.
#pragma once
#include <cstdint>
#include <string_view>

#include "flamefold/output.h"
#include "flamefold/profile.h"

namespace flamefold {

struct PprofStats {
  uint64_t samples = 0, locations = 0, functions = 0;
  uint64_t rounded = 0;  // values that were not whole numbers
  uint64_t bytes = 0;    // of the encoded profile, before compression
};

// Whether `path` names a pprof output: .pb (plain), .pb.gz or .pprof (gzip, pprof's habit).
bool is_pprof_path(std::string_view path);
bool is_gzipped_pprof_path(std::string_view path);
// Whether a pprof output at `path` is gzipped: yes, as pprof writes them, but for a .pb name
// (also for names that say nothing, - and /dev/stdout, when --to pprof chose the kind).
inline bool pprof_output_gzipped(std::string_view path) { return !is_pprof_path(path) || is_gzipped_pprof_path(path); }

// The encoded profile message (uncompressed).
std::string encode_pprof(const Profile& profile, int default_column, PprofStats* stats = nullptr);
// Encodes, gzips when `gzip`, writes to `out`.
PprofStats write_pprof(const Profile& profile, int default_column, OutputFile& out, bool gzip);

}  // namespace flamefold
