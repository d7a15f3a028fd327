// Function-level statistics in cProfile's terms (what a pstats file holds), derived from the
// call tree — or read directly from a pstats file, which has nothing else.
//
//   function key  (file, line, name): frames with a source file use it; ops and built-ins
//                 are ('~', 0, name) as cProfile writes them. Group frames are left out.
//   ncalls        calls of the function (the profile's "calls" column; see below without one)
//   pcalls        primitive calls: the function was not already on the stack
//   tottime       own time; cumtime: inclusive time counted once across recursion
//   callers       per (caller, callee) edge: ncalls, pcalls (the pair not already open on the
//                 stack, as _lsprof counts it), tottime, cumtime (counted once per open pair)
//
// Times are in seconds when the weight column is a time ("ns" and friends). Sampled profiles
// (no "calls" column) use their weight as is and count one call per distinct call path, which
// `from_samples` records so the tables can say so.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "flamefold/profile.h"

namespace flamefold {

struct FunctionStat {
  std::string file;  // "~" for built-ins and ops
  uint32_t line = 0;
  std::string name;
  double pcalls = 0, ncalls = 0, tottime = 0, cumtime = 0;
  uint32_t first_caller = kNone;  // into CallStats::callers, a chain through next_caller
  // False for a function a pstats file names only as a caller (pstats does not list it).
  bool listed = true;
};

struct CallerEdge {
  uint32_t caller = 0, callee = 0;  // indices into CallStats::functions
  double ncalls = 0, pcalls = 0, tottime = 0, cumtime = 0;
  // pstats from the pure-Python `profile` module stores only a call count per caller.
  bool count_only = false;
  uint32_t next_caller = kNone;  // the callee's next caller edge (chains run in increasing index)
};

struct CallStats {
  std::vector<FunctionStat> functions;  // in order of first appearance (the file's dict order)
  std::vector<CallerEdge> callers;
  bool from_samples = false;  // times are sample weights, ncalls counts call paths
  std::string time_unit = "s";  // what tottime/cumtime are in ("s", or the column's unit)
  std::string source;           // the input's name, for table headers

  double total_calls() const;  // sums in dict order, as pstats does
  double prim_calls() const;
  double total_tt() const;
};

// Derives the statistics from the tree through one weight column (a time column: "cpu" ns,
// or samples) and the profile's "calls" column when it has one.
CallStats call_stats(const Profile& profile, int time_column);

// Tests: false makes call_stats() take its general 16-byte (caller, callee, node) pairs even
// when they would pack into 8 bytes (the default; the results are the same).
void set_call_stats_packed_pairs(bool packed);

// How pstats prints a function: "file:line(name)", or "{name}" / "name" for ('~', 0, name).
std::string pstats_std_string(const FunctionStat& f);

}  // namespace flamefold
