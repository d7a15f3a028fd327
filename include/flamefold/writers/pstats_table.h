// The table `python -m pstats` prints (`sort KEY` then `stats N`):
//        N function calls (M primitive calls) in X.XXX seconds
//
//    Ordered by: cumulative time
//    List reduced from A to N due to restriction <N>
//
//    ncalls  tottime  percall  cumtime  percall filename:lineno(function)
// Rows are sorted stably in the statistics' (file) order, like pstats' sort_stats.
#pragma once
#include <string_view>

#include "flamefold/call_stats.h"
#include "flamefold/output.h"

namespace flamefold {

// cumulative, cumtime, tottime, time, calls, ncalls, pcalls, filename, file, module, line,
// name, nfl, stdname.
bool is_pstats_sort_key(std::string_view key);
// limit 0 = every row.
void write_pstats_table(const CallStats& stats, std::string_view sort_key, size_t limit, OutputFile& out);

}  // namespace flamefold
