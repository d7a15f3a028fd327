// From file names to a Profile, and from a Profile to output files: sniffing the format,
// choosing the reader, merging several inputs, choosing the writer by extension.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "flamefold/input.h"
#include "flamefold/options.h"
#include "flamefold/profile.h"

namespace flamefold {

enum class Format {
  Unknown,
  Folded,      // a;b;c 12 (also CPython's tid:N;file:func:line dialect)
  PerfScript,  // perf script text
  Kineto,      // Chrome trace-event JSON (PyTorch profiler and friends)
  Nsys,        // Nsight Systems SQLite export
  Ascend,      // Ascend PyTorch profiler / msprof SQLite DB
  Pstats,      // cProfile / profile marshal dump
};

std::string_view format_name(Format f);
Format parse_format(std::string_view name);  // throws UsageError on an unknown name
// Looks at the first bytes (and the name, only to break ties).
Format sniff_format(std::string_view head, std::string_view path);

// Reads one or more inputs into one profile. Several inputs (ranks) get a top-level frame each.
Profile read_profile(const std::vector<std::string>& paths, const ReadOptions& options);
// Reads one input already open (a file, or bytes in memory: Input::from_memory). The database
// formats (nsys, Ascend) are read from files only.
Profile read_profile(Input& input, const ReadOptions& options);

// Output kinds by extension: folded|txt|collapsed, svg, html|htm, json (top --json) ...
void write_profile(const Profile& profile, const std::string& path, const WriteOptions& options);

// Resolves ReadOptions::weight to a column of the profile (throws UsageError when absent).
int choose_column(const Profile& profile, std::string_view weight);

}  // namespace flamefold
