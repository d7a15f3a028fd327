#include "flamefold/function_stats.h"

namespace flamefold {

std::vector<FrameStats> frame_stats(const Profile& p, int column) {
  const std::vector<double>& self = p.columns[column].self;
  std::vector<double> total = p.totals(column);
  int calls_col = p.column("calls");
  size_t nf = p.symbols.frame_count();
  std::vector<FrameStats> by_frame(nf);
  std::vector<uint32_t> open(nf, 0);  // how many times each frame is on the current path
  for (size_t f = 0; f < nf; ++f) by_frame[f].frame = static_cast<FrameId>(f);

  // Iterative depth-first walk keeping `open` up to date.
  std::vector<NodeId> stack;
  for (NodeId c = p.first_child[0]; c != kNone; c = p.next_sibling[c]) stack.push_back(c);
  std::vector<NodeId> path;
  while (!stack.empty()) {
    NodeId n = stack.back();
    stack.pop_back();
    while (!path.empty() && path.back() != p.parent[n]) {
      --open[p.frame[path.back()]];
      path.pop_back();
    }
    FrameId f = p.frame[n];
    FrameStats& s = by_frame[f];
    s.self += self[n];
    if (open[f] == 0) s.total += total[n];
    if (calls_col >= 0) s.calls += p.columns[calls_col].self[n];
    ++open[f];
    path.push_back(n);
    for (NodeId c = p.first_child[n]; c != kNone; c = p.next_sibling[c]) stack.push_back(c);
  }
  std::vector<FrameStats> out;
  for (FrameStats& s : by_frame)
    if ((s.self != 0 || s.total != 0) && !p.symbols.is_group(s.frame)) out.push_back(s);
  return out;
}

}  // namespace flamefold
