// Profile -> speedscope JSON (include/flamefold/writers/speedscope.h).
#include "flamefold/writers/speedscope.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include "flamefold/json_text.h"
#include "flamefold/timeline/chart.h"
#include "flamefold/utf8.h"

namespace flamefold {

namespace {

void append_number(std::string& out, double w) {
  if (w == std::floor(w) && std::fabs(w) < 9007199254740992.0) fmt::format_to(std::back_inserter(out), "{}", int64_t(w));
  else fmt::format_to(std::back_inserter(out), "{}", w);  // shortest text that reads back the same
}

std::string_view speedscope_unit(std::string_view unit) {
  if (unit == "ns") return "nanoseconds";
  if (unit == "us") return "microseconds";
  if (unit == "ms") return "milliseconds";
  if (unit == "s") return "seconds";
  if (unit == "bytes") return "bytes";
  return "none";
}

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// speedscope's evented profiles, one per lane of the flame chart (host threads, device streams):
// each event opened at its start and closed at its end, in nanoseconds from the chart's first
// event. speedscope needs them nested: an event that outlasts the one it starts in is cut at
// that one's end (a lane's events are sorted by start, the longer first). Marked
// {"flamefold":{"timeline":true}} so that flamefold's reader leaves them out: their weight is in
// the sampled profiles already.
void write_time_order(const Profile& p, const TimelineChart& chart, const std::vector<uint32_t>& frame_index,
                      OutputFile& out, SpeedscopeStats& st) {
  std::vector<std::vector<uint32_t>> by_lane(chart.lanes.size());
  int64_t origin = INT64_MAX;
  for (uint32_t i = 0; i < chart.events.size(); ++i) {
    const TimelineChart::Event& e = chart.events[i];
    if (e.node == kNone || e.node >= p.node_count() || e.lane >= chart.lanes.size()) continue;
    by_lane[e.lane].push_back(i);
    origin = std::min(origin, e.start);
  }
  struct Open {
    uint32_t frame;
    int64_t end;
  };
  std::vector<Open> open;
  std::string& buf = out.buffer();
  for (size_t lane = 0; lane < by_lane.size(); ++lane) {
    if (by_lane[lane].empty()) continue;
    const TimelineChart::Lane& l = chart.lanes[lane];
    std::string name = l.process.empty() ? l.name : l.process + " / " + l.name;
    if (chart.ranks.size() > 1 && l.rank < chart.ranks.size()) name = chart.ranks[l.rank] + " / " + name;
    name += " (time order)";
    buf += st.profiles ? ",\n{\"type\":\"evented\",\"name\":" : "\n{\"type\":\"evented\",\"name\":";
    append_clean_json_string(buf, name);
    const int64_t first = chart.events[by_lane[lane].front()].start - origin;
    fmt::format_to(std::back_inserter(buf), ",\"unit\":\"nanoseconds\",\"startValue\":{},\"flamefold\":{{\"timeline\":true}},"
                   "\n\"events\":[", first);
    bool any = false;
    auto emit = [&](char type, uint32_t frame, int64_t at) {
      fmt::format_to(std::back_inserter(buf), "{}{{\"type\":\"{}\",\"frame\":{},\"at\":{}}}", any ? "," : "", type, frame, at);
      any = true;
      out.maybe_flush();
    };
    int64_t last = first;
    open.clear();
    for (uint32_t i : by_lane[lane]) {
      const TimelineChart::Event& e = chart.events[i];
      const int64_t start = e.start - origin;
      int64_t end = std::max(e.end, e.start) - origin;
      while (!open.empty() && open.back().end <= start) {
        emit('C', open.back().frame, open.back().end);
        open.pop_back();
      }
      if (!open.empty() && end > open.back().end) end = open.back().end;
      const uint32_t frame = frame_index[p.frame[e.node]];
      emit('O', frame, start);
      open.push_back(Open{frame, end});
      last = std::max(last, end);
    }
    while (!open.empty()) {
      emit('C', open.back().frame, open.back().end);
      open.pop_back();
    }
    fmt::format_to(std::back_inserter(buf), "],\"endValue\":{}}}", last);
    ++st.profiles;
    st.events += by_lane[lane].size();
  }
}

}  // namespace

bool is_speedscope_path(std::string_view path) {
  constexpr std::string_view kExt = ".speedscope.json";
  if (path.size() < kExt.size()) return false;
  std::string_view tail = path.substr(path.size() - kExt.size());
  for (size_t i = 0; i < kExt.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(tail[i])) != kExt[i]) return false;
  return true;
}

