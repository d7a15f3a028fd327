// Timeline -> Profile: group frames (rank > process > thread), nest each host track, then
// put device work under the call path of the launch that caused it (timeline/build_profile.h).
#include <algorithm>
#include <charconv>
#include <span>
#include <string>

#include "flamefold/timeline/chart.h"
#include "flamefold/timeline/correlate.h"
#include "flamefold/timeline/nest.h"
#include "flamefold/timeline/selection.h"
#include "flamefold/errors.h"
#include "flamefold/timeline/build_profile.h"

namespace flamefold {

Profile build_profile(Timeline&& tl, const ReadOptions& ro, const BuildOptions& bo) {
  Profile p;
  p.symbols = std::move(tl.symbols);
  p.source_format = tl.source_format;
  p.inputs = tl.inputs;
  p.facts = tl.facts;
  p.counters = tl.counters;
  add_host_columns(p, bo);
  const int cpu = 0, calls = 1;

  const size_t n = tl.size();
  const size_t ntracks = tl.tracks.size();
  if (tl.ranks.empty()) tl.ranks.push_back("rank 0");

  // ---- filters -------------------------------------------------------------------------
  Selection sel(ro, p.symbols, tl.tracks);
  if (sel.windowed() && n > 0) sel.set_origin(*std::min_element(tl.start.begin(), tl.start.end()));
  if (sel.stepped()) {
    for (size_t e = 0; e < n; ++e) {
      if (tl.kind[e] != EventKind::HostRange || tl.tracks[tl.track[e]].device) continue;
      sel.step_seen(tl.tracks[tl.track[e]].rank, step_number(p.symbols.name(tl.frame[e])), tl.start[e], tl.end[e]);
    }
    sel.steps_done();
  }

  // ---- host side: group frames, then nest each track -------------------------------------
  std::vector<uint8_t> phantom(n, 0);
  std::vector<uint32_t> per_track_count(ntracks + 1, 0);
  uint64_t host_events = 0;
  for (size_t e = 0; e < n; ++e) {
    const Track& tr = tl.tracks[tl.track[e]];
    EventKind k = tl.kind[e];
    bool host = !tr.device && (k == EventKind::HostRange || k == EventKind::Launch || k == EventKind::Other);
    if (!host || !sel.track_kept(tl.track[e]) || !sel.clip(tr.rank, tl.start[e], tl.end[e])) {
      phantom[e] = 2;  // not on the host side
      continue;
    }
    if (!sel.category_kept(p.symbols[tl.frame[e]].category)) {
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
    for (FrameId f : tl.call_stacks.frames) kept = kept && sel.category_kept(p.symbols[f].category);
    if (kept) python_stacks = NestStacks{&tl.call_stack, &tl.call_stacks};
  }

  // The flame chart (timeline/chart.h): its ProfilerStep ranges now, its events as they are placed.
  std::unique_ptr<ChartCollector> chart;
  std::vector<ChartCollector::RawStep> chart_steps;
  if (ro.chart_events > 0) {
    chart = std::make_unique<ChartCollector>(chart_event_bound(ro, n > ro.big_trace_events), p.symbols, tl.tracks);
    StepFinder steps(p.symbols);
    for (size_t e = 0; e < n; ++e)
      if (tl.kind[e] == EventKind::HostRange && !tl.tracks[tl.track[e]].device)
        steps.see(tl.track[e], tl.frame[e], tl.start[e], tl.end[e]);
    chart_steps = steps.take();
  }

  std::vector<uint8_t> with_events(ntracks);
  for (size_t t = 0; t < ntracks; ++t) with_events[t] = per_track_count[t + 1] != per_track_count[t];
  GroupNodes groups(p, tl.tracks, tl.ranks, with_events, ro.group_by, bo.process_level_always);
  DeviceSide device(p, tl.tracks, groups, sel, ro, bo);
  // Nesting reads each host event's frame once and leaves its node in its place: from here on
  // tl.frame holds nodes for host events (device work keeps its frames).
  std::vector<NodeId>& node_of = tl.frame;
  for (size_t t = 0; t < ntracks; ++t) {
    uint32_t b = per_track_count[t], e = per_track_count[t + 1];
    if (b == e) continue;
    NodeId base = groups.track_base(static_cast<uint32_t>(t));
    std::span<uint32_t> events(by_track.data() + b, e - b);  // nest_track reorders them in place
    for (uint32_t ev : events) phantom[ev] &= 1;
    NestTarget target{&p, base, cpu, calls, {}};
    if (chart)
      target.closed = [&chart, t](uint32_t e, int64_t s, int64_t end, NodeId node, bool outermost) {
        chart->host(e, static_cast<uint32_t>(t), s, end, node, outermost);
      };
    nest_track(events, tl.start, tl.end, node_of, tl.parent_hint, phantom, target, python_stacks);
  }
  // A launch that was not nested (not on the host side) has no node: its slot still holds its frame.
  for (const auto& [op, launch] : join.launched)
    if (phantom[launch] == 2) node_of[launch] = kNone;
  // Freed as soon as they are consumed (the mmap threshold pinned in main returns them to the OS).
  std::vector<uint32_t>().swap(by_track);
  std::vector<uint8_t>().swap(phantom);
  std::vector<uint32_t>().swap(tl.parent_hint);
  std::vector<uint32_t>().swap(tl.call_stack);

  // ---- device side: attribute each operation to its launch's call path -----------------
  auto launched = join.launched.begin();
  for (size_t e = 0; e < n; ++e) {
    EventKind k = tl.kind[e];
    if (k == EventKind::DeviceAnnotation) device.annotation();
    if (!is_device_work(k)) continue;
    uint32_t launch = kNone;
    if (launched != join.launched.end() && launched->first == e) launch = (launched++)->second;
    NodeId node = device.op(tl.track[e], tl.start[e], tl.end[e], tl.frame[e], launch != kNone,
                            launch != kNone ? node_of[launch] : kNone);
    if (chart && node != kNone) chart->device(static_cast<uint32_t>(e), tl.track[e], tl.start[e], tl.end[e], node, launch);
  }
  // The timeline is consumed: free its columns before the device columns are made.
  join.launched = {};
  const size_t rank_count = tl.ranks.size();
  // The event columns go; the tracks and ranks stay (the group nodes and device side refer to them).
  {
    Timeline done;
    done.track.swap(tl.track);
    done.start.swap(tl.start);
    done.end.swap(tl.end);
    done.frame.swap(tl.frame);
    done.kind.swap(tl.kind);
    done.call_stacks = std::move(tl.call_stacks);
  }
  if (chart) p.chart = chart->finish(tl.ranks, std::move(chart_steps), sel, ro);
  chart.reset();
  device.finish(n, host_events,
                DeviceSide::JoinCounts{join.device_ops, join.device_without_launch, join.launches,
                                       join.launches_without_device, join.duplicate_launch_ids},
                rank_count);
  return p;
}

}  // namespace flamefold
