#include "flamefold/timeline/selection.h"

#include <algorithm>
#include <charconv>

#include "flamefold/errors.h"
#include "flamefold/timeline/build_profile.h"

namespace flamefold {

namespace {

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

}  // namespace

int64_t step_number(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.substr(0, kPrefix.size()) != kPrefix) return -1;
  int64_t v = -1;
  auto r = std::from_chars(name.data() + kPrefix.size(), name.data() + name.size(), v);
  return r.ec == std::errc() ? v : -1;
}

Selection::Selection(const ReadOptions& ro, const Symbols& symbols, const std::vector<Track>& tracks)
    : read_(ro), symbols_(symbols), tracks_(tracks) {
  for (const std::string& c : ro.categories) {
    wanted_categories_.push_back(canonical_category(c));
    const std::string& w = wanted_categories_.back();
    if (w == category::kKernel || w == category::kMemcpy || w == category::kMemset) filter_device_categories_ = true;
  }
  see_tracks();
  see_categories();
  windowed_ = ro.window_start_ns != std::numeric_limits<int64_t>::min() ||
              ro.window_end_ns != std::numeric_limits<int64_t>::max();
  stepped_ = !ro.steps.empty();
  if (stepped_) wanted_steps_ = parse_steps(ro.steps);
}

void Selection::see_tracks() const {
  for (size_t t = track_kept_.size(); t < tracks_.size(); ++t)
    track_kept_.push_back(tracks_[t].device || thread_selected(symbols_, tracks_[t], read_.threads));
}

bool Selection::category_name_kept(std::string_view name) const {
  return wanted_categories_.empty() ||
         std::find(wanted_categories_.begin(), wanted_categories_.end(), name) != wanted_categories_.end();
}

void Selection::see_categories() const {
  for (size_t c = category_kept_.size(); c < symbols_.category_count(); ++c)
    category_kept_.push_back(category_name_kept(symbols_.category_name(static_cast<CategoryId>(c))));
}

void Selection::set_origin(int64_t t0) {
  if (!windowed_) return;
  if (read_.window_start_ns != std::numeric_limits<int64_t>::min()) w0_ = t0 + read_.window_start_ns;
  if (read_.window_end_ns != std::numeric_limits<int64_t>::max()) w1_ = t0 + read_.window_end_ns;
}

void Selection::step_seen(uint32_t rank, int64_t s, int64_t start, int64_t end) {
  if (!stepped_ || s < 0) return;
  lowest_step_ = std::min(lowest_step_, s);
  highest_step_ = std::max(highest_step_, s);
  for (auto [a, b] : wanted_steps_)
    if (s >= a && s <= b) {
      steps_.push_back(StepRange{rank, start, end});
      break;
    }
}

void Selection::steps_done() {
  if (!stepped_) return;
  if (steps_.empty()) {
    if (lowest_step_ == INT64_MAX) throw UsageError("--steps: the trace has no ProfilerStep#N ranges");
    throw UsageError("--steps " + read_.steps + ": the trace has ProfilerStep#" + std::to_string(lowest_step_) + " to #" +
                     std::to_string(highest_step_));
  }
  std::sort(steps_.begin(), steps_.end());
}

bool Selection::clip(uint32_t rank, int64_t& s, int64_t& e) const {
  if (windowed_) {
    if (e < w0_ || s > w1_) return false;
    s = std::max(s, w0_);
    e = std::min(e, w1_);
  }
  if (stepped_) {
    // First selected step ending after s, last one starting before e (same rank).
    auto first = std::lower_bound(steps_.begin(), steps_.end(), StepRange{rank, INT64_MIN, 0});
    auto past = std::lower_bound(steps_.begin(), steps_.end(), StepRange{rank + 1, INT64_MIN, 0});
    auto lo = std::partition_point(first, past, [&](const StepRange& r) { return r.end <= s && !(r.end == s && r.start == s); });
    auto hi = std::partition_point(lo, past, [&](const StepRange& r) { return r.start < e || r.start == s; });
    if (lo == past || lo == hi) return false;
    s = std::max(s, lo->start);
    e = std::min(e, std::prev(hi)->end);
    if (e < s) return false;
  }
  return true;
}

GroupNodes::GroupNodes(Profile& p, const std::vector<Track>& tracks, const std::vector<std::string>& ranks,
                       const std::vector<uint8_t>& with_events, const std::string& group_by, bool process_level_always)
    : p_(p), tracks_(tracks), ranks_(ranks) {
  rank_cat_ = p.symbols.category(category::kRank);
  process_cat_ = p.symbols.category(category::kProcess);
  thread_cat_ = p.symbols.category(category::kThread);
  if (group_by == "process") return;
  if (group_by == "thread") {
    process_ = false;
    return;
  }
  if (group_by == "none") {
    process_ = thread_ = false;
    return;
  }
  if (!group_by.empty() && group_by != "auto")
    throw UsageError("--group-by " + group_by + ": expected process, thread, none or auto");
  if (process_level_always) return;
  // Only when some rank holds several processes (of host tracks with events).
  std::vector<std::pair<uint32_t, int64_t>> processes;
  for (size_t t = 0; t < tracks.size(); ++t)
    if (with_events[t]) processes.emplace_back(tracks[t].rank, tracks[t].pid);
  std::sort(processes.begin(), processes.end());
  for (size_t i = 1; i < processes.size(); ++i)
    if (processes[i].first == processes[i - 1].first && processes[i].second != processes[i - 1].second) return;
  process_ = false;
}

