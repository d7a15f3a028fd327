#include "flamefold/merge.h"

namespace flamefold {

void graft(Profile& into, NodeId at, const Profile& from) {
  std::vector<int> col_map(from.columns.size());
  for (size_t c = 0; c < from.columns.size(); ++c) {
    int idx = into.column(from.columns[c].name);
    if (idx < 0) idx = into.add_column(from.columns[c].name, from.columns[c].unit);
    col_map[c] = idx;
  }
  std::vector<FrameId> frame_map(from.symbols.frame_count(), kNone);
  auto map_frame = [&](FrameId f) {
    if (frame_map[f] == kNone) {
      const Frame& fr = from.symbols[f];
      frame_map[f] = into.symbols.frame(from.symbols.strings[fr.name], from.symbols.strings[fr.file], fr.line,
                                        into.symbols.category(from.symbols.category_name(fr.category)));
    }
    return frame_map[f];
  };
  std::vector<NodeId> node_map(from.node_count(), kNone);
  node_map[0] = at;
  for (size_t c = 0; c < from.columns.size(); ++c) into.add(at, col_map[c], from.columns[c].self[0]);
  // Parents come before children, so one pass in node order suffices.
  for (NodeId n = 1; n < from.node_count(); ++n) {
    NodeId m = into.child(node_map[from.parent[n]], map_frame(from.frame[n]));
    node_map[n] = m;
    for (size_t c = 0; c < from.columns.size(); ++c)
      if (from.columns[c].self[n] != 0) into.add(m, col_map[c], from.columns[c].self[n]);
  }
  for (const Counter& c : from.counters) into.count(c.what, c.count);
}

}  // namespace flamefold
