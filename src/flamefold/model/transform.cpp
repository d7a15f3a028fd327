#include "flamefold/transform.h"

#include <algorithm>
#include <span>
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

  // Each weighted node's reversed path (its key): the group frames on top in their order, then
  // the frames below them leaf first. Keys are all different (the original paths are), so once
  // they are sorted the tree is built in one pass without looking any child up: a key shares
  // its first `lcp` nodes with the previous key and appends the rest as new children.
  std::vector<NodeId> weighted;
  std::vector<uint32_t> key_begin;
  std::vector<FrameId> keys;
  std::vector<char> group_frame(p.symbols.frame_count());
  for (FrameId f = 0; f < group_frame.size(); ++f) group_frame[f] = p.symbols.is_group(f);
  std::vector<FrameId> path;
  for (NodeId n = 1; n < p.node_count(); ++n) {  // in id order: the weights are read in sequence
    bool weighted_here = false;
    for (size_t c = 0; c < columns && !weighted_here; ++c) weighted_here = p.columns[c].self[n] != 0;
    if (!weighted_here) continue;
    path.clear();
    for (NodeId m = n; m != 0; m = p.parent[m]) path.push_back(p.frame[m]);  // leaf first
    size_t groups = 0;
    while (groups < path.size() && group_frame[path[path.size() - 1 - groups]]) ++groups;
    weighted.push_back(n);
    key_begin.push_back(static_cast<uint32_t>(keys.size()));
    for (size_t i = 0; i < groups; ++i) keys.push_back(path[path.size() - 1 - i]);
    keys.insert(keys.end(), path.begin(), path.end() - static_cast<std::ptrdiff_t>(groups));
  }
  key_begin.push_back(static_cast<uint32_t>(keys.size()));
  auto key = [&](size_t i) {
    return std::span<const FrameId>(keys.data() + key_begin[i], key_begin[i + 1] - key_begin[i]);
  };
  std::vector<uint32_t> order(weighted.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    std::span<const FrameId> ka = key(a), kb = key(b);
    return std::lexicographical_compare(ka.begin(), ka.end(), kb.begin(), kb.end());
  });

  // At most one new node per key frame: reserve once instead of growing (page faults dominate).
  size_t most = keys.size() + 1;
  out.parent.reserve(most);
  out.frame.reserve(most);
  out.first_child.reserve(most);
  out.next_sibling.reserve(most);
  for (WeightColumn& c : out.columns) c.self.reserve(most);

  std::vector<NodeId> at{0};  // at[d]: the node of the previous key's first d frames
  std::span<const FrameId> previous;
  for (uint32_t i : order) {
    std::span<const FrameId> k = key(i);
    size_t lcp = 0;
    while (lcp < k.size() && lcp < previous.size() && k[lcp] == previous[lcp]) ++lcp;
    at.resize(lcp + 1);
    for (size_t d = lcp; d < k.size(); ++d) at.push_back(out.append_new_child(at.back(), k[d]));
    NodeId node = at[k.size()];
    NodeId from = weighted[i];
    for (size_t c = 0; c < columns; ++c) out.add(node, static_cast<int>(c), p.columns[c].self[from]);
    previous = k;
  }
  return out;
}

}  // namespace flamefold
