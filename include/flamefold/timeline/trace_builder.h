// TraceBuilder: a Profile from trace events streamed in the order a reader meets them, in memory
// that follows the call tree rather than the number of events. It gives exactly the profile
// build_profile() gives for a Timeline holding the same events in the same order (event ids =
// the order of add() calls), but keeps no event columns: host events wait in a Spool sorted the
// way nest sweeps them (track, start, end descending, depth, event id), device operations and
// launches meet in a sort-merge join on their correlation ids, and every spool spills sorted runs
// to a temporary file past its memory budget (include/flamefold/spool.h).
//
// What it does not take (build_profile does): Python stacks given as text on events, and parent
// hints other than a chain's depth. Readers of formats that have them build a Timeline.
#pragma once
#include <cstdint>
#include <exception>
#include <memory>
#include <thread>
#include <string>
#include <vector>

#include "flamefold/timeline/chart.h"
#include "flamefold/timeline/selection.h"
#include "flamefold/options.h"
#include "flamefold/profile.h"
#include "flamefold/spool.h"
#include "flamefold/timeline.h"
#include "flamefold/timeline/build_profile.h"

namespace flamefold {

class TraceBuilder {
 public:
  // memory_bytes: the budget of each spool (the builder keeps up to three spools at once).
  TraceBuilder(const ReadOptions& read, const BuildOptions& build, size_t memory_bytes = kSpoolBytes);
  ~TraceBuilder();

  // What readers fill in as they go, as on a Timeline.
  Symbols& symbols() { return profile_.symbols; }
  uint32_t add_track(const Track& t);
  const std::vector<Track>& tracks() const { return tracks_; }
  // A track to change: its names any time before finish(); its device flag before any of its
  // events was added (classification happens in add()).
  Track& track(uint32_t id) { return tracks_[id]; }
  std::vector<std::string> ranks;  // rank labels; "rank 0" when none
  std::vector<Counter> counters;
  std::vector<std::pair<std::string, std::string>> facts;
  std::string source_format;
  std::vector<std::string> inputs;
  void count(std::string_view what, uint64_t n = 1) { add_to_counters(counters, what, n); }

  // One event, as Timeline::add would take it; returns its event id (ids count from 0 in call
  // order, and break ties in nesting as a timeline's event ids do). depth: how many of its
  // parents (by parent hint) come before it among events with the same interval — the callchain
  // frames a reader puts above a call. device_order: for device work, the order in which it is
  // placed (default: its event id), for readers that add device work out of table order.
  // A provisional launch (kind Launch, provisional) is a launch only if confirm_launch() names it
  // before finish(); otherwise it is a plain host range (Ascend: the earliest of the rows that
  // reach one connection launched it, which is known only after the table is read).
  uint32_t add(uint32_t track, int64_t start, int64_t end, FrameId f, EventKind kind, uint64_t correlation = 0,
               uint16_t depth = 0, bool provisional = false, uint64_t device_order = UINT64_MAX);
  void confirm_launch(uint32_t event);
  // Says no more host events will come (device work may): the host events are then nested on a
  // second thread while the reader goes on with its device tables. Optional.
  void host_events_done();
  // Whether host_events_done() will nest on a second thread (not when events are held back for
  // the selection, or on one thread).
  bool nests_aside() const { return !held_ && read_.threads_to_use != 1; }
  uint32_t events() const { return next_event_; }
  // Whether --categories keeps events of this category (readers that decide a depth by it).
  bool keeps_category(CategoryId c) const { return selection_->category_kept(c); }
  bool keeps_category(std::string_view name) const { return selection_->category_name_kept(name); }

  Profile finish();

  // The records the builder sorts (public for the spools' comparators).
  struct HostEvent {
    int64_t start, end;
    uint64_t correlation;
    uint32_t event, track;
    FrameId frame;
    uint16_t depth;
    EventKind kind;
    uint8_t flags;
  };
  struct DeviceOp {
    uint64_t correlation, order;
    int64_t start, end, pid;
    uint32_t rank, event, track;
    FrameId frame;
  };
  struct Launch {  // 24 bytes: a million of them are spooled (its process is its track's)
    uint64_t correlation;
    uint32_t rank, event;
    NodeId node;  // in its track's own tree (see nest_host); kNone: left out by the selection
    uint32_t track : 31;
    uint32_t provisional : 1;  // a launch only if confirmed
  };
  struct Placed {  // a device operation with its launch's call path, back in event order
    uint64_t order;
    int64_t start, end;
    uint32_t event, track;
    FrameId frame;
    NodeId launch_node;
    uint32_t launch_event;  // the launch's event id (has_launch)
    uint8_t has_launch;
  };

