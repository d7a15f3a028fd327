// Timeline -> Profile: group frames (rank > process > thread), nest each host track, then
// put device work under the call path of the launch that caused it (timeline_build.h).
#include <algorithm>
#include <charconv>
#include <span>
#include <string>

#include "flamefold/build/correlate.h"
#include "flamefold/build/nest.h"
#include "flamefold/errors.h"
#include "flamefold/timeline_build.h"

namespace flamefold {

namespace {

struct StepRange {
  uint32_t rank;
  int64_t start, end;
  bool operator<(const StepRange& o) const { return rank != o.rank ? rank < o.rank : start < o.start; }
};

// "3", "3-5", "3,5,7-9" -> sorted list of (first, last) pairs.
std::vector<std::pair<int64_t, int64_t>> parse_steps(const std::string& text) {
  std::vector<std::pair<int64_t, int64_t>> out;
  size_t i = 0;
  auto bad = [&]() { return UsageError("--steps '" + text + "': expected step numbers like 3, 3-5 or 3,5,7-9"); };
  while (i < text.size()) {
    size_t comma = text.find(',', i);
    if (comma == std::string::npos) comma = text.size();
    std::string_view part(text.data() + i, comma - i);
    size_t dash = part.find('-');
    int64_t a = 0, b = 0;
    auto num = [&](std::string_view s, int64_t& v) {
      auto r = std::from_chars(s.data(), s.data() + s.size(), v);
      if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) throw bad();
    };
    if (dash == std::string_view::npos) {
      num(part, a);
      b = a;
    } else {
      num(part.substr(0, dash), a);
      num(part.substr(dash + 1), b);
    }
    if (b < a) throw bad();
    out.emplace_back(a, b);
    i = comma + 1;
  }
  if (out.empty()) throw bad();
  return out;
}

// The step number of a "ProfilerStep#N" frame name, or -1.
int64_t step_number(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.substr(0, kPrefix.size()) != kPrefix) return -1;
  int64_t v = -1;
  auto r = std::from_chars(name.data() + kPrefix.size(), name.data() + name.size(), v);
  return r.ec == std::errc() ? v : -1;
}

bool thread_selected(const Symbols& symbols, const Track& t, const std::vector<std::string>& wanted) {
  if (wanted.empty()) return true;
  std::string tid = std::to_string(t.tid);
  std::string_view name = symbols.strings[t.name];
  for (const std::string& w : wanted) {
    if (w == tid || (!w.empty() && name.find(w) != std::string_view::npos)) return true;
    if (w == "main" && t.tid == t.pid) return true;  // a process's main thread has tid == pid
  }
  return false;
}

// Category names a user may write for the categories frames carry.
std::string canonical_category(std::string_view c) {
  if (c == "python_function") return "python";
  if (c == "gpu_memcpy") return "memcpy";
  if (c == "gpu_memset") return "memset";
  return std::string(c);
}

struct GroupLevels {
  bool process = true, thread = true;
};

// Which group frames go above the stacks (--group-by). per_track_count: host events per track,
// as prefix sums (tracks with none do not count as a process of the trace).
GroupLevels group_levels(const Timeline& tl, const std::vector<uint32_t>& per_track_count, const std::string& group_by,
                         bool process_level_always) {
  if (group_by == "process") return {true, true};
  if (group_by == "thread") return {false, true};
  if (group_by == "none") return {false, false};
  if (!group_by.empty() && group_by != "auto")
    throw UsageError("--group-by " + group_by + ": expected process, thread, none or auto");
  if (process_level_always) return {true, true};
  std::vector<std::pair<uint32_t, int64_t>> processes;  // (rank, pid) of host tracks with events
  for (size_t t = 0; t < tl.tracks.size(); ++t)
    if (per_track_count[t + 1] != per_track_count[t]) processes.emplace_back(tl.tracks[t].rank, tl.tracks[t].pid);
  std::sort(processes.begin(), processes.end());
  for (size_t i = 1; i < processes.size(); ++i)
    if (processes[i].first == processes[i - 1].first && processes[i].second != processes[i - 1].second) return {true, true};
  return {false, true};
}

}  // namespace

