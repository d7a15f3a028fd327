// `perf script` text, collapsed the way stackcollapse-perf.pl does it (same options, same
// defaults, byte-identical folded output), streamed in bounded memory and on several cores.
//
// The profile has one weight column, "samples" (the sum of sample periods when perf printed
// them, as stackcollapse-perf.pl counts). The root frames are the process names (category
// "process"); with --pid they are comm-pid ("process"), with --tid comm-pid/tid ("thread").
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "flamefold/input.h"
#include "flamefold/options.h"
#include "flamefold/profile.h"

namespace flamefold {

bool looks_like_perf_script(std::string_view head);
Profile read_perf_script(Input& input, const ReadOptions& options);

// The pieces of stackcollapse-perf.pl's line grammar, exposed for tests. Each follows the
// Perl regular expression it replaces, including its backtracking corner cases.
namespace perf_script {

// /^(\S.+?)\s+(\d+)\/*(\d+)*\s+/ : "comm pid[/tid] ...". tid is empty when absent.
struct EventRecord {
  std::string_view comm, pid, tid;
};
bool parse_event_record(std::string_view line, EventRecord& record);

// /:\s*(\d+)*\s+(\S+):\s*$/ : "...: [period] event:". period is empty when absent.
bool parse_event_name(std::string_view line, std::string_view& event, std::string_view& period);

// /^\s*(\w+)\s*(.+) \((\S*)\)/ : "  pc symbol (module)".
struct StackLine {
  std::string_view pc, rawfunc, module;
};
bool parse_stack_line(std::string_view line, StackLine& stack_line);

// The frame names one stack line contributes (outermost inlined frame first), after offset
// stripping, `[unknown]` replacement, tidying and annotation. Empty when the line is skipped.
std::vector<std::string> frame_names(const StackLine& stack_line, const PerfOptions& options, bool java_process);

}  // namespace perf_script

}  // namespace flamefold
