#include "flamefold/timeline/nest.h"

#include <algorithm>

namespace flamefold {

namespace {

// The sort key of a shuffled track, 12 bytes: the end, the hint depth and the event id, needed
// only between equal starts, are looked up then.
struct __attribute__((packed)) SortKey {
  int64_t start;
  uint32_t local;  // index into the track's events
};

// Depth of each event along its parent hints (local indices into events; kNone = no parent on
// this track), and each hinted child clamped into its parent's interval (in start/end, indexed
// by event id), parents first, so that time nesting places it below the parent even when
// rounding made it stick out. Cycles count as roots.
void resolve_hints(const std::vector<uint32_t>& hint, std::vector<uint32_t>& depth, std::span<const uint32_t> events,
                   std::vector<int64_t>& start, std::vector<int64_t>& end) {
  constexpr uint32_t kUnknown = UINT32_MAX;
  std::vector<uint32_t> chain;
  for (uint32_t e = 0; e < hint.size(); ++e) {
    if (depth[e] != kUnknown) continue;
    chain.clear();
    uint32_t cur = e;
    uint32_t top = kNone;  // the resolved ancestor the chain hangs from, if any
    while (true) {
      chain.push_back(cur);
      depth[cur] = kUnknown - 1;  // on the chain being walked
      uint32_t p = hint[cur];
      if (p == kNone || chain.size() > 100000) break;
      if (depth[p] == kUnknown - 1) break;  // a cycle: cur becomes a root
      if (depth[p] != kUnknown) {
        top = p;
        break;
      }
      cur = p;
    }
    // chain.back() hangs from `top` (or is a root); resolve downwards.
    for (size_t k = chain.size(); k-- > 0;) {
      uint32_t i = chain[k];
      uint32_t parent = k + 1 < chain.size() ? chain[k + 1] : top;
      if (parent == kNone) {
        depth[i] = 0;
        continue;
      }
      depth[i] = depth[parent] + 1;
      const uint32_t ei = events[i], ep = events[parent];
      start[ei] = std::clamp(start[ei], start[ep], end[ep]);
      end[ei] = std::clamp(end[ei], start[ei], end[ep]);
    }
  }
}

// Traces are mostly written in time order: a track is usually one sorted run, or a few (a
// handful of late events, a second stream of events appended). Merging the runs costs
// O(n log runs) and a buffer of n elements. Returns false, leaving v as it was, when there are
// more than n / 16 + 1 runs (shuffled input: the caller sorts fully). The order is a total one
// (the event id breaks ties), so every correct sort gives the same result.
template <class T, class Before>
bool merge_runs(std::vector<T>& v, Before before) {
  const size_t n = v.size();
  std::vector<size_t> bounds{0};  // run starts, then n
  for (size_t i = 1; i < n; ++i)
    if (before(v[i], v[i - 1])) {
      bounds.push_back(i);
      if (bounds.size() > n / 16 + 2) return false;
    }
  bounds.push_back(n);
  if (bounds.size() <= 2) return true;
  std::vector<T> merged(n);
  while (bounds.size() > 2) {
    std::vector<size_t> next{0};
    for (size_t r = 0; r + 1 < bounds.size(); r += 2) {
      size_t a = bounds[r], m = bounds[r + 1], b = r + 2 < bounds.size() ? bounds[r + 2] : m;
      std::merge(v.begin() + a, v.begin() + m, v.begin() + m, v.begin() + b, merged.begin() + a, before);
      next.push_back(b);
    }
    v.swap(merged);
    bounds.swap(next);
  }
  return true;
}

}  // namespace

TrackNester::TrackNester(const NestTarget& target, const CallStacks* python_stacks)
    : t_(target), p_(*target.profile), stacks_(python_stacks) {
  open_.reserve(64);
}

// The frames of `stack` beyond those it shares with `context`, made below `parent`.
NodeId TrackNester::python_frames(NodeId parent, uint32_t context, uint32_t stack) {
  std::span<const FrameId> frames = (*stacks_)[stack], around = (*stacks_)[context];
  size_t k = 0;
  while (k < frames.size() && k < around.size() && frames[k] == around[k]) ++k;
  for (; k < frames.size(); ++k) parent = p_.child(parent, frames[k]);
  return parent;
}

void TrackNester::close_top(int64_t at) {
  Open o = open_.back();
  open_.pop_back();
  int64_t d = at - o.start;
  p_.add(o.node, t_.cpu_column, static_cast<double>(d - o.child_time));
  if (!open_.empty()) open_.back().child_time += d;
  if (t_.closed) t_.closed(o.tag, o.start, at, o.node, open_.empty());
}

NodeId TrackNester::place(int64_t ks, int64_t ke, FrameId f, bool phantom, uint32_t s, uint32_t tag) {
  while (!open_.empty() && open_.back().end <= ks && !(open_.back().end == ks && ke == ks && open_.back().start == ks))
    close_top(open_.back().end);
  if (phantom) return open_.empty() ? t_.base : open_.back().node;
  // Open intervals that end before this one does are cut at its start (DESIGN.md "nest").
  while (!open_.empty() && open_.back().end < ke) close_top(ks);
  if (!stacks_) s = 0;
  FrameId& last_frame = open_.empty() ? base_last_frame_ : open_.back().last_frame;
  NodeId& last_child = open_.empty() ? base_last_child_ : open_.back().last_child;
  uint32_t& last_stack = open_.empty() ? base_last_stack_ : open_.back().last_stack;
  const uint32_t context = open_.empty() ? 0 : open_.back().stack;
  NodeId node;
  if (last_frame == f && last_stack == s) {
    node = last_child;
  } else {
    NodeId parent = open_.empty() ? t_.base : open_.back().node;
    if (s != 0 && s != context) parent = python_frames(parent, context, s);
    node = p_.child(parent, f);
    last_frame = f;
    last_child = node;
    last_stack = s;
  }
  if (t_.calls_column >= 0) p_.add(node, t_.calls_column, 1);
  open_.push_back(Open{node, ks, ke, 0, kNone, kNone, s ? s : context, 0, tag});
  return node;
}

void TrackNester::finish() {
  while (!open_.empty()) close_top(open_.back().end);
}

void nest_track(std::span<uint32_t> events, std::vector<int64_t>& start, std::vector<int64_t>& end,
                std::vector<FrameId>& frame_to_node, const std::vector<uint32_t>& parent_hint,
                const std::vector<uint8_t>& phantom, const NestTarget& t, const NestStacks& py) {
  if (events.empty()) return;

  bool any_hint = false;
  for (uint32_t e : events)
    if (parent_hint[e] != kNone) {
      any_hint = true;
      break;
    }
  {
    // The sort lives only while sorting: the sweep below reads the intervals by event id, so
    // only the order (4 B per event, in `events`) is kept while the tree grows.
    std::vector<uint32_t> depth;  // per local index; empty: every depth is 0
    if (any_hint) {
      // Local index of each hinted parent: `events` comes in ascending event id order.
      bool ascending = std::is_sorted(events.begin(), events.end());
      if (!ascending) std::sort(events.begin(), events.end());
      depth.assign(events.size(), UINT32_MAX);
      std::vector<uint32_t> local_hint(events.size(), kNone);
      for (uint32_t i = 0; i < events.size(); ++i) {
        uint32_t h = parent_hint[events[i]];
        if (h == kNone) continue;
        auto it = std::lower_bound(events.begin(), events.end(), h);
        if (it != events.end() && *it == h && uint32_t(it - events.begin()) != i)
          local_hint[i] = uint32_t(it - events.begin());
      }
      resolve_hints(local_hint, depth, events, start, end);
    }
    // The nest order of local indices (4 B per event, merged with a buffer of as many): sorted
    // runs are merged in place of the events; shuffled tracks are sorted by 12 B keys instead,
    // which keep the starts close at hand.
    auto before = [&](uint32_t a, uint32_t b) {
      const uint32_t ea = events[a], eb = events[b];
      if (start[ea] != start[eb]) return start[ea] < start[eb];
      if (end[ea] != end[eb]) return end[ea] > end[eb];
      if (!depth.empty() && depth[a] != depth[b]) return depth[a] < depth[b];
      return ea < eb;
    };
    std::vector<uint32_t> order(events.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    if (!merge_runs(order, before)) {
      std::vector<SortKey> keys(events.size());
      for (uint32_t i = 0; i < events.size(); ++i) keys[i] = SortKey{start[events[i]], i};
      std::sort(keys.begin(), keys.end(), [&](const SortKey& a, const SortKey& b) {
        return a.start != b.start ? a.start < b.start : before(a.local, b.local);
      });
      for (size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].local;
    }
    std::vector<uint32_t>().swap(depth);
    for (uint32_t& i : order) i = events[i];
    std::copy(order.begin(), order.end(), events.begin());
  }

  TrackNester nester(t, py.table);
  const bool with_stacks = py.of_event && py.table && !py.of_event->empty();
  for (const uint32_t e : events) {
    const uint32_t s = with_stacks && e < py.of_event->size() ? (*py.of_event)[e] : 0;
    frame_to_node[e] = nester.place(start[e], end[e], frame_to_node[e], phantom[e] != 0, s, e);
  }
  nester.finish();
}

}  // namespace flamefold
