// The time-ordered flame chart of a traced input (the HTML viewer's "Flame chart" view): the
// events as nesting placed them, each with its call-tree node, device work linked to its launch,
// the ProfilerStep ranges, and host and device busy time over the whole trace.
//
// Both profile builders (build_profile, the streaming TraceBuilder) feed a ChartCollector when
// ReadOptions::chart_events is not 0, and it keeps at most that many events whatever the trace's
// size: the events of the first ProfilerSteps that fit (by time), else those of the first stretch
// of time that fits. The choice depends only on the events, not on the order they come in, so
// both builders give the same chart.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flamefold/options.h"
#include "flamefold/profile.h"
#include "flamefold/timeline.h"

namespace flamefold {

class Selection;

struct TimelineChart {
  struct Lane {  // a track with events in the chart
    std::string name;     // thread or stream name
    std::string process;  // process name ("" = unknown)
    int64_t pid = 0, tid = 0;
    uint32_t rank = 0;
    bool device = false;
  };
  struct Event {
    int64_t start = 0, end = 0;  // ns; a host interval ends where nesting closed it (earlier when cut)
    NodeId node = kNone;         // its call path (device work: the operation's leaf)
    uint32_t lane = 0;
    uint32_t launch = kNone;     // device work: the index in `events` of its launch (kNone: not in the chart)
    uint32_t event = 0;          // the reader's event id
  };
  struct Step {
    uint32_t rank = 0;
    int64_t number = 0, start = 0, end = 0;
  };
  enum class Scope : uint8_t { kAll = 0, kSteps = 1, kWindow = 2 };

  std::vector<std::string> ranks;
  std::vector<Lane> lanes;
  std::vector<Event> events;  // lane by lane, each by (start, end descending, node, event id)
  std::vector<Step> steps;    // the trace's ProfilerStep#N ranges (by start), as the selection clips them
  int64_t trace_start = 0, trace_end = 0;  // the events the trace had for the chart
  uint64_t trace_events = 0;
  uint64_t limit = 0;
  // What the chart holds: everything, whole steps [first_step, last_step], or a window of time.
  Scope scope = Scope::kAll;
  int64_t window_start = 0, window_end = 0;
  int64_t first_step = -1, last_step = -1;
  bool steps_option = false, window_option = false;  // --steps / --window narrowed the trace
  // Busy time over the whole trace, per bucket of bucket_ns from busy_start: host (ns a thread
  // spent inside some event, summed over threads) and device (ns of work, summed over streams).
  int64_t busy_start = 0, bucket_ns = 1;
  std::vector<int64_t> host_busy, device_busy;
};

// Host and device busy time in buckets whose width doubles as the trace's span grows, so there
// are never more than kMaxBuckets. Buckets are aligned to multiples of their width from time 0:
// the result does not depend on the order intervals come in.
class BusyHistogram {
 public:
  static constexpr int64_t kMaxBuckets = 4096;
  void add(int64_t start, int64_t end, bool device);
  bool empty() const { return host_.empty(); }
  int64_t first_bucket_start() const { return lo_ * width_; }
  int64_t bucket_ns() const { return width_; }
  const std::vector<int64_t>& host() const { return host_; }
  const std::vector<int64_t>& device() const { return device_; }

 private:
  void cover(int64_t lo, int64_t hi);  // bucket indices, at the current width
  void widen();                        // doubles the width
  int64_t width_ = 1, lo_ = 0;
  std::vector<int64_t> host_, device_;
};

class ChartCollector {
 public:
  // limit: events kept at most (> 0). symbols and tracks are read only by renumber_host_nodes()
  // and finish(), so readers may still add tracks and frames while events come.
  ChartCollector(uint64_t limit, const Symbols& symbols, const std::vector<Track>& tracks);

  // A host event as nesting closed it; outermost: no event of its track was open around it.
  void host(uint32_t event, uint32_t track, int64_t start, int64_t end, NodeId node, bool outermost) {
    if (outermost) busy_.add(start, end, false);
    keep(TimelineChart::Event{start, end, node, track, kNone, event});
  }
  // A device operation placed under `node`; launch_event: its launch's event id, or kNone.
  void device(uint32_t event, uint32_t track, int64_t start, int64_t end, NodeId node, uint32_t launch_event) {
    busy_.add(start, end, true);
    keep(TimelineChart::Event{start, end, node, track, launch_event, event});
  }
  // Host nodes numbered in each track's own tree (TraceBuilder) become the final tree's:
  // final_node[track][node].
  void renumber_host_nodes(const std::vector<std::vector<NodeId>>& final_node);

  // A ProfilerStep#N range seen on a host track, before the selection clipped it.
  struct RawStep {
    uint32_t track;
    int64_t number, start, end;
  };
  // The chart; null when no event came. Steps the selection leaves out are dropped, the others
  // clipped to it.
  std::shared_ptr<TimelineChart> finish(const std::vector<std::string>& ranks, std::vector<RawStep> steps,
                                        const Selection& selection, const ReadOptions& read);

 private:
  void keep(const TimelineChart::Event& e);
  void compact();  // keeps the events that start before the limit+1-th earliest start

  uint64_t limit_;
  const Symbols& symbols_;
  const std::vector<Track>& tracks_;
  std::vector<TimelineChart::Event> kept_;  // lane = track id, launch = launch event id here
  int64_t cut_ = INT64_MAX;                 // events starting at or after it do not fit
  uint64_t seen_ = 0;
  int64_t first_ = INT64_MAX, last_ = INT64_MIN;
  BusyHistogram busy_;
};

// The ProfilerStep#N ranges of host tracks kept as they stream by (a step's frame is looked up
// once per frame, not once per event).
class StepFinder {
 public:
  explicit StepFinder(const Symbols& symbols) : symbols_(symbols) {}
  void see(uint32_t track, FrameId frame, int64_t start, int64_t end);
  std::vector<ChartCollector::RawStep> take() { return std::move(steps_); }

 private:
  const Symbols& symbols_;
  std::vector<int64_t> number_of_frame_;  // -2 = not looked up yet, -1 = not a step
  std::vector<ChartCollector::RawStep> steps_;
};

}  // namespace flamefold
