// The stack formats FlameGraph's stackcollapse-*.pl and inferno's collapse-* turn into folded
// stacks, each read as its peer reads it (the same stacks and counts, checked by parity tests):
//
//   dtrace   DTrace ustack()/stack() aggregations      stackcollapse.pl, inferno-collapse-dtrace
//   sample   macOS `sample` call graphs                 inferno-collapse-sample
//   xctrace  Instruments `xctrace export` XML           inferno-collapse-xctrace
//   vtune    Intel VTune CSV call stacks                inferno-collapse-vtune
//   vsprof   Visual Studio profiler CSV call trees      inferno-collapse-vsprof
//   ghcprof  GHC .prof cost-centre trees                inferno-collapse-ghcprof
//   bpftrace bpftrace @[ustack]/@[kstack] maps          stackcollapse-bpftrace.pl
//   go       go tool pprof -raw (and -traces) text      stackcollapse-go.pl
//   jstack   Java thread dumps (RUNNABLE threads)       stackcollapse-jstack.pl
//   stap     SystemTap print_stack() aggregations       stackcollapse-stap.pl
//
// Each gives a profile of folded stacks with one weight column; `flamefold collapse` prints the
// lines the peer prints (sorted; stacks of zero weight left out).
#pragma once
#include <string_view>

#include "flamefold/input.h"
#include "flamefold/options.h"
#include "flamefold/profile.h"

namespace flamefold {

enum class StackFormat { None, Dtrace, Sample, Xctrace, Vtune, Vsprof, Ghcprof, Bpftrace, Go, Jstack, Stap };

// Which of these formats the head of an input is in (None: none of them).
StackFormat sniff_stack_format(std::string_view head);
std::string_view stack_format_name(StackFormat f);
Profile read_stack_format(Input& input, StackFormat f, const ReadOptions& options);

// One reader per format (readers/text/collapse_*.cpp).
Profile read_dtrace(Input& input, const ReadOptions& options);
Profile read_stap(Input& input, const ReadOptions& options);
Profile read_mac_sample(Input& input, const ReadOptions& options);
Profile read_xctrace(Input& input, const ReadOptions& options);
Profile read_vtune(Input& input, const ReadOptions& options);
Profile read_vsprof(Input& input, const ReadOptions& options);
Profile read_ghcprof(Input& input, const ReadOptions& options);
Profile read_bpftrace(Input& input, const ReadOptions& options);
Profile read_go_pprof_text(Input& input, const ReadOptions& options);
Profile read_jstack(Input& input, const ReadOptions& options);

// The sniffers behind sniff_stack_format, each on UTF-8 text.
bool looks_like_dtrace(std::string_view head);
bool looks_like_stap(std::string_view head);
bool looks_like_mac_sample(std::string_view head);
bool looks_like_xctrace(std::string_view head);
bool looks_like_vtune(std::string_view head);
bool looks_like_vsprof(std::string_view head);
bool looks_like_ghcprof(std::string_view head);
bool looks_like_bpftrace(std::string_view head);
bool looks_like_go_pprof_text(std::string_view head);
bool looks_like_jstack(std::string_view head);

}  // namespace flamefold
