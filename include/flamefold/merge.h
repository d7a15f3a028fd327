// Combining profiles: several ranks or files into one tree.
#pragma once
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "flamefold/profile.h"

namespace flamefold {

// Copies every node of `from` below node `at` of `into`, re-interning frames and matching
// weight columns by name (columns missing in `into` are added).
void graft(Profile& into, NodeId at, const Profile& from);

// The same call tree in canonical order, a function of the tree alone (not of the order it
// was built in): children by (name, category, file, line), nodes numbered depth first, frames,
// their strings and categories numbered where that walk first meets them. Nodes with no
// weight in any column anywhere in their subtree are left out (formats that store samples,
// pprof's, cannot keep them). Columns come in `column_order` (indices into p.columns; empty:
// as they are); the default column follows its column. Metadata (format, inputs, facts,
// counters) is copied; device-op statistics keep their frames.
Profile canonical(const Profile& p, const std::vector<int>& column_order = {});

// `flamefold merge`: profiles added one at a time (each may be dropped after add), one
// canonical profile out. The result depends only on the multiset of (input, level) pairs:
// merging is associative and commutative, byte for byte in every output, as long as weights
// are whole numbers below 2^53 (sums of doubles are exact there). Columns are matched by name
// and sorted by name; the default column is the one asked for, else the least by name of the
// inputs' defaults. Inputs' facts, counters and device-op statistics are not carried (they
// do not survive every format a merged profile passes through, so keeping them would make the
// result depend on the tree of merges).
class Merger {
 public:
  // Adds `one` below a level `label` of category rank, or at the top when `label` is empty.
  // `source` names the input in errors (a weight column whose unit differs from an earlier
  // input's throws InputError).
  void add(const Profile& one, std::string_view label, const std::string& source);
  // The merged profile; `weight` (a column name) chooses its default column when not empty.
  Profile finish(std::string_view weight);
  size_t inputs() const { return inputs_; }

 private:
  Profile merged_;
  std::set<std::string> defaults_;
  size_t inputs_ = 0;
};

// Whether every top-level subtree of `p` is a rank level (a merged profile, or several traces
// read together): such an input keeps its levels instead of getting another.
bool has_rank_levels(const Profile& p);

}  // namespace flamefold
