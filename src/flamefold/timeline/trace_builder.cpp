#include "flamefold/timeline/trace_builder.h"

#include <algorithm>
#include <optional>

#include "flamefold/spool_ahead.h"
#include "flamefold/timeline/correlate.h"
#include "flamefold/timeline/nest.h"

namespace flamefold {

namespace {
// HostEvent::flags
constexpr uint8_t kPhantom = 1;      // placed only to find the call path open at its start
constexpr uint8_t kNotNested = 2;    // outside the selection: not placed (a launch still joins)
constexpr uint8_t kProvisional = 4;  // a launch only if confirmed

// Launches read ahead on a second thread at the join from this many on.
constexpr uint64_t kLaunchesAhead = 65536;

// build_profile's join key: correlation ids restart in every rank.
bool joinable(uint32_t rank, uint64_t correlation) {
  return correlation != 0 && (correlation ^ (uint64_t(rank) << 48)) != U64Map::kEmpty;
}
}  // namespace

TraceBuilder::TraceBuilder(const ReadOptions& read, const BuildOptions& build, size_t memory_bytes)
    : read_(read), build_(build), memory_(memory_bytes) {
  selection_ = std::make_unique<Selection>(read_, profile_.symbols, tracks_);
  if (selection_->windowed() || selection_->stepped())
    held_ = std::make_unique<Spool<RawEvent, ByRawEvent>>(memory_);
  host_ = std::make_unique<Spool<HostEvent, HostOrder>>(memory_);
  device_ = std::make_unique<Spool<DeviceOp, ByCorrelation>>(memory_ / 4);
  launches_ = std::make_unique<Spool<Launch, ByCorrelation>>(memory_ / 4);
  if (read_.chart_events > 0) {
    chart_ = std::make_unique<ChartCollector>(chart_event_bound(read_, true), profile_.symbols, tracks_);
    chart_steps_ = std::make_unique<StepFinder>(profile_.symbols);
  }
}

TraceBuilder::~TraceBuilder() {
  if (nesting_.joinable()) nesting_.join();
}

uint32_t TraceBuilder::add_track(const Track& t) {
  tracks_.push_back(t);
  host_per_track_.push_back(0);
  return static_cast<uint32_t>(tracks_.size() - 1);
}

uint32_t TraceBuilder::add(uint32_t track, int64_t start, int64_t end, FrameId f, EventKind kind, uint64_t correlation,
                           uint16_t depth, bool provisional, uint64_t device_order) {
  if (nesting_.joinable() && !is_device_work(kind) && kind != EventKind::DeviceAnnotation)
    throw std::logic_error("TraceBuilder: a host event after host_events_done()");
  const uint32_t event = next_event_++;
  RawEvent e{start, end, correlation, device_order == UINT64_MAX ? event : device_order, event, track, f, depth, kind,
             static_cast<uint8_t>(provisional && kind == EventKind::Launch)};
  first_start_ = std::min(first_start_, start);
  if (chart_steps_ && kind == EventKind::HostRange && !tracks_[track].device) chart_steps_->see(track, f, start, end);
  if (held_) {
    // The selection needs the trace's first start and its steps before anything is clipped.
    const Track& tr = tracks_[track];
    if ((kind == EventKind::HostRange || e.provisional) && !tr.device && selection_->stepped())
      selection_->step_seen(tr.rank, step_number(profile_.symbols.name(f)), start, end);
    held_->push(e);
    return event;
  }
  classify(e);
  return event;
}

void TraceBuilder::confirm_launch(uint32_t event) {
  if (confirmed_.size() <= event / 64) confirmed_.resize(event / 64 + 1, 0);
  confirmed_[event / 64] |= uint64_t(1) << (event % 64);
}

// Where an event goes, as build_profile sorts a timeline's events.
void TraceBuilder::classify(const RawEvent& r) {
  const Track& tr = tracks_[r.track];
  const EventKind k = r.kind;
  if (k == EventKind::DeviceAnnotation) ++annotations_;
  if (is_device_work(k)) {
    device_->push(DeviceOp{r.correlation, r.device_order, r.start, r.end, tr.pid, tr.rank, r.event, r.track, r.frame});
    return;
  }
  HostEvent e{r.start, r.end, r.correlation, r.event, r.track, r.frame, r.depth, k,
              static_cast<uint8_t>(r.provisional ? kProvisional : 0)};
  const bool launch = k == EventKind::Launch;
  const bool host = !tr.device && (k == EventKind::HostRange || launch || k == EventKind::Other);
  if (!host || !selection_->track_kept(r.track) || !selection_->clip(tr.rank, e.start, e.end)) {
    if (!launch || !joinable(tr.rank, r.correlation)) return;
    if (!r.provisional) {
      launch_record(e, kNone);
      return;
    }
    e.flags |= kNotNested;  // a launch only if confirmed: decided when the spool is read
    host_->push(e);
    return;
  }
  if (!selection_->category_kept(profile_.symbols[r.frame].category)) {
    if (!launch) return;
    e.flags |= kPhantom;  // still finds the stack its kernels belong to
    if (r.provisional) {
      conditional_phantoms_.emplace_back(r.event, r.track);
      host_->push(e);
      return;
    }
  }
  ++host_per_track_[r.track];
  ++host_events_;
  host_->push(e);
}

void TraceBuilder::launch_record(const HostEvent& e, NodeId node) {
  const uint32_t rank = host_track_ranks_.empty() ? tracks_[e.track].rank : host_track_ranks_[e.track];
  launches_->push(Launch{e.correlation, rank, e.event, node, e.track, (e.flags & kProvisional) != 0u});
}

void TraceBuilder::host_events_done() {
  if (!nests_aside() || nesting_.joinable()) return;
  // What nest_host needs of the tracks, copied: the reader goes on adding (device) tracks.
  for (const Track& t : tracks_) host_track_ranks_.push_back(t.rank);
  host_track_count_ = host_per_track_.size();
  on_thread_ = true;
  nesting_ = std::thread([this] {
    try {
      nest_host();
    } catch (...) {
      nesting_error_ = std::current_exception();
    }
  });
}

// Nests the host events, track by track, each into a tree of its own. Nothing here depends on
// the device side, the group frames or which provisional launches get confirmed (a provisional
// one whose category is left out is placed as a phantom: it changes no weight), so it can run
// while the reader still reads device tables.
void TraceBuilder::nest_host(GroupNodes* into_final) {
  host_->finish();
  if (!into_final) track_trees_.resize(on_thread_ ? host_track_count_ : host_per_track_.size());
  std::optional<TrackNester> nester;
  uint32_t track = kNone;
  HostEvent e;
  while (host_->next(e)) {
    const uint32_t rank = host_track_ranks_.empty() ? tracks_[e.track].rank : host_track_ranks_[e.track];
    const bool launch = e.kind == EventKind::Launch && joinable(rank, e.correlation);
    if (e.flags & kNotNested) {
      if (launch) launch_record(e, kNone);
      continue;
    }
    if (e.track != track) {
      if (nester) nester->finish();
      track = e.track;
      NestTarget target{&profile_, into_final ? into_final->track_base(track) : 0, 0, 1, {}};
      if (!into_final) {
        track_trees_[track] = std::make_unique<Profile>();
        Profile& t = *track_trees_[track];
        t.add_column("cpu", "ns");
        t.add_column("calls", "count");
        target.profile = &t;
      }
      if (chart_)
        target.closed = [this, track](uint32_t event, int64_t s, int64_t end, NodeId node, bool outermost) {
          chart_->host(event, track, s, end, node, outermost);  // on a thread: in the track's tree until renumbered
        };
      nester.emplace(target);
    }
    NodeId node = nester->place(e.start, e.end, e.frame, (e.flags & kPhantom) != 0, 0, e.event);
    if (launch) launch_record(e, node);
  }
  if (nester) nester->finish();
  host_.reset();
  // Launches come only from host events: on the nesting thread, their sort is done here, beside
  // the reader's device tables, rather than in finish().
  if (on_thread_) {
    launches_->finish();
    launches_sorted_ = true;
  }
}

// Each track's tree under its group frames, in track order: nodes get the numbers nesting the
// tracks one after another in the final tree would have given them.
void TraceBuilder::graft_tracks(GroupNodes& groups) {
  Profile& p = profile_;
  final_node_.resize(track_trees_.size());
  for (uint32_t t = 0; t < track_trees_.size(); ++t) {
    if (!host_per_track_[t] || !track_trees_[t]) continue;
    const Profile& sub = *track_trees_[t];
    std::vector<NodeId>& to = final_node_[t];
    to.assign(sub.node_count(), kNone);
    to[0] = groups.track_base(t);
    for (NodeId i = 1; i < sub.node_count(); ++i) {
      to[i] = p.child(to[sub.parent[i]], sub.frame[i]);
      p.add(to[i], 0, sub.columns[0].self[i]);
      p.add(to[i], 1, sub.columns[1].self[i]);
    }
    track_trees_[t].reset();
  }
}

Profile TraceBuilder::finish() {
  Profile& p = profile_;
  p.source_format = source_format;
  p.inputs = inputs;
  p.facts = facts;
  p.counters = counters;
  add_host_columns(p, build_);
  if (ranks.empty()) ranks.push_back("rank 0");
  Selection& sel = *selection_;

  if (held_) {
    if (sel.windowed() && next_event_ > 0) sel.set_origin(first_start_);
    sel.steps_done();
    held_->finish();
    RawEvent r;
    while (held_->next(r)) classify(r);
    held_.reset();
  }
  const bool nested_on_thread = nesting_.joinable();
  if (nested_on_thread) {
    nesting_.join();
    if (nesting_error_) std::rethrow_exception(nesting_error_);
  }
  for (auto [event, track] : conditional_phantoms_) {
    if (!confirmed(event)) continue;
    ++host_per_track_[track];
    ++host_events_;
  }
  conditional_phantoms_ = {};

  // ---- host side: group frames, then each track's tree under them ------------------------
  std::vector<uint8_t> with_events(tracks_.size());
  for (size_t t = 0; t < tracks_.size(); ++t) with_events[t] = host_per_track_[t] != 0;
  GroupNodes groups(p, tracks_, ranks, with_events, read_.group_by, build_.process_level_always);
  DeviceSide device(p, tracks_, groups, sel, read_, build_);
  if (nested_on_thread) {
    graft_tracks(groups);
    if (chart_) chart_->renumber_host_nodes(final_node_);
  } else {
    nest_host(&groups);  // straight into the tree: no second copy of it
  }

  // ---- device side: device work meets its launch (sort-merge on the correlation id) --------
  // A device op takes the first launch (by event id) of its rank with its correlation id from
  // its own process, else the first one from any process (several processes reuse CUPTI ids).
  DeviceSide::JoinCounts counts;
  Spool<Placed, ByOrder> placed(memory_ / 4);
  {
    device_->finish();
    if (!launches_sorted_) launches_->finish();
    // Provisional launches that were not confirmed are not launches; the others get their node
    // in the final tree. Many launches (an op for each of a million rows, most never confirmed)
    // are merged, dropped and renumbered on the second core, idle by now, while this one joins.
    auto launch_kept = [this, nested_on_thread](Launch& l) {
      if (l.provisional && !confirmed(l.event)) return false;
      if (l.node != kNone && nested_on_thread) l.node = final_node_[l.track][l.node];
      return true;
    };
    std::optional<SpoolAhead<Launch, ByCorrelation>> launches_ahead;
    if (launches_->size() >= kLaunchesAhead && read_.threads_to_use != 1) launches_ahead.emplace(*launches_, launch_kept);
    auto next_launch = [&](Launch& out) {
      if (launches_ahead) return launches_ahead->next(out);
      while (launches_->next(out))
        if (launch_kept(out)) return true;
      return false;
    };
    Launch l;
    bool have_l = next_launch(l);
    std::vector<Launch> group;  // the launches of one (rank, correlation), in event order
    std::vector<uint8_t> used;
    auto key_before = [](uint32_t ra, uint64_t ca, uint32_t rb, uint64_t cb) { return ra != rb ? ra < rb : ca < cb; };
    // Counts the current group and reads the next one; false when no launches are left.
    auto next_group = [&]() {
      for (size_t i = 0; i < group.size(); ++i) {
        ++counts.launches;
        if (!used[i]) ++counts.launches_without_device;
        for (size_t j = 0; j < i; ++j)
          if (tracks_[group[j].track].pid == tracks_[group[i].track].pid) {
            ++counts.duplicate_launch_ids;
            break;
          }
      }
      group.clear();
      used.clear();
      if (!have_l) return false;
      group.push_back(l);
      while ((have_l = next_launch(l)) && l.rank == group[0].rank && l.correlation == group[0].correlation)
        group.push_back(l);
      used.assign(group.size(), 0);
      return true;
    };
    next_group();
    DeviceOp d;
    while (device_->next(d)) {
      ++counts.device_ops;
      size_t chosen = SIZE_MAX;
      if (joinable(d.rank, d.correlation)) {
        while (!group.empty() && key_before(group[0].rank, group[0].correlation, d.rank, d.correlation)) next_group();
        if (!group.empty() && group[0].rank == d.rank && group[0].correlation == d.correlation) {
          for (size_t i = 0; i < group.size() && chosen == SIZE_MAX; ++i)
            if (tracks_[group[i].track].pid == d.pid) chosen = i;
          if (chosen == SIZE_MAX) chosen = 0;
        }
      }
      if (chosen == SIZE_MAX) {
        ++counts.device_without_launch;
        placed.push(Placed{d.order, d.start, d.end, d.event, d.track, d.frame, kNone, kNone, 0});
        continue;
      }
      used[chosen] = 1;
      placed.push(Placed{d.order, d.start, d.end, d.event, d.track, d.frame, group[chosen].node, group[chosen].event, 1});
    }
    while (next_group()) {
    }
  }
  device_.reset();
  launches_.reset();
  placed.finish();
  Placed op;
  while (placed.next(op)) {
    NodeId node = device.op(op.track, op.start, op.end, op.frame, op.has_launch != 0, op.launch_node);
    if (chart_ && node != kNone) chart_->device(op.event, op.track, op.start, op.end, node, op.has_launch ? op.launch_event : kNone);
  }
  for (uint64_t i = 0; i < annotations_; ++i) device.annotation();
  if (chart_) {
    p.chart = chart_->finish(ranks, chart_steps_->take(), sel, read_);
    chart_.reset();
  }
  device.finish(next_event_, host_events_, counts, ranks.size());
  Profile out = std::move(profile_);
  return out;
}

}  // namespace flamefold
