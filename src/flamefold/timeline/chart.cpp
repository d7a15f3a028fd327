// The flame chart's events, bounded (timeline/chart.h).
#include "flamefold/timeline/chart.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <utility>

#include "flamefold/hash.h"
#include "flamefold/timeline/selection.h"
#include "flamefold/two_threads.h"

namespace flamefold {

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && (a < 0) != (b < 0)) --q;
  return q;
}

bool by_start(const TimelineChart::Event& a, const TimelineChart::Event& b) { return a.start < b.start; }

}  // namespace

// ---- busy time ---------------------------------------------------------------------------

void BusyHistogram::widen() {
  const int64_t lo = floor_div(lo_, 2), hi = floor_div(lo_ + static_cast<int64_t>(host_.size()) - 1, 2);
  std::vector<int64_t> h(static_cast<size_t>(hi - lo + 1), 0), d(h.size(), 0);
  for (size_t i = 0; i < host_.size(); ++i) {
    const size_t b = static_cast<size_t>(floor_div(lo_ + static_cast<int64_t>(i), 2) - lo);
    h[b] += host_[i];
    d[b] += device_[i];
  }
  host_.swap(h);
  device_.swap(d);
  lo_ = lo;
  width_ *= 2;
}

void BusyHistogram::cover(int64_t lo, int64_t hi) {
  if (host_.empty()) {
    lo_ = lo;
    host_.assign(static_cast<size_t>(hi - lo + 1), 0);
    device_.assign(host_.size(), 0);
    return;
  }
  if (lo < lo_) {
    host_.insert(host_.begin(), static_cast<size_t>(lo_ - lo), 0);
    device_.insert(device_.begin(), static_cast<size_t>(lo_ - lo), 0);
    lo_ = lo;
  }
  const int64_t last = lo_ + static_cast<int64_t>(host_.size()) - 1;
  if (hi > last) {
    host_.resize(host_.size() + static_cast<size_t>(hi - last), 0);
    device_.resize(host_.size(), 0);
  }
}

void BusyHistogram::add(int64_t s, int64_t e, bool device) {
  if (e <= s) return;
  int64_t b0, b1;
  for (;;) {
    b0 = floor_div(s, width_);
    b1 = floor_div(e - 1, width_);
    const int64_t lo = host_.empty() ? b0 : std::min(lo_, b0);
    const int64_t hi = host_.empty() ? b1 : std::max(lo_ + static_cast<int64_t>(host_.size()) - 1, b1);
    if (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) < static_cast<uint64_t>(kMaxBuckets)) {
      cover(lo, hi);
      break;
    }
    if (host_.empty()) width_ *= 2;
    else widen();
  }
  std::vector<int64_t>& to = device ? device_ : host_;
  for (int64_t b = b0; b <= b1; ++b) {
    const int64_t bs = b * width_;
    const int64_t be = bs > std::numeric_limits<int64_t>::max() - width_ ? std::numeric_limits<int64_t>::max() : bs + width_;
    to[static_cast<size_t>(b - lo_)] += std::min(e, be) - std::max(s, bs);
  }
}

// ---- events ------------------------------------------------------------------------------

ChartCollector::ChartCollector(uint64_t limit, const Symbols& symbols, const std::vector<Track>& tracks)
    : limit_(limit), symbols_(symbols), tracks_(tracks) {
  // Address space only: pages are touched as events come (big blocks are mapped on demand).
  kept_.reserve(static_cast<size_t>(std::min<uint64_t>(limit_ + limit_ / 4 + 1, uint64_t(1) << 23)));
}

void ChartCollector::keep(const TimelineChart::Event& e) {
  ++seen_;
  first_ = std::min(first_, e.start);
  last_ = std::max(last_, e.end);
  if (e.start >= cut_) return;
  kept_.push_back(e);
  if (kept_.size() > limit_ + limit_ / 4) compact();
}

// The limit earliest starts stay, less those tied with the first start left out: what is kept is
// always every event that starts before cut_, so the result does not depend on arrival order.
void ChartCollector::compact() {
  if (kept_.size() <= limit_) return;
  auto nth = kept_.begin() + static_cast<ptrdiff_t>(limit_);
  std::nth_element(kept_.begin(), nth, kept_.end(), by_start);
  cut_ = nth->start;
  kept_.erase(std::partition(kept_.begin(), kept_.end(), [&](const TimelineChart::Event& e) { return e.start < cut_; }),
              kept_.end());
}

void ChartCollector::renumber_host_nodes(const std::vector<std::vector<NodeId>>& final_node) {
  for (TimelineChart::Event& e : kept_)
    if (e.lane < final_node.size() && e.node < final_node[e.lane].size()) e.node = final_node[e.lane][e.node];
}

