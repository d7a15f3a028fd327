#include "flamefold/call_stats.h"

#include <fmt/format.h>

#include <atomic>
#include <map>
#include <type_traits>
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

std::atomic<bool> g_packed_pairs{true};

double seconds_per_unit(std::string_view unit) {
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1.0;
  return 0;  // not a time
}

}  // namespace

void set_call_stats_packed_pairs(bool packed) { g_packed_pairs = packed; }

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
  // Subtrees with neither time nor calls in this view (device kernels under a CPU view) are left
  // out. One byte per node: the inclusive calls are only needed for this test.
  std::vector<uint8_t> empty(p.node_count());
  {
    std::vector<double> subtree_calls = calls_col >= 0 ? p.totals(calls_col) : std::vector<double>();
    for (NodeId n = 0; n < empty.size(); ++n) empty[n] = total[n] == 0 && (subtree_calls.empty() || subtree_calls[n] == 0);
  }
  auto empty_subtree = [&](NodeId n) { return empty[n] != 0; };

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
  // Caller edges: every visited node's (caller function, function) pair, found by one radix
  // sort of the pairs instead of a hash lookup per node (which missed the cache every time).
  // Edges are numbered by first appearance in node order, which the walk below roughly follows
  // (its accesses to the edges then stay close together); a node's caller is its nearest
  // non-group ancestor's function.
  size_t nn = p.node_count();
  // The function of n, or of its nearest non-group ancestor; only needed to make the pairs.
  std::vector<uint32_t> near_fn(nn, kNone);
  std::vector<uint32_t> edge_of_node(nn, kNone);
  int fn_bits = 1;
  while ((size_t(1) << fn_bits) < out.functions.size()) ++fn_bits;
  int node_bits = 1;
  while ((size_t(1) << node_bits) < nn) ++node_bits;
  // Sorts the pairs by (caller, callee), stable (node order within a pair): LSD radix in 11-bit
  // digits over the callee's bits, then the caller's. Then gives each node its pair's number
  // in sorted order (edge_of_node) and returns how many distinct pairs there are.
  auto sort_and_group = [&](auto& pairs, auto caller_of, auto callee_of, auto node_of) -> size_t {
    using Pair = typename std::decay_t<decltype(pairs)>::value_type;
    {
      std::vector<Pair> sorted(pairs.size());
      std::vector<uint32_t> count;
      constexpr int kDigit = 11;
      constexpr uint32_t kMask = (1u << kDigit) - 1;
      for (int field = 0; field < 2; ++field)
        for (int shift = 0; shift < fn_bits; shift += kDigit) {
          auto digit = [&](const Pair& pr) { return ((field == 0 ? callee_of(pr) : caller_of(pr)) >> shift) & kMask; };
          count.assign(kMask + 2, 0);
          for (const Pair& pr : pairs) ++count[digit(pr) + 1];
          for (size_t i = 1; i < count.size(); ++i) count[i] += count[i - 1];
          for (const Pair& pr : pairs) sorted[count[digit(pr)]++] = pr;
          pairs.swap(sorted);
        }
    }
    size_t groups = 0;
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (i == 0 || caller_of(pairs[i]) != caller_of(pairs[i - 1]) || callee_of(pairs[i]) != callee_of(pairs[i - 1])) ++groups;
      edge_of_node[node_of(pairs[i])] = static_cast<uint32_t>(groups - 1);
    }
    std::vector<Pair>().swap(pairs);
    return groups;
  };
  size_t groups;
  if (2 * fn_bits + node_bits <= 64 && g_packed_pairs.load(std::memory_order_relaxed)) {
    // Packed in 8 bytes: caller | callee | node (half the memory of the general form below).
    const int callee_at = node_bits, caller_at = node_bits + fn_bits;
    const uint64_t node_mask = (uint64_t(1) << node_bits) - 1, fn_mask = (uint64_t(1) << fn_bits) - 1;
    std::vector<uint64_t> pairs;
    pairs.reserve(nn);  // at most one pair per node; growth by doubling would overshoot more
    for (NodeId n = 1; n < nn; ++n) {
      NodeId up = p.parent[n];
      if (empty_subtree(n)) continue;
      uint32_t fn = fn_of_frame[p.frame[n]];
      near_fn[n] = fn != kNone ? fn : near_fn[up];
      if (fn != kNone && near_fn[up] != kNone)
        pairs.push_back(uint64_t(near_fn[up]) << caller_at | uint64_t(fn) << callee_at | n);
    }
    std::vector<uint32_t>().swap(near_fn);
    groups = sort_and_group(
        pairs, [&](uint64_t x) { return uint32_t(x >> caller_at); },
        [&](uint64_t x) { return uint32_t((x >> callee_at) & fn_mask); }, [&](uint64_t x) { return uint32_t(x & node_mask); });
  } else {
    std::vector<std::pair<uint64_t, uint32_t>> pairs;
    pairs.reserve(nn);
    for (NodeId n = 1; n < nn; ++n) {
      NodeId up = p.parent[n];
      if (empty_subtree(n)) continue;
      uint32_t fn = fn_of_frame[p.frame[n]];
      near_fn[n] = fn != kNone ? fn : near_fn[up];
      if (fn != kNone && near_fn[up] != kNone) pairs.emplace_back(uint64_t(near_fn[up]) << 32 | fn, n);
    }
    std::vector<uint32_t>().swap(near_fn);
    using P = std::pair<uint64_t, uint32_t>;
    groups = sort_and_group(
        pairs, [](const P& x) { return uint32_t(x.first >> 32); }, [](const P& x) { return uint32_t(x.first); },
        [](const P& x) { return x.second; });
  }
  // Renumber by first appearance in node order, then make the edges in that order; each edge's
  // (caller, callee) comes from the first node that has it (no table of the sorted keys is kept).
  {
    std::vector<uint32_t> renumber(groups, kNone);
    uint32_t next = 0;
    for (NodeId n = 1; n < nn; ++n) {
      uint32_t g = edge_of_node[n];
      if (g == kNone) continue;
      if (renumber[g] == kNone) renumber[g] = next++;
      edge_of_node[n] = renumber[g];
    }
  }
  out.callers.resize(groups);
  for (NodeId n = 1, next = 0; n < nn && next < groups; ++n) {
    if (edge_of_node[n] != next) continue;
    NodeId up = p.parent[n];  // the caller: the nearest ancestor that is a function (not a group)
    while (up != 0 && fn_of_frame[p.frame[up]] == kNone) up = p.parent[up];  // (an edge has one)
    out.callers[next].caller = up == 0 ? kNone : fn_of_frame[p.frame[up]];
    out.callers[next].callee = fn_of_frame[p.frame[n]];
    ++next;
  }
  std::vector<uint32_t> edge_open(out.callers.size(), 0);

  // Depth-first walk keeping which functions and edges are open on the path; a second
  // visit of each node ("leave") closes them.
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
      e = edge_of_node[n];
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
