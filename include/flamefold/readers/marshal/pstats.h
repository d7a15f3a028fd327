// cProfile / profile pstats files: a marshal dump of
//   {(file, line, name): (pcalls, ncalls, tottime, cumtime, {caller_key: (nc, pc, tt, ct) | int})}
// Both marshal generations are read: Python 3 (FLAG_REF 0x80 and 'r' back-references, short
// ascii 'z'/'Z'/'a'/'A', small tuples ')') and Python 2 ('t' interned strings, 'R' string
// references, 'f' text floats). The pure-Python `profile` module and hotshot store a plain
// call count per caller instead of a 4-tuple.
//
// pstats keeps functions and caller edges, not stacks. The flame graph is rebuilt from the
// edges by this rule (docs/pstats.md): a function is a root for the part of its cumtime its
// callers' edges do not account for (all of it when nobody calls it). Going down, a call edge
// f -> g contributes the edge's cumtime (scaled down when g's callers together claim more
// than g's cumtime, as recursion makes them), times the fraction of f's cumtime the current
// path holds. A function already on the path is not entered again (recursion), paths are at
// most 128 deep, and paths below 0.01 % of the total are kept as leaves without expanding.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "flamefold/call_stats.h"
#include "flamefold/input.h"
#include "flamefold/options.h"
#include "flamefold/profile.h"

namespace flamefold {

// Throws InputError (file, byte offset, problem) for anything that is not a pstats dump.
CallStats parse_pstats(std::string_view bytes, const std::string& name);
CallStats read_pstats_stats(Input& input);

// The reconstructed call tree: columns "cpu" (ns) and "calls".
Profile profile_from_call_stats(const CallStats& stats);
Profile read_pstats(Input& input, const ReadOptions& options);

// The statistics for pstats-shaped outputs: the file's own numbers when the single input is a
// pstats file, otherwise derived from the call tree (the "cpu" column when there is one and
// --weight does not say otherwise). With name options (--short-names, --merge-modules) they
// come from the call tree, renamed, for every input.
CallStats read_call_stats(const std::vector<std::string>& paths, const ReadOptions& options,
                          const NameOptions& names = {});

}  // namespace flamefold
