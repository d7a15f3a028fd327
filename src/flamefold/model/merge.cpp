#include "flamefold/merge.h"

#include <algorithm>
#include <cstring>

#include "flamefold/errors.h"

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

namespace flamefold {

namespace {

// Sibling order: name (its first 8 bytes as a big-endian number, then the rest), category,
// file, line. Frames of one profile are distinct, so this is a strict total order on siblings.
struct FrameOrder {
  const Symbols& s;
  explicit FrameOrder(const Symbols& sym) : s(sym) {}
  static uint64_t name_key(std::string_view name) {
    uint64_t b = 0;
    std::memcpy(&b, name.data(), std::min<size_t>(name.size(), 8));
    return __builtin_bswap64(b);
  }
  bool less(FrameId a, FrameId b) const {
    const Frame &x = s[a], &y = s[b];
    if (x.name != y.name) {
      std::string_view nx = s.strings[x.name], ny = s.strings[y.name];
      if (nx != ny) return nx < ny;
    }
    if (x.category != y.category) return s.category_name(x.category) < s.category_name(y.category);
    if (x.file != y.file) return s.strings[x.file] < s.strings[y.file];
    return x.line < y.line;
  }
};

}  // namespace

Profile canonical(const Profile& p, const std::vector<int>& column_order) {
  const size_t n = p.node_count();
  std::vector<int> cols = column_order;
  if (cols.empty())
    for (size_t c = 0; c < p.columns.size(); ++c) cols.push_back(static_cast<int>(c));

  // Which nodes stay: weight of their own or below them (children come after parents).
  std::vector<uint8_t> keep(n, 0);
  for (size_t v = n; v-- > 0;) {
    if (!keep[v])
      for (const WeightColumn& c : p.columns)
        if (c.self[v] != 0) {
          keep[v] = 1;
          break;
        }
    if (keep[v] && v) keep[p.parent[v]] = 1;
  }
  keep[0] = 1;

  // Children of every kept node, each run of siblings in frame order.
  std::vector<uint32_t> start(n + 1, 0);
  for (size_t v = 1; v < n; ++v)
    if (keep[v]) ++start[p.parent[v] + 1];
  for (size_t i = 1; i <= n; ++i) start[i] += start[i - 1];
  std::vector<NodeId> kids(start[n]);
  {
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (size_t v = 1; v < n; ++v)
      if (keep[v]) kids[fill[p.parent[v]]++] = static_cast<NodeId>(v);
  }
  FrameOrder order(p.symbols);
  struct Keyed {
    uint64_t key;
    NodeId node;
  };
  std::vector<Keyed> run;
  for (size_t v = 0; v < n; ++v) {
    const uint32_t b = start[v], e = start[v + 1];
    if (e - b < 2) continue;
    run.clear();
    for (uint32_t k = b; k < e; ++k) run.push_back({FrameOrder::name_key(p.symbols.name(p.frame[kids[k]])), kids[k]});
    std::sort(run.begin(), run.end(), [&](const Keyed& x, const Keyed& y) {
      if (x.key != y.key) return x.key < y.key;
      return order.less(p.frame[x.node], p.frame[y.node]);
    });
    for (uint32_t k = b; k < e; ++k) kids[k] = run[k - b].node;
  }

  // Depth-first numbers: a node's is its parent's + 1 + the sizes of the siblings before it.
  std::vector<uint32_t> at(n, 1);
  for (size_t v = n; v-- > 1;)
    if (keep[v]) at[p.parent[v]] += at[v];
  const size_t m = at[0];
  at[0] = 0;
  Profile out;
  out.parent.assign(m, kNone);
  out.frame.assign(m, kNone);
  out.first_child.assign(m, kNone);
  out.next_sibling.assign(m, kNone);
  // at[v] is v's subtree size until its parent's turn gives it its number; parents come first.
  std::vector<NodeId> old_of(m, 0);
  for (size_t v = 0; v < n; ++v) {
    if (!keep[v]) continue;
    const NodeId here = at[v];
    NodeId next = here + 1, older = kNone;
    for (uint32_t k = start[v]; k < start[v + 1]; ++k) {
      const NodeId c = kids[k];
      const uint32_t size = at[c];
      at[c] = next;
      old_of[next] = c;
      out.parent[next] = here;
      out.next_sibling[next] = older;  // newest first, as Profile::append_new_child links them
      older = next;
      next += size;
    }
    out.first_child[here] = older;
  }

  // Frames, strings and categories in the order the walk meets them.
  std::vector<FrameId> frame_of(p.symbols.frame_count(), kNone);
  std::vector<CategoryId> cat_of(p.symbols.category_count(), 0);
  std::vector<uint8_t> cat_done(p.symbols.category_count(), 0);
  auto map_frame = [&](FrameId f) {
    FrameId& g = frame_of[f];
    if (g == kNone) {
      const Frame& fr = p.symbols[f];
      if (!cat_done[fr.category]) {
        cat_of[fr.category] = out.symbols.category(p.symbols.category_name(fr.category));
        cat_done[fr.category] = 1;
      }
      g = out.symbols.frame(p.symbols.strings[fr.name], p.symbols.strings[fr.file], fr.line, cat_of[fr.category]);
    }
    return g;
  };
  for (size_t v = 1; v < m; ++v) out.frame[v] = map_frame(p.frame[old_of[v]]);

  out.default_column = 0;
  for (size_t i = 0; i < cols.size(); ++i) {
    const WeightColumn& c = p.columns[cols[i]];
    int k = out.add_column(c.name, c.unit);
    std::vector<double>& self = out.columns[k].self;
    for (size_t v = 0; v < m; ++v) self[v] = c.self[old_of[v]];
    if (cols[i] == p.default_column) out.default_column = k;
  }
  out.source_format = p.source_format;
  out.inputs = p.inputs;
  out.facts = p.facts;
  out.counters = p.counters;
  out.device_ops = p.device_ops;
  for (DeviceOpStats& d : out.device_ops) d.frame = map_frame(d.frame);
  return out;
}

bool has_rank_levels(const Profile& p) {
  bool any = false;
  for (NodeId c = p.first_child[0]; c != kNone; c = p.next_sibling[c]) {
    if (p.symbols.category_name(p.symbols[p.frame[c]].category) != category::kRank) return false;
    any = true;
  }
  return any;
}

void Merger::add(const Profile& one, std::string_view label, const std::string& source) {
  for (const WeightColumn& c : one.columns) {
    int k = merged_.column(c.name);
    if (k >= 0 && merged_.columns[k].unit != c.unit)
      throw InputError(source, "", "weight '" + c.name + "' is in " + c.unit + " here but in " + merged_.columns[k].unit +
                                       " in another input: they cannot be added up");
  }
  if (!one.columns.empty()) defaults_.insert(one.columns[one.default_column].name);
  NodeId at = 0;
  if (!label.empty()) at = merged_.child(0, merged_.symbols.frame(label, {}, 0, merged_.symbols.category(category::kRank)));
  graft(merged_, at, one);
  merged_.counters.clear();
  ++inputs_;
}

Profile Merger::finish(std::string_view weight) {
  std::vector<int> order;
  for (size_t c = 0; c < merged_.columns.size(); ++c) order.push_back(static_cast<int>(c));
  std::sort(order.begin(), order.end(), [&](int a, int b) { return merged_.columns[a].name < merged_.columns[b].name; });
  std::string want = weight.empty() ? (defaults_.empty() ? std::string() : *defaults_.begin()) : std::string(weight);
  merged_.default_column = 0;
  if (!want.empty()) {
    int k = merged_.column(want);
    if (k < 0) {
      std::string have;
      for (const WeightColumn& col : merged_.columns) have += (have.empty() ? "" : ", ") + col.name;
      throw UsageError("the merged profile has no '" + want + "' weight (it has: " + have + ")");
    }
    merged_.default_column = k;
  }
  Profile out = canonical(merged_, order);
  out.source_format = "merge";
  out.inputs.clear();
  out.facts.clear();
  out.counters.clear();
  out.device_ops.clear();
  merged_ = Profile();
  return out;
}

}  // namespace flamefold