NodeId GroupNodes::rank_node(uint32_t rank) {
  if (ranks_.size() <= 1) return 0;
  return p_.child(0, p_.symbols.frame(ranks_[rank], {}, 0, rank_cat_));
}

NodeId GroupNodes::track_base(uint32_t track) {
  const Track& tr = tracks_[track];
  NodeId base = rank_node(tr.rank);
  if (process_) {
    std::string process = tr.process_name ? std::string(p_.symbols.strings[tr.process_name]) : "process " + std::to_string(tr.pid);
    base = p_.child(base, p_.symbols.frame(process, {}, 0, process_cat_));
  }
  if (thread_) {
    std::string thread = tr.name ? std::string(p_.symbols.strings[tr.name]) : "thread " + std::to_string(tr.tid);
    base = p_.child(base, p_.symbols.frame(thread, {}, 0, thread_cat_));
  }
  return base;
}

void add_host_columns(Profile& p, const BuildOptions& bo) {
  p.add_column("cpu", "ns");
  p.add_column("calls", "count");
  p.default_column = bo.default_to_device ? DeviceSide::kDevColumn : 0;
}

DeviceSide::DeviceSide(Profile& p, const std::vector<Track>& tracks, GroupNodes& groups, const Selection& selection,
                       const ReadOptions& read, const BuildOptions& build)
    : p_(p), tracks_(tracks), groups_(groups), sel_(selection), read_(read), build_(build) {
  device_cat_ = p.symbols.category("device");
  unattributed_root_.assign(tracks.size(), kNone);
}

// The device columns come third and fourth, but are only made when the first device op is
// placed (or at the end): a host-only trace's 2 x 8 B per node then never coexist with the
// timeline while nesting.
void DeviceSide::add_columns() {
  if (p_.columns.size() > size_t(kDevColumn)) return;
  p_.add_column(build_.device_weight.empty() ? "gpu" : build_.device_weight, "ns");
  p_.add_column("kernels", "count");
}

NodeId DeviceSide::op(uint32_t track, int64_t start, int64_t end, FrameId f, bool has_launch, NodeId launch_node) {
  const int64_t d = end - start;
  if (sel_.filters_device_categories() && !sel_.category_kept(p_.symbols[f].category)) {
    ++dropped_;
    dropped_ns_ += d;
    return kNone;
  }
  NodeId node;
  if (has_launch) {
    if (launch_node == kNone) {  // its launch was filtered out
      ++dropped_;
      dropped_ns_ += d;
      return kNone;
    }
    node = p_.child(launch_node, f);
    ++attributed_;
    attributed_ns_ += d;
  } else {
    const Track& tr = tracks_[track];
    if (!read_.threads.empty() || !sel_.start_selected(tr.rank, start)) {
      ++dropped_;
      dropped_ns_ += d;
      return kNone;
    }
    NodeId& root = unattributed_root_[track];
    if (root == kNone) {
      std::string label = tr.name ? std::string(p_.symbols.strings[tr.name])
                                  : "device " + std::to_string(tr.pid) + " stream " + std::to_string(tr.tid);
      root = p_.child(groups_.rank_node(tr.rank), p_.symbols.frame("[unattributed] " + label, {}, 0, device_cat_));
    }
    node = p_.child(root, f);
    ++unattributed_;
    unattributed_ns_ += d;
  }
  add_columns();
  p_.add(node, kDevColumn, static_cast<double>(d));
  p_.add(node, kKernelsColumn, 1);
  uint32_t si = stats_index_.find_or_insert(f, static_cast<uint32_t>(p_.device_ops.size()));
  if (si == p_.device_ops.size()) p_.device_ops.push_back(DeviceOpStats{f, 0, 0, d, d});
  DeviceOpStats& s = p_.device_ops[si];
  ++s.count;
  s.total_ns += d;
  s.min_ns = std::min(s.min_ns, d);
  s.max_ns = std::max(s.max_ns, d);
  return node;
}

void DeviceSide::finish(uint64_t events, uint64_t host_events, const JoinCounts& join, size_t ranks) {
  add_columns();
  Profile& p = p_;
  std::sort(p.device_ops.begin(), p.device_ops.end(), [&](const DeviceOpStats& a, const DeviceOpStats& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return p.symbols.name(a.frame) < p.symbols.name(b.frame);
  });
  if (attributed_ + unattributed_ > 0 && host_events == 0 && !build_.default_to_device) p.default_column = kDevColumn;

  // What happened, for `info` and the viewer.
  auto fact = [&](std::string k, uint64_t v) { p.facts.emplace_back(std::move(k), std::to_string(v)); };
  fact("events", events);
  fact("host events placed", host_events);
  fact("device ops", join.device_ops);
  fact("device ops attributed to a launch", attributed_);
  fact("device ops unattributed", unattributed_);
  if (dropped_) fact("device ops outside the selection", dropped_);
  fact("device ns attributed", static_cast<uint64_t>(attributed_ns_));
  fact("device ns unattributed", static_cast<uint64_t>(unattributed_ns_));
  if (dropped_) fact("device ns outside the selection", static_cast<uint64_t>(dropped_ns_));
  fact("launches with a correlation id", join.launches);
  fact("launches without device work", join.launches_without_device);
  if (annotations_) fact("device annotations (not counted as work)", annotations_);
  if (ranks > 1) fact("ranks", ranks);
  if (join.duplicate_launch_ids) p.count("launches sharing a correlation id (the first one kept)", join.duplicate_launch_ids);
  if (join.device_without_launch)
    p.count("device ops without a launch in the trace (under [unattributed])", join.device_without_launch);
}

}  // namespace flamefold
