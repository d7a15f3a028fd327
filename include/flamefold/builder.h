// The two ways readers fill a Profile (the speedscope idea):
//   SampleBuilder   — "this stack was seen with this weight" (perf, folded, pstats);
//   IntervalBuilder — "frame entered at t, left at t'" (exact timings: enter/leave streams).
// Traced formats (Kineto, nsys, Ascend) go through the Timeline and build/nest instead.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "flamefold/profile.h"

namespace flamefold {

class SampleBuilder {
 public:
  SampleBuilder(Profile& profile, int column) : p_(profile), column_(column) {}
  // stack is root first. Returns the leaf node.
  NodeId add(std::span<const FrameId> stack, double weight, NodeId base = 0) {
    NodeId n = p_.path(base, stack);
    p_.add(n, column_, weight);
    return n;
  }

 private:
  Profile& p_;
  int column_;
};

// Turns a properly nested stream of enter/leave events of one thread into self time (ns) per
// call path, and call counts when calls_column >= 0. Leaves that do not match the innermost
// open frame, and time running backwards, are counted in the profile's counters.
class IntervalBuilder {
 public:
  IntervalBuilder(Profile& profile, int time_column, int calls_column = -1, NodeId base = 0)
      : p_(profile), time_(time_column), calls_(calls_column), base_(base) {}
  void enter(FrameId frame, int64_t t);
  void leave(int64_t t);                // leaves the innermost open frame
  void leave(FrameId frame, int64_t t);  // checks it is the innermost open frame
  void finish(int64_t t);               // closes whatever is still open at t
  size_t open_depth() const { return stack_.size(); }
  NodeId current() const { return stack_.empty() ? base_ : stack_.back(); }

 private:
  void advance(int64_t t);
  Profile& p_;
  int time_, calls_;
  NodeId base_;
  std::vector<NodeId> stack_;
  std::vector<FrameId> frames_;
  int64_t last_ = 0;
};

}  // namespace flamefold