std::shared_ptr<TimelineChart> ChartCollector::finish(const std::vector<std::string>& ranks, std::vector<RawStep> raw_steps,
                                                      const Selection& sel, const ReadOptions& read) {
  if (seen_ == 0) return nullptr;
  compact();
  auto c = std::make_shared<TimelineChart>();
  TimelineChart& chart = *c;
  chart.ranks = ranks;
  chart.limit = limit_;
  chart.trace_events = seen_;
  chart.trace_start = first_;
  chart.trace_end = last_;
  chart.steps_option = !read.steps.empty();
  chart.window_option = sel.windowed();

  for (const RawStep& s : raw_steps) {
    if (s.track >= tracks_.size() || tracks_[s.track].device || !sel.track_kept(s.track)) continue;
    const uint32_t rank = tracks_[s.track].rank;
    int64_t a = s.start, b = s.end;
    if (!sel.clip(rank, a, b)) continue;
    chart.steps.push_back(TimelineChart::Step{rank, s.number, a, b});
  }
  raw_steps = {};
  std::sort(chart.steps.begin(), chart.steps.end(), [](const TimelineChart::Step& x, const TimelineChart::Step& y) {
    if (x.start != y.start) return x.start < y.start;
    if (x.rank != y.rank) return x.rank < y.rank;
    if (x.number != y.number) return x.number < y.number;
    return x.end < y.end;
  });

  if (cut_ == INT64_MAX) {
    chart.scope = TimelineChart::Scope::kAll;
    chart.window_start = first_;
    chart.window_end = last_;
  } else {
    // Whole steps, in time order from the first, while they end before the first event left out.
    // A step's span covers every rank's range of that number.
    struct Span {
      int64_t number, start, end;
    };
    std::vector<Span> spans;
    {
      std::vector<TimelineChart::Step> by_number = chart.steps;
      std::sort(by_number.begin(), by_number.end(),
                [](const TimelineChart::Step& x, const TimelineChart::Step& y) { return x.number < y.number; });
      for (const TimelineChart::Step& s : by_number) {
        if (spans.empty() || spans.back().number != s.number) spans.push_back(Span{s.number, s.start, s.end});
        spans.back().start = std::min(spans.back().start, s.start);
        spans.back().end = std::max(spans.back().end, s.end);
      }
      std::sort(spans.begin(), spans.end(), [](const Span& x, const Span& y) {
        return x.start != y.start ? x.start < y.start : x.number < y.number;
      });
    }
    size_t fit = 0;
    while (fit < spans.size() && spans[fit].end <= cut_) ++fit;
    if (fit > 0) {
      chart.scope = TimelineChart::Scope::kSteps;
      chart.first_step = spans[0].number;
      chart.last_step = spans[fit - 1].number;
      chart.window_start = spans[0].start;
      chart.window_end = spans[0].end;
      for (size_t k = 0; k < fit; ++k) chart.window_end = std::max(chart.window_end, spans[k].end);
      const int64_t ws = chart.window_start, we = chart.window_end;
      kept_.erase(std::remove_if(kept_.begin(), kept_.end(),
                                 [&](const TimelineChart::Event& e) {
                                   return !(e.start < we && (e.end > ws || e.start >= ws));
                                 }),
                  kept_.end());
    } else {
      chart.scope = TimelineChart::Scope::kWindow;
      chart.window_start = first_;
      chart.window_end = cut_;
    }
  }

  // The last step of a read, when the second core is idle.
  const bool threaded = read.threads_to_use != 1;
  sort_on_two_threads(
      kept_.begin(), kept_.end(),
      [](const TimelineChart::Event& a, const TimelineChart::Event& b) {
        if (a.lane != b.lane) return a.lane < b.lane;
        if (a.start != b.start) return a.start < b.start;
        if (a.end != b.end) return a.end > b.end;
        if (a.node != b.node) return a.node < b.node;  // readers number events differently, not nodes
        return a.event < b.event;
      },
      threaded);

  // Lanes: the tracks with events, in track order.
  std::vector<uint32_t> lane_of(tracks_.size(), kNone);
  for (const TimelineChart::Event& e : kept_) {
    if (lane_of[e.lane] != kNone) continue;
    lane_of[e.lane] = static_cast<uint32_t>(chart.lanes.size());
    const Track& t = tracks_[e.lane];
    TimelineChart::Lane lane;
    lane.device = t.device;
    lane.pid = t.pid;
    lane.tid = t.tid;
    lane.rank = t.rank;
    lane.name = t.name ? std::string(symbols_.strings[t.name])
                       : (t.device ? "stream " : "thread ") + std::to_string(t.tid);
    if (t.process_name) lane.process = symbols_.strings[t.process_name];
    chart.lanes.push_back(std::move(lane));
  }

  // Launch event ids -> their index in the chart: only the launches device events name are
  // looked for among the host events (a few thousand of a hundred thousand).
  constexpr uint32_t kWanted = UINT32_MAX - 1;  // a launch not found among the host events yet
  U64Map index_of(1024);
  for (const TimelineChart::Event& e : kept_)
    if (tracks_[e.lane].device && e.launch != kNone) index_of.set(e.launch, kWanted);
  if (index_of.size() > 0)
    for (uint32_t i = 0; i < kept_.size(); ++i)
      if (!tracks_[kept_[i].lane].device && index_of.find(kept_[i].event) == kWanted) index_of.set(kept_[i].event, i);
  for (TimelineChart::Event& e : kept_) {
    const bool device = tracks_[e.lane].device;
    e.lane = lane_of[e.lane];
    if (!device || e.launch == kNone) {
      e.launch = kNone;
      continue;
    }
    const uint32_t at = index_of.find(e.launch);
    e.launch = at == kWanted ? kNone : at;
  }
  chart.events = std::move(kept_);
  kept_ = {};

  chart.busy_start = busy_.first_bucket_start();
  chart.bucket_ns = busy_.bucket_ns();
  chart.host_busy = busy_.host();
  chart.device_busy = busy_.device();
  return c;
}

void StepFinder::see(uint32_t track, FrameId frame, int64_t start, int64_t end) {
  if (frame >= number_of_frame_.size()) number_of_frame_.resize(size_t(frame) + 1, -2);
  int64_t& n = number_of_frame_[frame];
  if (n == -2) n = step_number(symbols_.name(frame));
  if (n >= 0) steps_.push_back(ChartCollector::RawStep{track, n, start, end});
}

}  // namespace flamefold