SpeedscopeStats write_speedscope(const Profile& p, OutputFile& out, const WriteOptions& o) {
  const size_t n = p.node_count();
  // Which nodes are group frames on a path of group frames from the root: the profiles' bases.
  std::vector<uint8_t> group(n, 0);
  group[0] = 1;
  for (NodeId v = 1; v < n; ++v) group[v] = group[p.parent[v]] && p.symbols.is_group(p.frame[v]);

  // Columns in output order: the default first. Per column, whether a node's subtree holds
  // weight (flags, not sums: nothing cancels out).
  std::vector<int> order;
  if (!p.columns.empty()) order.push_back(p.default_column);
  for (int c = 0; c < int(p.columns.size()); ++c)
    if (c != p.default_column) order.push_back(c);
  std::vector<std::vector<uint8_t>> weighted(p.columns.size());
  for (int c : order) {
    const std::vector<double>& self = p.columns[c].self;
    std::vector<uint8_t>& w = weighted[c];
    w.assign(n, 0);
    for (NodeId v = 0; v < n; ++v) {
      double x = self[v];
      if (x == 0) continue;
      if (!std::isfinite(x) || x < 0)
        throw std::runtime_error(fmt::format("cannot write {}: the '{}' weight has a {} value ({}), which speedscope "
                                             "cannot show",
                                             out.path(), p.columns[c].name, x < 0 ? "negative" : "non-finite", x));
      w[v] = 1;
    }
    for (NodeId v = NodeId(n); v-- > 1;) w[p.parent[v]] |= w[v];
  }

  // The bases in tree order (depth first, children in list order), and their labels.
  std::vector<NodeId> bases;
  std::vector<NodeId> todo{0};
  while (!todo.empty()) {
    NodeId v = todo.back();
    todo.pop_back();
    bases.push_back(v);
    std::vector<NodeId> kids;
    for (NodeId c = p.first_child[v]; c != kNone; c = p.next_sibling[c])
      if (group[c]) kids.push_back(c);
    todo.insert(todo.end(), kids.rbegin(), kids.rend());
  }
  std::string whole = !o.title.empty() ? o.title : !p.inputs.empty() ? base_name(p.inputs.front()) : "profile";
  auto label_of = [&](NodeId b) {
    if (b == 0) return whole;
    std::string s;
    for (NodeId v = b; v != 0; v = p.parent[v]) s = std::string(p.symbols.name(p.frame[v])) + (s.empty() ? "" : " / ") + s;
    return s;
  };

  // Frames in the order the samples first use them.
  std::vector<uint32_t> index(p.symbols.frame_count(), kNone);
  std::vector<FrameId> used;
  struct Item {
    NodeId node;
    uint32_t depth;
  };
  std::vector<Item> stack;
  auto walk = [&](NodeId base, const std::vector<uint8_t>& w, auto&& visit) {
    stack.clear();
    for (NodeId c = p.first_child[base]; c != kNone; c = p.next_sibling[c])
      if (!group[c] && w[c]) stack.push_back(Item{c, 0});
    std::reverse(stack.begin(), stack.end());
    while (!stack.empty()) {
      Item it = stack.back();
      stack.pop_back();
      visit(it.node, it.depth);
      size_t mark = stack.size();
      for (NodeId c = p.first_child[it.node]; c != kNone; c = p.next_sibling[c])
        if (w[c]) stack.push_back(Item{c, it.depth + 1});
      std::reverse(stack.begin() + long(mark), stack.end());
    }
  };
  for (NodeId b : bases)
    for (int c : order)
      walk(b, weighted[c], [&](NodeId v, uint32_t) {
        FrameId f = p.frame[v];
        if (index[f] == kNone) {
          index[f] = uint32_t(used.size());
          used.push_back(f);
        }
      });

  // A traced input's flame chart (timeline/chart.h): its frames too, for the time-ordered profiles.
  if (p.chart)
    for (const TimelineChart::Event& e : p.chart->events) {
      if (e.node == kNone || e.node >= n) continue;
      FrameId f = p.frame[e.node];
      if (index[f] == kNone) {
        index[f] = uint32_t(used.size());
        used.push_back(f);
      }
    }

  SpeedscopeStats st;
  st.frames = used.size();
  std::string& buf = out.buffer();
  buf += "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"flamefold\",\"name\":";
  append_clean_json_string(buf, whole);
  buf += ",\n\"shared\":{\"frames\":[";
  for (size_t i = 0; i < used.size(); ++i) {
    const Frame& fr = p.symbols[used[i]];
    buf += i ? ",\n{\"name\":" : "\n{\"name\":";
    append_clean_json_string(buf, p.symbols.strings[fr.name]);
    if (fr.file) {
      buf += ",\"file\":";
      append_clean_json_string(buf, p.symbols.strings[fr.file]);
    }
    if (fr.line) fmt::format_to(std::back_inserter(buf), ",\"line\":{}", fr.line);
    buf += '}';
    out.maybe_flush();
  }
  buf += "]},\n\"profiles\":[";

  // Which columns have weight at all decides whether names say their weight.
  size_t columns_written = 0;
  for (int c : order) columns_written += weighted[c][0] != 0;
  int64_t active = -1;
  double active_total = -1;
  std::vector<uint32_t> path;
  for (int c : order) {
    const WeightColumn& col = p.columns[c];
    const std::vector<uint8_t>& w = weighted[c];
    std::string_view unit = speedscope_unit(col.unit);
    for (NodeId b : bases) {
      bool own = col.self[b] != 0;
      bool any = own;
      for (NodeId k = p.first_child[b]; k != kNone && !any; k = p.next_sibling[k]) any = !group[k] && w[k];
      if (!any) continue;
      double total = 0;
      std::string samples, weights;
      size_t count = 0;
      auto add_sample = [&](double x) {
        samples += count ? ",[" : "[";
        for (size_t i = 0; i < path.size(); ++i) {
          if (i) samples += ',';
          fmt::format_to(std::back_inserter(samples), "{}", path[i]);
        }
        samples += ']';
        if (count) weights += ',';
        append_number(weights, x);
        total += x;
        ++count;
      };
      path.clear();
      if (own) add_sample(col.self[b]);  // weight on the group frame itself: the empty stack
      walk(b, w, [&](NodeId v, uint32_t depth) {
        path.resize(depth);
        path.push_back(index[p.frame[v]]);
        if (col.self[v] != 0) add_sample(col.self[v]);
      });
      std::string name = label_of(b);
      if (columns_written > 1) name += " [" + col.name + "]";
      buf += st.profiles ? ",\n{\"type\":\"sampled\",\"name\":" : "\n{\"type\":\"sampled\",\"name\":";
      append_clean_json_string(buf, name);
      fmt::format_to(std::back_inserter(buf), ",\"unit\":\"{}\",\"startValue\":0,\"endValue\":", unit);
      append_number(buf, total);
      buf += ",\"flamefold\":{\"weight\":";
      append_clean_json_string(buf, col.name);
      buf += ",\"unit\":";
      append_clean_json_string(buf, col.unit);
      buf += ",\"groups\":[";
      std::vector<NodeId> chain;
      for (NodeId v = b; v != 0; v = p.parent[v]) chain.push_back(v);
      for (size_t i = chain.size(); i-- > 0;) {
        const Frame& fr = p.symbols[p.frame[chain[i]]];
        buf += i + 1 == chain.size() ? "{\"name\":" : ",{\"name\":";
        append_clean_json_string(buf, p.symbols.strings[fr.name]);
        buf += ",\"category\":";
        append_clean_json_string(buf, p.symbols.category_name(fr.category));
        buf += '}';
      }
      buf += "]},\n\"samples\":[";
      out.maybe_flush();
      out.write(samples);
      out.write("],\n\"weights\":[");
      out.write(weights);
      out.write("]}");
      if (c == p.default_column && total > active_total) {
        active_total = total;
        active = int64_t(st.profiles);
      }
      ++st.profiles;
      st.samples += count;
    }
  }
  if (p.chart) write_time_order(p, *p.chart, index, out, st);
  // Every weight in the profile's order, those without samples too, and which is the default.
  buf += "],\n\"flamefold\":{\"weights\":[";
  for (size_t c = 0; c < p.columns.size(); ++c) {
    buf += c ? ",{\"name\":" : "{\"name\":";
    append_clean_json_string(buf, p.columns[c].name);
    buf += ",\"unit\":";
    append_clean_json_string(buf, p.columns[c].unit);
    buf += '}';
  }
  out.print("],\"default\":{}}},\n\"activeProfileIndex\":{}}}\n", p.default_column, active < 0 ? 0 : active);
  return st;
}

}  // namespace flamefold