 private:
  struct HostOrder {  // nest order: by track, then as nest_track sorts a track's events
    bool operator()(const HostEvent& a, const HostEvent& b) const {
      if (a.track != b.track) return a.track < b.track;
      if (a.start != b.start) return a.start < b.start;
      if (a.end != b.end) return a.end > b.end;
      if (a.depth != b.depth) return a.depth < b.depth;
      return a.event < b.event;
    }
  };
  struct ByCorrelation {
    template <class T>
    bool operator()(const T& a, const T& b) const {
      if (a.rank != b.rank) return a.rank < b.rank;
      if (a.correlation != b.correlation) return a.correlation < b.correlation;
      return a.event < b.event;
    }
  };
  struct ByOrder {
    bool operator()(const Placed& a, const Placed& b) const { return a.order < b.order; }
  };
  struct RawEvent {  // events held back until the selection knows the window origin and steps
    int64_t start, end;
    uint64_t correlation, device_order;
    uint32_t event, track;
    FrameId frame;
    uint16_t depth;
    EventKind kind;
    uint8_t provisional;
  };
  struct ByRawEvent {
    bool operator()(const RawEvent& a, const RawEvent& b) const { return a.event < b.event; }
  };

  void classify(const RawEvent& e);
  void launch_record(const HostEvent& e, NodeId node);
  bool confirmed(uint32_t event) const {
    return event / 64 < confirmed_.size() && (confirmed_[event / 64] >> (event % 64) & 1);
  }
  // Into a tree per track (on the nesting thread: the group frames are not known yet), or,
  // given them, straight into the profile.
  void nest_host(GroupNodes* into_final = nullptr);
  void graft_tracks(GroupNodes& groups);

  const ReadOptions& read_;
  const BuildOptions& build_;
  size_t memory_;
  Profile profile_;  // its symbols are filled while reading, its tree in finish()
  std::vector<Track> tracks_;
  std::unique_ptr<Selection> selection_;
  std::unique_ptr<Spool<RawEvent, ByRawEvent>> held_;  // while the window origin or steps are unknown
  std::unique_ptr<Spool<HostEvent, HostOrder>> host_;
  std::unique_ptr<Spool<DeviceOp, ByCorrelation>> device_;
  std::unique_ptr<Spool<Launch, ByCorrelation>> launches_;
  std::vector<uint64_t> confirmed_;  // bitmap over event ids of confirmed provisional launches
  // Provisional launches whose category --categories leaves out: placed (as phantoms) only if
  // confirmed, and then counted as host events of their track.
  std::vector<std::pair<uint32_t, uint32_t>> conditional_phantoms_;  // (event, track)
  std::vector<uint32_t> host_per_track_;
  // Each host track nested into a tree of its own (root = the track's base), grafted under the
  // group frames in track order by finish(); then the node each of its nodes became.
  std::vector<std::unique_ptr<Profile>> track_trees_;
  std::vector<std::vector<NodeId>> final_node_;
  std::vector<uint32_t> host_track_ranks_;  // per track, for nest_host
  size_t host_track_count_ = 0;  // tracks when the nesting thread started (host events are on these)
  bool on_thread_ = false;       // nest_host runs on its own thread (set before it starts)
  bool launches_sorted_ = false;  // launches_->finish() was called (by nest_host on its thread)
  // The flame chart (ReadOptions::chart_events): its events (host ones from the nesting thread,
  // device ones in finish()) and the ProfilerStep ranges seen by add().
  std::unique_ptr<ChartCollector> chart_;
  std::unique_ptr<StepFinder> chart_steps_;
  std::thread nesting_;
  std::exception_ptr nesting_error_;
  uint32_t next_event_ = 0;
  uint64_t host_events_ = 0, annotations_ = 0, provisional_phantoms_ = 0;
  int64_t first_start_ = INT64_MAX;
};

}  // namespace flamefold
