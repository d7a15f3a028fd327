// What both profile builders share (the in-memory timeline build and the streaming TraceBuilder):
// the user's selection (--thread, --categories, --steps, --window), the group frames above the
// stacks (--group-by), and the device side (each device operation under its launch's call path,
// with the facts `info` shows).
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flamefold/options.h"
#include "flamefold/profile.h"
#include "flamefold/timeline.h"

namespace flamefold {

struct BuildOptions;

// The step number of a "ProfilerStep#N" frame name, or -1.
int64_t step_number(std::string_view name);

// What --thread, --categories, --steps and --window keep.
class Selection {
 public:
  // symbols and tracks may grow while it is in use (streaming readers add them as they go).
  Selection(const ReadOptions& read, const Symbols& symbols, const std::vector<Track>& tracks);

  bool track_kept(uint32_t track) const {
    if (track >= track_kept_.size()) see_tracks();
    return track_kept_[track] != 0;
  }
  bool category_name_kept(std::string_view name) const;
  bool category_kept(CategoryId c) const {
    if (c >= category_kept_.size()) see_categories();
    return category_kept_[c] != 0;
  }
  bool filters_device_categories() const { return filter_device_categories_; }

  bool windowed() const { return windowed_; }
  bool stepped() const { return stepped_; }
  // --window is relative to the first event of the trace (its smallest start).
  void set_origin(int64_t first_start_ns);
  // A ProfilerStep#N range seen on a host track (call for every one, then steps_done()).
  void step_seen(uint32_t rank, int64_t number, int64_t start, int64_t end);
  // Throws UsageError when --steps matched no step.
  void steps_done();

  // Clips [s, e] of one rank to the selected steps and the window; false when nothing is left.
  bool clip(uint32_t rank, int64_t& s, int64_t& e) const;
  bool start_selected(uint32_t rank, int64_t s) const {
    int64_t e = s;
    return clip(rank, s, e);
  }

 private:
  struct StepRange {
    uint32_t rank;
    int64_t start, end;
    bool operator<(const StepRange& o) const { return rank != o.rank ? rank < o.rank : start < o.start; }
  };
  void see_tracks() const;
  void see_categories() const;
  const ReadOptions& read_;
  const Symbols& symbols_;
  const std::vector<Track>& tracks_;
  std::vector<std::string> wanted_categories_;
  mutable std::vector<uint8_t> track_kept_, category_kept_;
  bool filter_device_categories_ = false;
  bool windowed_ = false, stepped_ = false;
  int64_t w0_ = std::numeric_limits<int64_t>::min(), w1_ = std::numeric_limits<int64_t>::max();
  std::vector<std::pair<int64_t, int64_t>> wanted_steps_;
  std::vector<StepRange> steps_;
  int64_t lowest_step_ = INT64_MAX, highest_step_ = INT64_MIN;
};

// The group frames above the stacks: rank (several ranks), process and thread (--group-by).
class GroupNodes {
 public:
  // host_tracks_with_events[t]: whether host track t has events placed on it.
  GroupNodes(Profile& p, const std::vector<Track>& tracks, const std::vector<std::string>& ranks,
             const std::vector<uint8_t>& host_tracks_with_events, const std::string& group_by, bool process_level_always);
  NodeId rank_node(uint32_t rank);
  NodeId track_base(uint32_t track);  // the node a host track's stacks go under

 private:
  Profile& p_;
  const std::vector<Track>& tracks_;
  const std::vector<std::string>& ranks_;
  bool process_ = true, thread_ = true;
  CategoryId rank_cat_, process_cat_, thread_cat_;
};

// The device side: each device operation under its launch's call path (the kernel as leaf), or
// under "[unattributed] <stream>" when no launch was found; Profile::device_ops; the facts.
class DeviceSide {
 public:
  // dev/kernels: the device columns' indices (made at the first operation, or in finish()).
  DeviceSide(Profile& p, const std::vector<Track>& tracks, GroupNodes& groups, const Selection& selection,
             const ReadOptions& read, const BuildOptions& build);
  // One device operation. has_launch: a launch with its correlation id exists; launch_node: the
  // node of that launch's call path, kNone when the launch was left out by the selection.
  // Returns the operation's node, or kNone when the selection leaves it out.
  NodeId op(uint32_t track, int64_t start, int64_t end, FrameId f, bool has_launch, NodeId launch_node);
  void annotation() { ++annotations_; }

  // How correlation went (from whichever join the builder did).
  struct JoinCounts {
    uint64_t device_ops = 0, device_without_launch = 0, launches = 0, launches_without_device = 0,
             duplicate_launch_ids = 0;
  };
  // Adds the device columns if no operation made them, sorts device_ops, sets the default
  // column and writes the facts and counters.
  void finish(uint64_t events, uint64_t host_events, const JoinCounts& join, size_t ranks);

  static constexpr int kDevColumn = 2, kKernelsColumn = 3;

 private:
  void add_columns();
  Profile& p_;
  const std::vector<Track>& tracks_;
  GroupNodes& groups_;
  const Selection& sel_;
  const ReadOptions& read_;
  const BuildOptions& build_;
  CategoryId device_cat_;
  U64Map stats_index_{256};
  std::vector<NodeId> unattributed_root_;
  int64_t attributed_ns_ = 0, unattributed_ns_ = 0, dropped_ns_ = 0;
  uint64_t attributed_ = 0, unattributed_ = 0, dropped_ = 0, annotations_ = 0;
};

// The profile's first columns, in the order every traced build makes them: cpu, calls (the
// device columns follow when DeviceSide makes them).
void add_host_columns(Profile& p, const BuildOptions& build);

}  // namespace flamefold
