// nest: one host track's intervals -> call paths (DESIGN.md "nest").
//
// Events are sorted by (start ascending, end descending, parent-hint depth, index) and swept
// with a stack of open intervals. An interval nests under the innermost open one that fully
// contains it; when it starts inside an open interval but ends after it, that open interval is
// cut at the new start and closed. Every instant inside some event is then attributed to exactly
// one call path: self time is never negative and the track's self time sums to the union of its
// intervals.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "flamefold/profile.h"
#include "flamefold/timeline.h"

namespace flamefold {

struct NestTarget {
  Profile* profile = nullptr;
  NodeId base = 0;       // the thread's group node
  int cpu_column = -1;   // self ns per call path
  int calls_column = -1; // one per event placed
  // Optional: told each placed event's interval as nesting closed it (it ends earlier when a
  // later interval cut it), with the tag place() was given (an event id) and whether no interval
  // was open around it. The flame chart's events come from here (timeline/chart.h).
  std::function<void(uint32_t tag, int64_t start, int64_t end, NodeId node, bool outermost)> closed;
};

// Python frames known per event as an interned stack (Timeline::call_stack / call_stacks, from
// old Kineto traces' "Call stack" args). An event with a stack is placed below the frames of
// its stack beyond the part it shares with the stack in effect around it: the stack of the
// innermost enclosing event that has one, else none (an op called from C++ inside an op with the
// same stack gets no frames; one whose stack extends it gets the extra frames; an op under no
// op with a stack gets its whole stack). The frames get no time and no calls: they were not
// measured, so the thread's self time is unchanged.
struct NestStacks {
  const std::vector<uint32_t>* of_event = nullptr;  // stack id per event id; shorter = 0; null = none
  const CallStacks* table = nullptr;
};

// The sweep over one track's events, given in nest order (start ascending, end descending, parent
// depth, then input order). nest_track sorts a timeline's track and sweeps it; streaming builders
// feed it events already sorted.
class TrackNester {
 public:
  // python_stacks: the table NestStacks ids refer to (null: events carry no Python stacks).
  explicit TrackNester(const NestTarget& target, const CallStacks* python_stacks = nullptr);
  // The next event; returns its node. A phantom is not placed: it gets the node of the path open
  // at its start. python_stack: its NestStacks id (0 = none). tag: what NestTarget::closed is told.
  NodeId place(int64_t start, int64_t end, FrameId f, bool phantom, uint32_t python_stack = 0, uint32_t tag = kNone);
  void finish();  // closes the intervals still open

 private:
  struct Open {
    NodeId node;
    int64_t start, end, child_time;
    FrameId last_frame;  // the child entered last under this one: loops repeat it, skipping a lookup
    NodeId last_child;
    uint32_t stack;       // the Python stack in effect inside this event (NestStacks; 0 = none)
    uint32_t last_stack;  // the stack of the child entered last (with last_frame)
    uint32_t tag;
  };
  NodeId python_frames(NodeId parent, uint32_t context, uint32_t stack);
  void close_top(int64_t at);

  NestTarget t_;
  Profile& p_;
  const CallStacks* stacks_;
  std::vector<Open> open_;
  FrameId base_last_frame_ = kNone;
  NodeId base_last_child_ = kNone;
  uint32_t base_last_stack_ = 0;
};

// events: this track's event ids (reordered in place). start/end are the (possibly clipped)
// intervals, indexed by event id; a hinted child sticking out of its parent is clamped into it
// in place. Events with phantom[e] != 0 are not placed; they only record the call path open at
// their start (a launch whose category was filtered out still finds its stack).
// frame_to_node[e]: in, each event's frame; out, the node of each placed event, or of the open
// path for a phantom (a frame is read once, so the column is reused rather than a node column
// of 4 B per event made beside it). Events are tagged with their ids (NestTarget::closed).
void nest_track(std::span<uint32_t> events, std::vector<int64_t>& start, std::vector<int64_t>& end,
                std::vector<FrameId>& frame_to_node, const std::vector<uint32_t>& parent_hint,
                const std::vector<uint8_t>& phantom, const NestTarget& target, const NestStacks& stacks = {});

}  // namespace flamefold
