#include "flamefold/merge.h"

#include <algorithm>
#include <string>
#include <unordered_map>

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

void add_part(Profile& into, const Profile& part, std::string_view label) {
  const bool first = into.columns.empty();  // its columns come in its order
  if (into.source_format.empty()) into.source_format = part.source_format;
  NodeId at = 0;
  if (!label.empty())
    at = into.child(0, into.symbols.frame(label, {}, 0, into.symbols.category(category::kRank)));
  graft(into, at, part);
  if (first) into.default_column = part.default_column;
  into.inputs.insert(into.inputs.end(), part.inputs.begin(), part.inputs.end());
  // Kernel statistics by device op (name and kind): counts and times add up, extremes widen.
  if (!part.device_ops.empty()) {
    std::unordered_map<FrameId, size_t> index;
    for (size_t i = 0; i < into.device_ops.size(); ++i) index.emplace(into.device_ops[i].frame, i);
    for (const DeviceOpStats& s : part.device_ops) {
      const Frame& fr = part.symbols[s.frame];
      FrameId f = into.symbols.frame(part.symbols.strings[fr.name], part.symbols.strings[fr.file], fr.line,
                                     into.symbols.category(part.symbols.category_name(fr.category)));
      auto [at, added] = index.emplace(f, into.device_ops.size());
      if (added) {
        DeviceOpStats d = s;
        d.frame = f;
        into.device_ops.push_back(d);
        continue;
      }
      DeviceOpStats& d = into.device_ops[at->second];
      d.min_ns = std::min(d.min_ns, s.min_ns);
      d.max_ns = std::max(d.max_ns, s.max_ns);
      d.count += s.count;
      d.total_ns += s.total_ns;
    }
    // The order build_profile gives them: by total time, then name.
    std::sort(into.device_ops.begin(), into.device_ops.end(), [&](const DeviceOpStats& a, const DeviceOpStats& b) {
      if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
      return into.symbols.name(a.frame) < into.symbols.name(b.frame);
    });
  }
}

}  // namespace flamefold