Profile build_profile(Timeline&& tl, const ReadOptions& ro, const BuildOptions& bo) {
  Profile p;
  p.symbols = std::move(tl.symbols);
  p.source_format = tl.source_format;
  p.inputs = tl.inputs;
  p.facts = tl.facts;
  p.counters = tl.counters;
  const int cpu = p.add_column("cpu", "ns");
  const int calls = p.add_column("calls", "count");
  // The device columns come third and fourth, but are only made when the first device op is
  // placed (or at the end): a host-only trace's 2 x 8 B per node then never coexist with the
  // timeline while nesting.
  const int dev = 2, kernels = 3;
  auto add_device_columns = [&]() {
    if (p.columns.size() > size_t(dev)) return;
    p.add_column(bo.device_weight.empty() ? "gpu" : bo.device_weight, "ns");
    p.add_column("kernels", "count");
  };
  p.default_column = bo.default_to_device ? dev : cpu;

  const size_t n = tl.size();
  const size_t ntracks = tl.tracks.size();
  if (tl.ranks.empty()) tl.ranks.push_back("rank 0");

  // ---- filters -------------------------------------------------------------------------
  std::vector<uint8_t> track_kept(ntracks, 1);
  for (size_t t = 0; t < ntracks; ++t)
    if (!tl.tracks[t].device) track_kept[t] = thread_selected(p.symbols, tl.tracks[t], ro.threads);

  std::vector<uint8_t> category_kept(p.symbols.category_count() + 1, 1);
  bool filter_device_categories = false;
  if (!ro.categories.empty()) {
    std::vector<std::string> wanted;
    for (const std::string& c : ro.categories) {
      wanted.push_back(canonical_category(c));
      if (wanted.back() == category::kKernel || wanted.back() == category::kMemcpy || wanted.back() == category::kMemset)
        filter_device_categories = true;
    }
    for (size_t c = 0; c < p.symbols.category_count(); ++c)
      category_kept[c] = std::find(wanted.begin(), wanted.end(), p.symbols.category_name(static_cast<CategoryId>(c))) !=
                         wanted.end();
  }

  // The window is relative to the first event of the trace.
  const bool windowed = ro.window_start_ns != std::numeric_limits<int64_t>::min() ||
                        ro.window_end_ns != std::numeric_limits<int64_t>::max();
  int64_t w0 = std::numeric_limits<int64_t>::min(), w1 = std::numeric_limits<int64_t>::max();
  if (windowed && n > 0) {
    int64_t t0 = *std::min_element(tl.start.begin(), tl.start.end());
    if (ro.window_start_ns != std::numeric_limits<int64_t>::min()) w0 = t0 + ro.window_start_ns;
    if (ro.window_end_ns != std::numeric_limits<int64_t>::max()) w1 = t0 + ro.window_end_ns;
  }

  std::vector<StepRange> steps;
  const bool stepped = !ro.steps.empty();
  if (stepped) {
    auto wanted = parse_steps(ro.steps);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t e = 0; e < n; ++e) {
      if (tl.kind[e] != EventKind::HostRange || tl.tracks[tl.track[e]].device) continue;
      int64_t s = step_number(p.symbols.name(tl.frame[e]));
      if (s < 0) continue;
      lo = std::min(lo, s);
      hi = std::max(hi, s);
      for (auto [a, b] : wanted)
        if (s >= a && s <= b) {
          steps.push_back(StepRange{tl.tracks[tl.track[e]].rank, tl.start[e], tl.end[e]});
          break;
        }
    }
    if (steps.empty()) {
      if (lo == INT64_MAX) throw UsageError("--steps: the trace has no ProfilerStep#N ranges");
      throw UsageError("--steps " + ro.steps + ": the trace has ProfilerStep#" + std::to_string(lo) + " to #" +
                       std::to_string(hi));
    }
    std::sort(steps.begin(), steps.end());
  }
  // Clips [s, e] of one rank to the selected steps and the window; false when nothing is left.
  auto clip = [&](uint32_t rank, int64_t& s, int64_t& e) {
    if (windowed) {
      if (e < w0 || s > w1) return false;
      s = std::max(s, w0);
      e = std::min(e, w1);
    }
    if (stepped) {
      // First selected step ending after s, last one starting before e (same rank).
      auto first = std::lower_bound(steps.begin(), steps.end(), StepRange{rank, INT64_MIN, 0});
      auto past = std::lower_bound(steps.begin(), steps.end(), StepRange{rank + 1, INT64_MIN, 0});
      auto lo = std::partition_point(first, past, [&](const StepRange& r) { return r.end <= s && !(r.end == s && r.start == s); });
      auto hi = std::partition_point(lo, past, [&](const StepRange& r) { return r.start < e || r.start == s; });
      if (lo == past || lo == hi) return false;
      s = std::max(s, lo->start);
      e = std::min(e, std::prev(hi)->end);
      if (e < s) return false;
    }
    return true;
  };
  auto start_selected = [&](uint32_t rank, int64_t s) {
    int64_t e = s;
    return clip(rank, s, e);
  };

  // ---- host side: group frames, then nest each track -------------------------------------
  CategoryId rank_cat = p.symbols.category(category::kRank);
  CategoryId process_cat = p.symbols.category(category::kProcess);
  CategoryId thread_cat = p.symbols.category(category::kThread);
  CategoryId device_cat = p.symbols.category("device");
  const bool several_ranks = tl.ranks.size() > 1;
  auto rank_node = [&](uint32_t rank) -> NodeId {
    if (!several_ranks) return 0;
    return p.child(0, p.symbols.frame(tl.ranks[rank], {}, 0, rank_cat));
  };

  std::vector<uint8_t> phantom(n, 0);
  std::vector<uint32_t> per_track_count(ntracks + 1, 0);
  uint64_t host_events = 0;
  for (size_t e = 0; e < n; ++e) {
    const Track& tr = tl.tracks[tl.track[e]];
    EventKind k = tl.kind[e];
    bool host = !tr.device && (k == EventKind::HostRange || k == EventKind::Launch || k == EventKind::Other);
    if (!host || !track_kept[tl.track[e]] || !clip(tr.rank, tl.start[e], tl.end[e])) {
      phantom[e] = 2;  // not on the host side
      continue;
    }
    if (!category_kept[p.symbols[tl.frame[e]].category]) {
      if (k != EventKind::Launch) {
        phantom[e] = 2;
        continue;
      }
      phantom[e] = 1;  // still finds the stack its kernels belong to
    }
    ++per_track_count[tl.track[e] + 1];
    ++host_events;
  }
  // Bucket event ids by track (a counting sort keeps memory flat).
  for (size_t t = 0; t < ntracks; ++t) per_track_count[t + 1] += per_track_count[t];
  std::vector<uint32_t> by_track(host_events);
  {
    std::vector<uint32_t> fill(per_track_count.begin(), per_track_count.end() - 1);
    for (size_t e = 0; e < n; ++e)
      if (phantom[e] != 2) by_track[fill[tl.track[e]]++] = static_cast<uint32_t>(e);
  }

  // Device work is joined to its launches first: the correlation ids (8 B per event) are then
  // freed before the tree grows, and only the 4 B launch of each device op is kept.
  LaunchJoin join = join_launches(tl);
  std::vector<uint64_t>().swap(tl.correlation);

  // Python stacks given as text on ops (old Kineto traces): their frames go between an op and
  // the event around it, unless --categories leaves out the python category.
  NestStacks python_stacks;
  if (!tl.call_stack.empty()) {
    bool kept = true;
    for (FrameId f : tl.call_stacks.frames) kept = kept && category_kept[p.symbols[f].category];
    if (kept) python_stacks = NestStacks{&tl.call_stack, &tl.call_stacks};
  }

  const GroupLevels levels = group_levels(tl, per_track_count, ro.group_by, bo.process_level_always);
  std::vector<NodeId> node_of(n, kNone);
  for (size_t t = 0; t < ntracks; ++t) {
    uint32_t b = per_track_count[t], e = per_track_count[t + 1];
    if (b == e) continue;
    const Track& tr = tl.tracks[t];
    NodeId base = rank_node(tr.rank);
    if (levels.process) {
      std::string process = tr.process_name ? std::string(p.symbols.strings[tr.process_name])
                                            : "process " + std::to_string(tr.pid);
      base = p.child(base, p.symbols.frame(process, {}, 0, process_cat));
    }
    if (levels.thread) {
      std::string thread = tr.name ? std::string(p.symbols.strings[tr.name]) : "thread " + std::to_string(tr.tid);
      base = p.child(base, p.symbols.frame(thread, {}, 0, thread_cat));
    }
    std::span<uint32_t> events(by_track.data() + b, e - b);  // nest_track reorders them in place
    for (uint32_t ev : events) phantom[ev] &= 1;
    nest_track(events, tl.start, tl.end, tl.frame, tl.parent_hint, phantom,
               NestTarget{&p, base, cpu, calls}, node_of, python_stacks);
  }
  // Freed as soon as they are consumed (the mmap threshold pinned in main returns them to the OS).
  std::vector<uint32_t>().swap(by_track);
  std::vector<uint8_t>().swap(phantom);
  std::vector<uint32_t>().swap(tl.parent_hint);
  std::vector<uint32_t>().swap(tl.call_stack);

  // ---- device side: attribute each operation to its launch's call path -----------------
  U64Map stats_index(256);
  std::vector<NodeId> unattributed_root(ntracks, kNone);
  int64_t attributed_ns = 0, unattributed_ns = 0, dropped_ns = 0;
  uint64_t attributed = 0, unattributed = 0, dropped = 0, annotations = 0;
  for (size_t e = 0; e < n; ++e) {
    EventKind k = tl.kind[e];
    if (k == EventKind::DeviceAnnotation) ++annotations;
    if (!is_device_work(k)) continue;
    const int64_t d = tl.end[e] - tl.start[e];
    if (filter_device_categories && !category_kept[p.symbols[tl.frame[e]].category]) {
      ++dropped;
      dropped_ns += d;
      continue;
    }
    uint32_t launch = join.launch_of[e];
    NodeId node;
    if (launch != kNone) {
      if (node_of[launch] == kNone) {  // its launch was filtered out
        ++dropped;
        dropped_ns += d;
        continue;
      }
      node = p.child(node_of[launch], tl.frame[e]);
      ++attributed;
      attributed_ns += d;
    } else {
      const Track& tr = tl.tracks[tl.track[e]];
      if (!ro.threads.empty() || !start_selected(tr.rank, tl.start[e])) {
        ++dropped;
        dropped_ns += d;
        continue;
      }
      NodeId& root = unattributed_root[tl.track[e]];
      if (root == kNone) {
        std::string label = tr.name ? std::string(p.symbols.strings[tr.name])
                                    : "device " + std::to_string(tr.pid) + " stream " + std::to_string(tr.tid);
        root = p.child(rank_node(tr.rank), p.symbols.frame("[unattributed] " + label, {}, 0, device_cat));
      }
      node = p.child(root, tl.frame[e]);
      ++unattributed;
      unattributed_ns += d;
    }
    add_device_columns();
    p.add(node, dev, static_cast<double>(d));
    p.add(node, kernels, 1);
    uint32_t si = stats_index.find_or_insert(tl.frame[e], static_cast<uint32_t>(p.device_ops.size()));
    if (si == p.device_ops.size()) p.device_ops.push_back(DeviceOpStats{tl.frame[e], 0, 0, d, d});
    DeviceOpStats& s = p.device_ops[si];
    ++s.count;
    s.total_ns += d;
    s.min_ns = std::min(s.min_ns, d);
    s.max_ns = std::max(s.max_ns, d);
  }
  // The timeline is consumed: free its columns before the device columns are made.
  std::vector<NodeId>().swap(node_of);
  join.launch_of = {};
  const size_t rank_count = tl.ranks.size();
  {
    Timeline done = std::move(tl);
  }
  add_device_columns();
  std::sort(p.device_ops.begin(), p.device_ops.end(), [&](const DeviceOpStats& a, const DeviceOpStats& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return p.symbols.name(a.frame) < p.symbols.name(b.frame);
  });
  if (attributed + unattributed > 0 && host_events == 0 && !bo.default_to_device) p.default_column = dev;

  // ---- what happened, for `info` and the viewer ------------------------------------------
  auto fact = [&](std::string k, uint64_t v) { p.facts.emplace_back(std::move(k), std::to_string(v)); };
  fact("events", n);
  fact("host events placed", host_events);
  fact("device ops", join.device_ops);
  fact("device ops attributed to a launch", attributed);
  fact("device ops unattributed", unattributed);
  if (dropped) fact("device ops outside the selection", dropped);
  fact("device ns attributed", static_cast<uint64_t>(attributed_ns));
  fact("device ns unattributed", static_cast<uint64_t>(unattributed_ns));
  if (dropped) fact("device ns outside the selection", static_cast<uint64_t>(dropped_ns));
  fact("launches with a correlation id", join.launches);
  fact("launches without device work", join.launches_without_device);
  if (annotations) fact("device annotations (not counted as work)", annotations);
  if (several_ranks) fact("ranks", rank_count);
  if (join.duplicate_launch_ids) p.count("launches sharing a correlation id (the first one kept)", join.duplicate_launch_ids);
  if (join.device_without_launch)
    p.count("device ops without a launch in the trace (under [unattributed])", join.device_without_launch);
  return p;
}

}  // namespace flamefold
