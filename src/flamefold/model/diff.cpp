#include "flamefold/diff.h"

#include <cmath>

#include "flamefold/function_stats.h"

namespace flamefold {

int before_column(const Profile& p, int after_column) {
  if (after_column < 0 || after_column >= static_cast<int>(p.columns.size())) return -1;
  const std::string& name = p.columns[after_column].name;
  if (name.compare(0, kBeforePrefix.size(), kBeforePrefix) == 0) return -1;  // itself a before column
  return p.column(std::string(kBeforePrefix) + name);
}

bool is_differential(const Profile& p) {
  for (const WeightColumn& c : p.columns)
    if (c.name.compare(0, kBeforePrefix.size(), kBeforePrefix) == 0) return true;
  return false;
}

std::string strip_hex_numbers(std::string_view text) {
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); };
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (i + 2 < text.size() && text[i] == '0' && text[i + 1] == 'x' && hex(text[i + 2])) {
      out.append("0x...");
      i += 2;
      while (i < text.size() && hex(text[i])) ++i;
      continue;
    }
    out.push_back(text[i++]);
  }
  return out;
}

namespace {

// Copies `from`'s tree into `into` below the root, its columns into those named prefix + name;
// frames are matched by name, file, line and category (hex numbers read as 0x... with strip_hex).
void add_side(Profile& into, const Profile& from, std::string_view prefix, bool strip_hex) {
  std::vector<int> col_map(from.columns.size());
  for (size_t c = 0; c < from.columns.size(); ++c)
    col_map[c] = into.column(std::string(prefix) + from.columns[c].name);
  std::vector<FrameId> frame_map(from.symbols.frame_count(), kNone);
  auto map_frame = [&](FrameId f) {
    if (frame_map[f] == kNone) {
      const Frame& fr = from.symbols[f];
      std::string_view name = from.symbols.strings[fr.name], file = from.symbols.strings[fr.file];
      CategoryId cat = into.symbols.category(from.symbols.category_name(fr.category));
      frame_map[f] = strip_hex ? into.symbols.frame(strip_hex_numbers(name), strip_hex_numbers(file), fr.line, cat)
                               : into.symbols.frame(name, file, fr.line, cat);
    }
    return frame_map[f];
  };
  std::vector<NodeId> node_map(from.node_count(), kNone);
  node_map[0] = 0;
  for (size_t c = 0; c < from.columns.size(); ++c) into.add(0, col_map[c], from.columns[c].self[0]);
  for (NodeId n = 1; n < from.node_count(); ++n) {
    NodeId m = into.child(node_map[from.parent[n]], map_frame(from.frame[n]));
    node_map[n] = m;
    for (size_t c = 0; c < from.columns.size(); ++c)
      if (from.columns[c].self[n] != 0) into.add(m, col_map[c], from.columns[c].self[n]);
  }
}

}  // namespace

Profile make_diff(Profile before, Profile after, const DiffOptions& o) {
  // The after side's tree is kept as it is (its frames and nodes); the before side is grafted
  // onto it. Stripping hex numbers renames frames on both sides: then both are grafted anew.
  Profile d;
  if (o.strip_hex) {
    for (const WeightColumn& c : after.columns) d.add_column(c.name, c.unit);
    d.default_column = after.columns.empty() ? 0 : after.default_column;
    d.source_format = after.source_format;
    d.inputs = after.inputs;
    d.facts = after.facts;
    d.counters = after.counters;
    d.device_ops = after.device_ops;  // frame ids are remapped below (after's frames come first)
  } else {
    d = std::move(after);
  }
  const std::string after_format = d.source_format;
  if (after_format != before.source_format) d.source_format = before.source_format + " vs " + after_format;
  // Columns only the before side has, then every column's before companion.
  for (const WeightColumn& c : before.columns)
    if (d.column(c.name) < 0) d.add_column(c.name, c.unit);
  const size_t sides = d.columns.size();
  for (size_t c = 0; c < sides; ++c) d.add_column(std::string(kBeforePrefix) + d.columns[c].name, d.columns[c].unit);

  if (o.strip_hex) {
    std::vector<DeviceOpStats> ops = std::move(d.device_ops);
    d.device_ops.clear();
    add_side(d, after, "", true);
    for (DeviceOpStats s : ops) {  // after's frames were interned first, in their order
      const Frame& fr = after.symbols[s.frame];
      s.frame = d.symbols.frame(strip_hex_numbers(after.symbols.strings[fr.name]), strip_hex_numbers(after.symbols.strings[fr.file]),
                                fr.line, d.symbols.category(after.symbols.category_name(fr.category)));
      d.device_ops.push_back(s);
    }
  }
  add_side(d, before, kBeforePrefix, o.strip_hex);

  if (o.normalize) {
    // difffolded.pl -n: each before stack scaled to the after side's total, truncated.
    for (size_t c = 0; c < sides; ++c) {
      const int b = before_column(d, static_cast<int>(c));
      const double t1 = d.total(b), t2 = d.total(static_cast<int>(c));
      if (t1 == t2 || t1 == 0) continue;
      for (double& w : d.columns[b].self) w = std::trunc(w * t2 / t1);
    }
  }

  std::vector<std::pair<std::string, std::string>> facts;
  std::string sides_text;
  for (const std::string& in : before.inputs) sides_text += (sides_text.empty() ? "" : ", ") + in;
  facts.emplace_back("before", sides_text);
  for (auto& [k, v] : before.facts) facts.emplace_back("before: " + k, v);
  for (auto& f : d.facts) facts.push_back(std::move(f));
  d.facts = std::move(facts);
  std::vector<Counter> counters;
  for (const Counter& c : before.counters) add_to_counters(counters, "before: " + c.what, c.count);
  for (const Counter& c : d.counters) add_to_counters(counters, c.what, c.count);
  d.counters = std::move(counters);
  return d;
}

std::vector<FrameChange> frame_changes(const Profile& p, int after_column) {
  const int b = before_column(p, after_column);
  std::vector<FrameStats> a = frame_stats(p, after_column);
  std::vector<FrameStats> s = b >= 0 ? frame_stats(p, b) : std::vector<FrameStats>{};
  // Both are in frame-id order: merge them.
  std::vector<FrameChange> out;
  size_t i = 0, j = 0;
  while (i < a.size() || j < s.size()) {
    FrameChange c;
    if (j == s.size() || (i < a.size() && a[i].frame < s[j].frame)) {
      c.frame = a[i].frame;
      c.after_self = a[i].self;
      c.after_total = a[i].total;
      ++i;
    } else if (i == a.size() || s[j].frame < a[i].frame) {
      c.frame = s[j].frame;
      c.before_self = s[j].self;
      c.before_total = s[j].total;
      ++j;
    } else {
      c.frame = a[i].frame;
      c.after_self = a[i].self;
      c.after_total = a[i].total;
      c.before_self = s[j].self;
      c.before_total = s[j].total;
      ++i;
      ++j;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace flamefold
