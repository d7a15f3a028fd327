// From file names to a Profile, and from a Profile to output files: sniffing the format,
// choosing the reader, merging several inputs, choosing the writer by extension.
#pragma once
#include <functional>
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
  Speedscope,  // speedscope's JSON file format (sampled and evented profiles)
  Cpuprofile,  // Chrome DevTools / Node .cpuprofile; a DevTools trace's Profile/ProfileChunk samples
  Gecko,       // Firefox Profiler: Gecko's own profile or the processed format
  // Stack formats FlameGraph and inferno collapse (readers/text/collapse.h).
  Dtrace,      // DTrace ustack()/stack() aggregations
  Sample,      // macOS `sample` call graphs
  Xctrace,     // Instruments `xctrace export` XML
  Vtune,       // Intel VTune CSV call stacks
  Vsprof,      // Visual Studio profiler CSV call trees
  Ghcprof,     // GHC .prof cost-centre trees
  Bpftrace,    // bpftrace @[ustack] maps
  GoPprofText, // go tool pprof -raw / -traces
  Jstack,      // Java thread dumps
  Stap,        // SystemTap print_stack() aggregations
  Pprof,       // pprof profile.proto (gzipped or plain)
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

// `flamefold merge`: each input read on its own (any format) and merged (merge.h: Merger),
// with a level per input by `label_by`: "file" (its base name), "rank" ("rank N": the rank the
// input records, else the number after "rank" in its name, else its last number) or "none".
// Inputs whose top levels are all ranks already (merged profiles) keep them and get none.
// `on_read(path, profile)` sees each input once read (to report its warnings).
Profile merge_inputs(const std::vector<std::string>& paths, const ReadOptions& options, std::string_view label_by,
                     const std::function<void(const std::string&, const Profile&)>& on_read = {});

// The level merge_inputs puts one input under (the text of its rank frame), by `label_by`;
// "" when it gets none. Bindings that merge profiles already read use it to label them alike.
std::string merge_label(const Profile& one, const std::string& path, std::string_view label_by);

// What write_profile writes: the kind --to names (WriteOptions::to), else the one the path's
// extension says (.html/.htm, .svg, .folded/.collapsed/.txt/.stacks, .speedscope.json,
// .pb.gz/.pprof/.pb), else for stdout (-, /dev/stdout) `on_stdout`; Unknown when none says.
enum class OutputKind { Unknown, Html, Svg, Folded, Speedscope, Pprof };
OutputKind output_kind(const std::string& path, std::string_view to, OutputKind on_stdout = OutputKind::Folded);
// The names --to takes, in the enum's order (Html = 1 ...).
inline constexpr const char* kOutputKindNames[] = {"html", "svg", "folded", "speedscope", "pprof"};

void write_profile(const Profile& profile, const std::string& path, const WriteOptions& options,
                   OutputKind on_stdout = OutputKind::Folded);

// --short-names / --merge-modules (WriteOptions::names): renames and merges the profile's frames
// for every output but HTML, whose page keeps the full names and does the same with its
// switches (turned on by these options).
void apply_name_options(Profile& profile, const std::string& output_path, const WriteOptions& options);

// Resolves ReadOptions::weight to a column of the profile (throws UsageError when absent).
int choose_column(const Profile& profile, std::string_view weight);

}  // namespace flamefold
