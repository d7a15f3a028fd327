#include "flamefold/transform.h"

#include <algorithm>
#include <vector>

namespace flamefold {

void copy_symbols(const Symbols& from, Symbols& to) {
  for (size_t c = 1; c < from.category_count(); ++c)
    to.category(from.category_name(static_cast<CategoryId>(c)));
  for (size_t f = 0; f < from.frame_count(); ++f) {
    FrameId id = static_cast<FrameId>(f);
    const Frame& fr = from[id];
    to.frame(from.name(id), from.file(id), fr.line, fr.category);
  }
}

Profile reversed(const Profile& p) {
  Profile out;
  copy_symbols(p.symbols, out.symbols);
  for (const WeightColumn& c : p.columns) out.add_column(c.name, c.unit);
  out.default_column = p.default_column;
  out.source_format = p.source_format;
  out.inputs = p.inputs;
  out.facts = p.facts;
  out.counters = p.counters;

  const size_t columns = p.columns.size();
  for (size_t c = 0; c < columns; ++c) out.add(0, static_cast<int>(c), p.columns[c].self[0]);
  std::vector<FrameId> path;
  for (NodeId n = 1; n < p.node_count(); ++n) {
    bool weighted = false;
    for (size_t c = 0; c < columns && !weighted; ++c) weighted = p.columns[c].self[n] != 0;
    if (!weighted) continue;
    path.clear();
    for (NodeId m = n; m != 0; m = p.parent[m]) path.push_back(p.frame[m]);  // leaf first
    // Group frames sit at the end of `path` (the top of the stack): keep them on top.
    size_t groups = 0;
    while (groups < path.size() && p.symbols.is_group(path[path.size() - 1 - groups])) ++groups;
    NodeId at = 0;
    for (size_t i = 0; i < groups; ++i) at = out.child(at, path[path.size() - 1 - i]);
    for (size_t i = 0; i + groups < path.size(); ++i) at = out.child(at, path[i]);
    for (size_t c = 0; c < columns; ++c) out.add(at, static_cast<int>(c), p.columns[c].self[n]);
  }
  return out;
}

}  // namespace flamefold
