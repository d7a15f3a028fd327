// cProfile's pstats file: a Python marshal dump (version 4 codes, which Python 3.4+ loads) of
//   {(file, line, name): (pcalls, ncalls, tottime, cumtime, {caller_key: (ncalls, pcalls, tottime, cumtime)})}
// read by pstats.Stats, snakeviz, gprof2dot and tuna. Each function key is written once and
// referred back to (marshal's 'r' references) in the caller dicts, as Python itself does.
#pragma once
#include <string>

#include "flamefold/call_stats.h"
#include "flamefold/output.h"

namespace flamefold {

// The marshal bytes of the statistics.
std::string pstats_bytes(const CallStats& stats);
void write_pstats(const CallStats& stats, OutputFile& out);

}  // namespace flamefold
