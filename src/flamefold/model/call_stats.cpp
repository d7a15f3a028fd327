#include "flamefold/call_stats.h"

#include <fmt/format.h>

#include <map>
#include <tuple>

namespace flamefold {

double CallStats::total_calls() const {
  double s = 0;
  for (const FunctionStat& f : functions) s += f.ncalls;
  return s;
}
double CallStats::prim_calls() const {
  double s = 0;
  for (const FunctionStat& f : functions) s += f.pcalls;
  return s;
}
double CallStats::total_tt() const {
  double s = 0;
  for (const FunctionStat& f : functions) s += f.tottime;
  return s;
}

std::string pstats_std_string(const FunctionStat& f) {
  if (f.file == "~" && f.line == 0) {
    if (f.name.size() >= 2 && f.name.front() == '<' && f.name.back() == '>')
      return "{" + f.name.substr(1, f.name.size() - 2) + "}";
    return f.name;
  }
  return fmt::format("{}:{}({})", f.file, f.line, f.name);
}

namespace {

double seconds_per_unit(std::string_view unit) {
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1.0;
  return 0;  // not a time
}

}  // namespace

CallStats call_stats(const Profile& p, int time_column) {
  CallStats out;
  const WeightColumn& col = p.columns[time_column];
  double scale = seconds_per_unit(col.unit);
  if (scale == 0) {
    scale = 1;
    out.time_unit = col.unit;
  }
  int calls_col = p.column("calls");
  out.from_samples = calls_col < 0 || col.unit == "samples";
  const std::vector<double>& self = col.self;
  std::vector<double> total = p.totals(time_column);
  const std::vector<double>* calls = calls_col >= 0 ? &p.columns[calls_col].self : nullptr;
  // Subtrees with neither time nor calls in this view (device kernels under a CPU view) are left out.
  std::vector<double> subtree_calls = calls_col >= 0 ? p.totals(calls_col) : std::vector<double>();
  auto empty_subtree = [&](NodeId n) { return total[n] == 0 && (subtree_calls.empty() || subtree_calls[n] == 0); };

  // Frames -> functions, numbered in node-creation order (first appearance). Several frames
  // (categories) may share one function key.
  size_t nf = p.symbols.frame_count();
  std::vector<uint32_t> fn_of_frame(nf, kNone);
  std::map<std::tuple<StrId, StrId, uint32_t>, uint32_t> fn_by_key;
  for (NodeId n = 1; n < p.node_count(); ++n) {
    FrameId f = p.frame[n];
    if (fn_of_frame[f] != kNone || p.symbols.is_group(f) || empty_subtree(n)) continue;
    const Frame& fr = p.symbols[f];
    auto key = std::make_tuple(fr.name, fr.file, fr.file ? fr.line : 0u);
    auto [it, fresh] = fn_by_key.emplace(key, static_cast<uint32_t>(out.functions.size()));
    if (fresh) {
      FunctionStat s;
      s.name = std::string(p.symbols.strings[fr.name]);
      if (fr.file) {
        s.file = std::string(p.symbols.strings[fr.file]);
        s.line = fr.line;
      } else {
        s.file = "~";
      }
      out.functions.push_back(std::move(s));
    }
    fn_of_frame[f] = it->second;
  }

  std::vector<uint32_t> fn_open(out.functions.size(), 0);
  std::vector<uint32_t> edge_open;
  // Edges found through a small open-addressing table per caller: siblings in the walk share
  // their caller, so its table stays in cache (one global hash missed the cache on every node).
  struct CalleeTable {
    std::vector<uint64_t> slots;  // callee << 32 | edge, UINT64_MAX = empty
    uint32_t used = 0;
  };
  std::vector<CalleeTable> callees_of(out.functions.size());
  auto find_edge = [&](uint32_t caller, uint32_t callee) -> uint32_t {
    CalleeTable& t = callees_of[caller];
    if ((t.used + 1) * 2 > t.slots.size()) {  // grow (load factor <= 1/2)
      std::vector<uint64_t> old;
      old.swap(t.slots);
      t.slots.assign(old.empty() ? 8 : old.size() * 2, UINT64_MAX);
      size_t mask = t.slots.size() - 1;
      for (uint64_t v : old)
        if (v != UINT64_MAX) {
          size_t i = mix64(v >> 32) & mask;
          while (t.slots[i] != UINT64_MAX) i = (i + 1) & mask;
          t.slots[i] = v;
        }
    }
    size_t mask = t.slots.size() - 1;
    size_t i = mix64(callee) & mask;
    while (true) {
      uint64_t v = t.slots[i];
      if (v == UINT64_MAX) break;
      if (v >> 32 == callee) return static_cast<uint32_t>(v);
      i = (i + 1) & mask;
    }
    uint32_t e = static_cast<uint32_t>(out.callers.size());
    t.slots[i] = uint64_t(callee) << 32 | e;
    ++t.used;
    CallerEdge edge;
    edge.caller = caller;
    edge.callee = callee;
    out.callers.push_back(edge);
    edge_open.push_back(0);
    return e;
  };

  // Depth-first walk. Entries >= 0x80000000 mark "leave node".
  struct Item {
    NodeId node;
    bool leave;
  };
  std::vector<Item> work;
  std::vector<uint32_t> fn_path;    // functions on the current path (group frames left out)
  std::vector<uint32_t> edge_path;  // edge entered with each function (kNone at the top)
  for (NodeId c = p.first_child[0]; c != kNone; c = p.next_sibling[c]) work.push_back({c, false});
  while (!work.empty()) {
    Item it = work.back();
    work.pop_back();
    NodeId n = it.node;
    uint32_t fn = fn_of_frame[p.frame[n]];
    if (it.leave) {
      if (fn != kNone) {
        --fn_open[fn];
        if (edge_path.back() != kNone) --edge_open[edge_path.back()];
        fn_path.pop_back();
        edge_path.pop_back();
      }
      continue;
    }
    if (empty_subtree(n)) continue;
    work.push_back({n, true});
    for (NodeId c = p.first_child[n]; c != kNone; c = p.next_sibling[c]) work.push_back({c, false});
    if (fn == kNone) continue;  // a group frame: transparent

    double ncalls = calls ? (*calls)[n] : 1.0;
    double tt = self[n] * scale, ct = total[n] * scale;
    FunctionStat& s = out.functions[fn];
    s.ncalls += ncalls;
    s.tottime += tt;
    if (fn_open[fn] == 0) {
      s.pcalls += ncalls;
      s.cumtime += ct;
    }
    ++fn_open[fn];
    uint32_t e = kNone;
    if (!fn_path.empty()) {
      e = find_edge(fn_path.back(), fn);
      CallerEdge& edge = out.callers[e];
      edge.ncalls += ncalls;
      edge.tottime += tt;
      if (edge_open[e] == 0) {
        edge.pcalls += ncalls;
        edge.cumtime += ct;
      }
      ++edge_open[e];
    }
    fn_path.push_back(fn);
    edge_path.push_back(e);
  }

  // Chain each callee's callers in edge-creation order.
  std::vector<uint32_t> last(out.functions.size(), kNone);
  for (uint32_t e = 0; e < out.callers.size(); ++e) {
    uint32_t callee = out.callers[e].callee;
    if (last[callee] == kNone)
      out.functions[callee].first_caller = e;
    else
      out.callers[last[callee]].next_caller = e;
    last[callee] = e;
  }
  return out;
}

}  // namespace flamefold
