#include "flamefold/builder.h"

namespace flamefold {

void IntervalBuilder::advance(int64_t t) {
  if (t < last_) {
    p_.count("time ran backwards (ignored)");
    return;
  }
  if (!stack_.empty()) p_.add(stack_.back(), time_, static_cast<double>(t - last_));
  last_ = t;
}

void IntervalBuilder::enter(FrameId frame, int64_t t) {
  if (stack_.empty()) last_ = t;
  advance(t);
  NodeId n = p_.child(current(), frame);
  stack_.push_back(n);
  frames_.push_back(frame);
  if (calls_ >= 0) p_.add(n, calls_, 1);
}

void IntervalBuilder::leave(int64_t t) {
  if (stack_.empty()) {
    p_.count("leave without a matching enter");
    return;
  }
  advance(t);
  stack_.pop_back();
  frames_.pop_back();
}

void IntervalBuilder::leave(FrameId frame, int64_t t) {
  if (!frames_.empty() && frames_.back() != frame) {
    p_.count("leave of a frame that is not the innermost open one");
    // Close up to the matching frame if it is open; otherwise ignore the leave.
    for (size_t i = frames_.size(); i-- > 0;)
      if (frames_[i] == frame) {
        advance(t);
        stack_.resize(i);
        frames_.resize(i);
        return;
      }
    return;
  }
  leave(t);
}

void IntervalBuilder::finish(int64_t t) {
  if (stack_.empty()) return;
  p_.count("frames still open at the end (closed there)", stack_.size());
  advance(t);
  stack_.clear();
  frames_.clear();
}

}  // namespace flamefold
