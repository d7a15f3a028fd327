// The flame chart's events (timeline/chart.h): each event's node is its call path and the
// tree's weights add up from the events; device work points at its launch; the busy strip; the
// limit keeps whole steps, or a window of time, whatever order events come in; --steps; and the
// HTML payload's timeline section (src/flamefold/writers/html.cpp) decodes back to the chart.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "flamefold/compress.h"
#include "flamefold/output.h"
#include "flamefold/timeline/build_profile.h"
#include "flamefold/timeline/chart.h"
#include "flamefold/writers/html.h"
#include "html_payload.h"
#include "kineto_test_util.h"
#include "test_support.h"

using namespace flamefold;

namespace {

// A host thread and a stream; `steps` ProfilerStep#N ranges, each with a few ops, a launch per
// op and its kernel on the stream; ops nested two deep, one op sticking out of its parent (cut).
struct Trace {
  Timeline tl;
  uint32_t host, host2, stream;
  explicit Trace() {
    tl.ranks.push_back("rank 0");
    Track h;
    h.pid = 10;
    h.tid = 10;
    h.name = tl.symbols.strings.intern("main");
    h.process_name = tl.symbols.strings.intern("python");
    host = tl.add_track(h);
    h.tid = 11;
    h.name = tl.symbols.strings.intern("worker");
    host2 = tl.add_track(h);
    Track s;
    s.tid = 7;
    s.device = true;
    s.name = tl.symbols.strings.intern("stream 7");
    stream = tl.add_track(s);
  }
  FrameId f(const std::string& name, const char* cat) { return tl.symbols.frame(name, {}, 0, tl.symbols.category(cat)); }
  uint32_t range(const std::string& name, int64_t s, int64_t e, uint32_t track, const char* cat = "cpu_op") {
    return tl.add(track, s, e, f(name, cat), EventKind::HostRange);
  }
};

// Step k (from first_step) spans [k * 1000, k * 1000 + 900); the worker thread has one event
// per step; kernels run after their launch.
Trace stepped_trace(int steps, int first_step = 1) {
  Trace t;
  uint64_t corr = 1;
  for (int k = 0; k < steps; ++k) {
    const int64_t b = 1000 * (k + 1);
    t.range("ProfilerStep#" + std::to_string(first_step + k), b, b + 900, t.host, "user_annotation");
    for (int op = 0; op < 3; ++op) {
      const int64_t ob = b + 10 + op * 250;
      t.range(op == 1 ? "aten::mm" : "aten::add", ob, ob + 200, t.host);
      t.tl.add(t.host, ob + 20, ob + 30, t.f("cudaLaunchKernel", "cuda_runtime"), EventKind::Launch, corr);
      t.tl.add(t.stream, ob + 40, ob + 140, t.f(op == 1 ? "gemm" : "add_kernel", "kernel"), EventKind::Kernel, corr);
      ++corr;
    }
    t.range("load", b + 5, b + 500, t.host2, "python_function");
  }
  // Starts inside the last step's first op and ends after it: nesting cuts the op there.
  const int64_t last = 1000 * steps + 10;
  t.range("sticks_out", last + 150, last + 260, t.host);
  return t;
}

Profile build(Trace t, uint64_t limit, ReadOptions ro = {}) {
  ro.chart_events = limit;
  return build_profile(std::move(t.tl), ro, {});
}

std::string name_of(const Profile& p, NodeId n) { return std::string(p.symbols.name(p.frame[n])); }

// The tree's self weights recomputed from the chart's events as the viewer does for a time range
// (web/viewer/56-timeline.js, rangeWeights): host time per node is the time of its events,
// less its children's; calls count host events; device time and counts go to the op's node.
std::vector<std::vector<double>> weights_from_events(const Profile& p, const TimelineChart& c) {
  const size_t n = p.node_count();
  std::vector<double> direct(n, 0), calls(n, 0), dev(n, 0), kernels(n, 0), cpu(n, 0), children(n, 0);
  std::vector<uint8_t> has(n, 0);
  for (const TimelineChart::Event& e : c.events) {
    const double d = static_cast<double>(e.end - e.start);
    if (c.lanes[e.lane].device) {
      dev[e.node] += d;
      kernels[e.node] += 1;
    } else {
      direct[e.node] += d;
      calls[e.node] += 1;
      has[e.node] = 1;
    }
  }
  for (size_t v = n; v-- > 1;) {
    const double total = has[v] ? direct[v] : children[v];
    cpu[v] = total - children[v];
    children[p.parent[v]] += total;
  }
  return {cpu, calls, dev, kernels};
}

}  // namespace

TEST(TimelineChart, EveryEventSitsOnItsCallPathAndTheWeightsAddUpFromThem) {
  Trace t = stepped_trace(4);
  const Timeline copy_frames = [&] {
    Timeline c;
    c.frame = t.tl.frame;
    c.kind = t.tl.kind;
    c.correlation = t.tl.correlation;
    c.start = t.tl.start;
    return c;
  }();
  Trace same = stepped_trace(4);  // for the event names: Symbols do not copy
  const Symbols& names = same.tl.symbols;
  Profile p = build(std::move(t), 1000000);
  ASSERT_TRUE(p.chart);
  const TimelineChart& c = *p.chart;
  EXPECT_EQ(c.scope, TimelineChart::Scope::kAll);
  EXPECT_EQ(c.trace_events, c.events.size());
  ASSERT_EQ(c.lanes.size(), 3u);
  EXPECT_EQ(c.lanes[0].name, "main");
  EXPECT_EQ(c.lanes[0].process, "python");
  EXPECT_TRUE(c.lanes[2].device);
  ASSERT_EQ(c.steps.size(), 4u);
  EXPECT_EQ(c.steps[2].number, 3);
  EXPECT_EQ(c.steps[2].start, 3000);
  // Every event once, on the node of its own frame, lane by lane by start.
  std::set<uint32_t> ids;
  for (size_t i = 0; i < c.events.size(); ++i) {
    const TimelineChart::Event& e = c.events[i];
    EXPECT_TRUE(ids.insert(e.event).second);
    EXPECT_EQ(name_of(p, e.node), names.name(copy_frames.frame[e.event])) << "event " << e.event;
    if (i) EXPECT_TRUE(std::tie(c.events[i - 1].lane, c.events[i - 1].start) <= std::tie(e.lane, e.start));
    if (c.lanes[e.lane].device) {
      ASSERT_NE(e.launch, kNone);
      const TimelineChart::Event& l = c.events[e.launch];
      EXPECT_EQ(name_of(p, l.node), "cudaLaunchKernel");
      EXPECT_EQ(copy_frames.correlation[l.event], copy_frames.correlation[e.event]);
      EXPECT_EQ(p.parent[e.node], l.node) << "a kernel's node is a child of its launch's";
    } else {
      EXPECT_EQ(e.launch, kNone);
    }
  }
  EXPECT_EQ(ids.size(), copy_frames.frame.size());
  // The op that "sticks_out" cut ends where it starts.
  auto cut = std::find_if(c.events.begin(), c.events.end(), [&](const TimelineChart::Event& e) {
    return name_of(p, e.node) == "aten::add" && e.start == 4010;
  });
  ASSERT_NE(cut, c.events.end());
  EXPECT_EQ(cut->end, 4160);
  // The tree's weights are the events' (what lets the viewer show any time range).
  auto w = weights_from_events(p, c);
  for (const char* col : {"cpu", "calls", "gpu", "kernels"}) {
    SCOPED_TRACE(col);
    const int k = p.column(col);
    ASSERT_GE(k, 0);
    const std::vector<double>& want = p.columns[k].self;
    const std::vector<double>& got = w[std::string(col) == "cpu" ? 0 : std::string(col) == "calls" ? 1 : std::string(col) == "gpu" ? 2 : 3];
    for (NodeId v = 1; v < p.node_count(); ++v) EXPECT_EQ(got[v], want[v]) << kineto_test::path_of(p, v);
  }
}

TEST(TimelineChart, LongEventsKeepTheirEndsAndKernelsTheirLaunchesThroughCompaction) {
  // Durations past 32 bits of ns (a 10 s step, a 5 s kernel) and kernels' launches, with limits
  // that make the collector compact several times.
  auto make = [] {
    Trace t;
    const int64_t s = 1000000000;  // 1 s in ns
    t.range("ProfilerStep#1", 0, 10 * s, t.host, "user_annotation");
    for (uint64_t k = 0; k < 400; ++k) {
      const int64_t b = 1000 + int64_t(k) * 1000;
      t.tl.add(t.host, b, b + 10, t.f("cudaLaunchKernel", "cuda_runtime"), EventKind::Launch, k + 1);
      t.tl.add(t.stream, b + 20, k == 3 ? b + 5 * s : b + 30, t.f(k == 3 ? "long_kernel" : "k", "kernel"), EventKind::Kernel,
               k + 1);
    }
    return t;
  };
  for (uint64_t limit : {uint64_t(1000000), uint64_t(300), uint64_t(41)}) {
    SCOPED_TRACE("limit " + std::to_string(limit));
    Trace t = make();
    const std::vector<uint64_t> correlation = t.tl.correlation;
    Profile p = build(std::move(t), limit);
    ASSERT_TRUE(p.chart);
    const TimelineChart& c = *p.chart;
    EXPECT_EQ(c.trace_events, 801u);
    EXPECT_LE(c.events.size(), std::min<uint64_t>(limit, 801));
    bool saw_step = false, saw_long_kernel = false;
    size_t kernels = 0;
    for (const TimelineChart::Event& e : c.events) {
      if (name_of(p, e.node) == "ProfilerStep#1") {
        saw_step = true;
        EXPECT_EQ(e.start, 0);
        EXPECT_EQ(e.end, int64_t(10) * 1000000000);
      }
      if (!c.lanes[e.lane].device) continue;
      ++kernels;
      if (name_of(p, e.node) == "long_kernel") {
        saw_long_kernel = true;
        EXPECT_EQ(e.end - e.start, int64_t(5) * 1000000000 - 20);
      }
      ASSERT_NE(e.launch, kNone);  // every kernel's launch starts earlier, so it is kept too
      const TimelineChart::Event& l = c.events[e.launch];
      EXPECT_EQ(correlation[l.event], correlation[e.event]);
      EXPECT_EQ(name_of(p, l.node), "cudaLaunchKernel");
    }
    EXPECT_TRUE(saw_step);
    EXPECT_TRUE(saw_long_kernel);
    EXPECT_GT(kernels, 0u);
  }
}

TEST(TimelineChart, BusyStripSumsHostAndDeviceTimeWhateverTheOrder) {
  std::vector<std::tuple<int64_t, int64_t, bool>> intervals;
  std::mt19937_64 rng(3);
  int64_t host = 0, device = 0;
  for (int i = 0; i < 20000; ++i) {
    int64_t s = static_cast<int64_t>(rng() % 50000000) - 1000, e = s + static_cast<int64_t>(rng() % 100000);
    bool dev = rng() % 2;
    intervals.emplace_back(s, e, dev);
    (dev ? device : host) += e - s;
  }
  intervals.emplace_back(-5, 90000000, false);  // one interval across the whole span
  host += 90000005;
  auto fill = [&](const auto& list) {
    BusyHistogram h;
    for (auto [s, e, dev] : list) h.add(s, e, dev);
    return h;
  };
  BusyHistogram a = fill(intervals);
  std::shuffle(intervals.begin(), intervals.end(), rng);
  BusyHistogram b = fill(intervals);
  EXPECT_LE(a.host().size(), size_t(BusyHistogram::kMaxBuckets));
  EXPECT_GT(a.host().size(), size_t(BusyHistogram::kMaxBuckets / 2));
  EXPECT_EQ(a.host(), b.host());
  EXPECT_EQ(a.device(), b.device());
  EXPECT_EQ(a.bucket_ns(), b.bucket_ns());
  EXPECT_EQ(a.first_bucket_start(), b.first_bucket_start());
  int64_t hs = 0, ds = 0;
  for (size_t i = 0; i < a.host().size(); ++i) {
    hs += a.host()[i];
    ds += a.device()[i];
    EXPECT_LE(a.device()[i], a.bucket_ns() * 20000) << "bucket " << i;
  }
  EXPECT_EQ(hs, host);
  EXPECT_EQ(ds, device);
  EXPECT_LE(a.first_bucket_start(), -5);
  EXPECT_GT(a.first_bucket_start() + a.bucket_ns() * int64_t(a.host().size()), 90000000 - 1);
}

TEST(TimelineChart, HostBusyTimeIsTheUnionOfEachThreadsEvents) {
  Trace t = stepped_trace(3);
  Profile p = build(std::move(t), 1000000);
  const TimelineChart& c = *p.chart;
  int64_t host = 0, device = 0;
  for (int64_t v : c.host_busy) host += v;
  for (int64_t v : c.device_busy) device += v;
  // main: three steps of 900 ns and the op sticking out of the last (ends 260 after 3010+150);
  // worker: 495 ns per step.
  EXPECT_EQ(host, 3 * 900 + 3 * 495);
  EXPECT_EQ(device, 3 * 3 * 100);
  EXPECT_EQ(static_cast<double>(host), p.total(p.column("cpu")));
}

TEST(TimelineChart, OverTheLimitTheFirstWholeStepsThatFitAreKept) {
  // Per step: 1 step range + 3 ops + 3 launches + 3 kernels + 1 worker event = 11 events.
  Profile p = build(stepped_trace(6, 5), 30);
  const TimelineChart& c = *p.chart;
  EXPECT_EQ(c.trace_events, 6u * 11 + 1);
  EXPECT_EQ(c.limit, 30u);
  EXPECT_EQ(c.scope, TimelineChart::Scope::kSteps);
  EXPECT_EQ(c.first_step, 5);
  EXPECT_EQ(c.last_step, 6);  // steps 5 and 6 (22 events) fit, 7 would not (33)
  EXPECT_EQ(c.window_start, 1000);
  EXPECT_EQ(c.window_end, 2900);
  EXPECT_EQ(c.events.size(), 22u);
  for (const TimelineChart::Event& e : c.events) {
    EXPECT_GE(e.start, 1000);
    EXPECT_LT(e.start, 2900);
  }
  EXPECT_EQ(c.steps.size(), 6u);  // every step is still marked (the strip covers the trace)
  // The busy strip still covers the whole trace.
  int64_t device = 0;
  for (int64_t v : c.device_busy) device += v;
  EXPECT_EQ(device, 6 * 3 * 100);
}

TEST(TimelineChart, WhenNoStepFitsAWindowOfTimeIsKept) {
  Trace t = stepped_trace(3);
  std::vector<int64_t> starts = t.tl.start;
  Profile p = build(std::move(t), 7);
  const TimelineChart& c = *p.chart;
  EXPECT_EQ(c.scope, TimelineChart::Scope::kWindow);
  std::sort(starts.begin(), starts.end());
  // Everything that starts before the 8th earliest start.
  const int64_t cut = starts[7];
  EXPECT_EQ(c.window_start, starts[0]);
  EXPECT_EQ(c.window_end, cut);
  EXPECT_EQ(c.events.size(), static_cast<size_t>(std::lower_bound(starts.begin(), starts.end(), cut) - starts.begin()));
  EXPECT_LE(c.events.size(), 7u);
  for (const TimelineChart::Event& e : c.events) EXPECT_LT(e.start, cut);
}

TEST(TimelineChart, TheSameEventsInAnyOrderGiveTheSameChart) {
  for (uint64_t limit : {uint64_t(1000), uint64_t(30), uint64_t(9), uint64_t(1)}) {
    SCOPED_TRACE(limit);
    Trace a = stepped_trace(5);
    // The same events, shuffled (the reader's order), with the same frames.
    Trace b = stepped_trace(5);
    std::vector<size_t> order(b.tl.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937(limit));
    Timeline shuffled;
    shuffled.symbols = std::move(b.tl.symbols);
    shuffled.tracks = b.tl.tracks;
    shuffled.ranks = b.tl.ranks;
    for (size_t i : order)
      shuffled.add(b.tl.track[i], b.tl.start[i], b.tl.end[i], b.tl.frame[i], b.tl.kind[i], b.tl.correlation[i]);
    b.tl = std::move(shuffled);
    Profile pa = build(std::move(a), limit), pb = build(std::move(b), limit);
    const TimelineChart &ca = *pa.chart, &cb = *pb.chart;
    EXPECT_EQ(ca.scope, cb.scope);
    EXPECT_EQ(ca.window_start, cb.window_start);
    EXPECT_EQ(ca.window_end, cb.window_end);
    EXPECT_EQ(ca.host_busy, cb.host_busy);
    ASSERT_EQ(ca.events.size(), cb.events.size());
    for (size_t i = 0; i < ca.events.size(); ++i) {
      EXPECT_EQ(ca.events[i].start, cb.events[i].start);
      EXPECT_EQ(ca.events[i].end, cb.events[i].end);
      EXPECT_EQ(ca.events[i].lane, cb.events[i].lane);
      EXPECT_EQ(kineto_test::path_of(pa, ca.events[i].node), kineto_test::path_of(pb, cb.events[i].node));
      EXPECT_EQ(ca.events[i].launch == kNone, cb.events[i].launch == kNone);
    }
  }
}

TEST(TimelineChart, StepsOptionNarrowsTheChartAndIsSaid) {
  ReadOptions ro;
  ro.steps = "2-3";
  Profile p = build(stepped_trace(5), 1000000, ro);
  const TimelineChart& c = *p.chart;
  EXPECT_TRUE(c.steps_option);
  EXPECT_FALSE(c.window_option);
  EXPECT_EQ(c.scope, TimelineChart::Scope::kAll);
  ASSERT_EQ(c.steps.size(), 2u);
  EXPECT_EQ(c.steps[0].number, 2);
  for (const TimelineChart::Event& e : c.events) {
    EXPECT_GE(e.start, 2000);
    EXPECT_LT(e.start, 3900);
  }
}

TEST(TimelineChart, NoChartUnlessAskedFor) {
  Profile p = build(stepped_trace(2), 0);
  EXPECT_FALSE(p.chart);
}

// ---- the HTML payload's section 1 --------------------------------------------------------

namespace {

struct DecodedChart {
  int64_t origin = 0, trace_end = 0, window_start = 0, window_end = 0, first_step = 0, last_step = 0;
  uint64_t trace_events = 0, limit = 0, scope = 0, flags = 0;
  std::vector<std::string> ranks, lane_names;
  std::vector<bool> lane_device;
  std::vector<std::tuple<uint64_t, int64_t, int64_t, int64_t>> steps;  // rank, number, start, end
  int64_t busy_start = 0, bucket_ns = 0;
  std::vector<uint64_t> host, device;
  std::vector<uint32_t> lane;
  std::vector<int64_t> start, end, node, launch;
};

DecodedChart decode_chart(const std::string& s) {
  html_payload::ByteReader r{s};
  DecodedChart d;
  EXPECT_EQ(r.varint(), 1u);
  d.origin = r.zigzag();
  d.trace_end = static_cast<int64_t>(r.varint());
  d.trace_events = r.varint();
  d.limit = r.varint();
  d.scope = r.varint();
  d.first_step = r.zigzag();
  d.last_step = r.zigzag();
  d.window_start = static_cast<int64_t>(r.varint());
  d.window_end = static_cast<int64_t>(r.varint());
  d.flags = r.varint();
  for (uint64_t k = r.varint(); k > 0; --k) d.ranks.push_back(r.text());
  for (uint64_t k = r.varint(); k > 0; --k) {
    d.lane_device.push_back(r.varint() & 1);
    r.zigzag();
    r.zigzag();
    d.lane_names.push_back(r.text());
    r.text();
  }
  int64_t number = 0, start = 0;
  for (uint64_t k = r.varint(); k > 0; --k) {
    uint64_t rank = r.varint();
    number += r.zigzag();
    start += r.zigzag();
    d.steps.emplace_back(rank, number, start, start + static_cast<int64_t>(r.varint()));
  }
  d.busy_start = r.zigzag();
  d.bucket_ns = static_cast<int64_t>(r.varint());
  const uint64_t buckets = r.varint();
  for (uint64_t k = 0; k < buckets; ++k) d.host.push_back(r.varint());
  for (uint64_t k = 0; k < buckets; ++k) d.device.push_back(r.varint());
  const uint64_t n = r.varint();
  for (uint32_t l = 0; l < d.lane_names.size(); ++l)
    for (uint64_t k = r.varint(); k > 0; --k) d.lane.push_back(l);
  EXPECT_EQ(d.lane.size(), n);
  int64_t previous = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (i == 0 || d.lane[i] != d.lane[i - 1]) previous = 0;
    previous += static_cast<int64_t>(r.varint());
    d.start.push_back(previous);
  }
  for (uint64_t i = 0; i < n; ++i) d.end.push_back(d.start[i] + static_cast<int64_t>(r.varint()));
  int64_t node = 0;
  for (uint64_t i = 0; i < n; ++i) d.node.push_back(node += r.zigzag());
  int64_t launch = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t v = r.varint();
    if (v == 0) {
      d.launch.push_back(-1);
      continue;
    }
    v -= 1;
    launch += static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
    d.launch.push_back(launch);
  }
  EXPECT_EQ(r.p, s.size());
  return d;
}

std::string html_of(const Profile& p, const std::string& name) {
  std::string path = test::tmp_path(name);
  OutputFile out(path);
  write_html(p, out, {});
  out.commit();
  return test::read_file(path);
}

}  // namespace

TEST(TimelineChartPayload, SectionDecodesBackToTheChart) {
  Profile p = build(stepped_trace(6, 5), 30);
  const TimelineChart& c = *p.chart;
  html_payload::Decoded d = html_payload::decode(html_payload::payload_of(html_of(p, "chart.html")), p.columns.size());
  ASSERT_EQ(d.sections.count(1), 1u);
  DecodedChart got = decode_chart(d.sections.at(1));
  EXPECT_EQ(got.origin, c.trace_start);
  EXPECT_EQ(got.origin + got.trace_end, c.trace_end);
  EXPECT_EQ(got.trace_events, c.trace_events);
  EXPECT_EQ(got.limit, 30u);
  EXPECT_EQ(got.scope, 1u);
  EXPECT_EQ(got.first_step, 5);
  EXPECT_EQ(got.last_step, 6);
  EXPECT_EQ(got.origin + got.window_start, 1000);
  EXPECT_EQ(got.origin + got.window_end, 2900);
  EXPECT_EQ(got.ranks, c.ranks);
  EXPECT_EQ(got.lane_names, (std::vector<std::string>{"main", "worker", "stream 7"}));
  ASSERT_EQ(got.steps.size(), 6u);
  EXPECT_EQ(std::get<1>(got.steps[3]), 8);
  EXPECT_EQ(got.origin + std::get<2>(got.steps[3]), 4000);
  EXPECT_EQ(std::get<3>(got.steps[3]) - std::get<2>(got.steps[3]), 900);
  uint64_t busy = 0;
  for (uint64_t v : got.device) busy += v;
  EXPECT_EQ(busy, 6u * 3 * 100);
  EXPECT_EQ(got.origin + got.busy_start, c.busy_start);
  // Events: times, lanes, launches; nodes are depth-first indices: their frames name the event.
  ASSERT_EQ(got.start.size(), c.events.size());
  for (size_t i = 0; i < c.events.size(); ++i) {
    const TimelineChart::Event& e = c.events[i];
    EXPECT_EQ(got.origin + got.start[i], e.start);
    EXPECT_EQ(got.origin + got.end[i], e.end);
    EXPECT_EQ(got.lane[i], e.lane);
    EXPECT_EQ(got.launch[i], e.launch == kNone ? -1 : int64_t(e.launch));
    ASSERT_LT(static_cast<size_t>(got.node[i]), d.frame.size());
    EXPECT_EQ(d.frame_name[d.frame[got.node[i]]], name_of(p, e.node));
  }
}

// A big chart section (varint deltas: level 6 gains ~3 % on it at 5x the time) is compressed at
// level 1 in gzip members of its own; the parts before it keep level 6.
TEST(TimelineChartPayload, ABigChartIsCompressedFastInMembersOfItsOwn) {
  Profile p = build(stepped_trace(4000), 1000000);
  const std::string html = html_of(p, "big_chart.html");
  const std::string payload = html_payload::payload_of(html);
  html_payload::Decoded d = html_payload::decode(payload, p.columns.size());
  ASSERT_EQ(d.sections.count(1), 1u);
  const std::string& section = d.sections.at(1);
  ASSERT_GE(section.size(), size_t(64) << 10) << "the chart section must be big enough for members of its own";
  const size_t at = payload.find(section);  // the section's bytes follow its tag and length
  ASSERT_NE(at, std::string::npos);
  // The members, each inflated, and where each starts in the payload.
  std::vector<std::string> packed, plain;
  std::vector<size_t> start;
  std::string_view data = html_payload::data_of(html);
  for (size_t from = 0, offset = 0; from <= data.size();) {
    const size_t dot = std::min(data.find('.', from), data.size());
    packed.push_back(html_payload::base64_decode(data.substr(from, dot - from)));
    plain.push_back(html_payload::gunzip(packed.back()));
    start.push_back(offset);
    offset += plain.back().size();
    from = dot + 1;
  }
  ASSERT_GE(packed.size(), 2u);
  EXPECT_EQ(packed[0], gzip_compress(plain[0], 6, "test")) << "what comes before the chart: level 6";
  bool chart_members = false;
  for (size_t i = 0; i < packed.size(); ++i) {
    if (start[i] < at - 16 || start[i] >= at + section.size()) continue;  // 16: room for the tag and length
    chart_members = true;
    EXPECT_EQ(packed[i], gzip_compress(plain[i], 1, "test")) << "member " << i << " of the chart section";
  }
  EXPECT_TRUE(chart_members) << "a member starts at the chart section";
}

TEST(TimelineChartPayload, ProfilesWithoutAChartHaveNoSection) {
  Profile p = build(stepped_trace(2), 0);
  html_payload::Decoded d = html_payload::decode(html_payload::payload_of(html_of(p, "nochart.html")), p.columns.size());
  EXPECT_EQ(d.sections.count(1), 0u);  // kTimeline; the kernels table (3) may be there
}

TEST(TimelineChartPayload, TheCommandLineAsksOnlyForHtmlAndTakesTheLimit) {
  // A small Kineto trace: 4 steps of an op, its launch and its kernel.
  std::string ev;
  for (int k = 0; k < 4; ++k) {
    const int b = 1000 + 1000 * k;
    auto x = [&](const std::string& cat, const std::string& name, int pid, int tid, int ts, int dur, const std::string& args) {
      ev += std::string(ev.empty() ? "" : ",") + "{\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":\"" + name + "\",\"pid\":" +
            std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + std::to_string(ts) + ",\"dur\":" +
            std::to_string(dur) + ",\"args\":{" + args + "}}";
    };
    x("user_annotation", "ProfilerStep#" + std::to_string(k), 1, 1, b, 900, "");
    x("cpu_op", "aten::mm", 1, 1, b + 10, 200, "");
    x("cuda_runtime", "cudaLaunchKernel", 1, 1, b + 20, 5, "\"correlation\":" + std::to_string(k + 1));
    x("kernel", "gemm", 0, 7, b + 100, 300, "\"device\":0,\"stream\":7,\"correlation\":" + std::to_string(k + 1));
  }
  std::string trace = test::write_file("trace.json", "{\"traceEvents\":[" + ev + "]}");
  auto section_of = [&](const std::string& extra) {
    std::string out = test::tmp_path("t.html");
    test::RunResult r = test::run(test::binary() + " flamegraph " + trace + " -o " + out + extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    html_payload::Decoded d = html_payload::decode(html_payload::payload_of(test::read_file(out)), 4);
    return d.sections.count(1) ? d.sections.at(1) : std::string();
  };
  DecodedChart all = decode_chart(section_of(""));
  EXPECT_EQ(all.start.size(), 16u);
  EXPECT_EQ(all.limit, 1000000u);
  EXPECT_EQ(all.scope, 0u);
  DecodedChart two = decode_chart(section_of(" --timeline-events 9"));
  EXPECT_EQ(two.limit, 9u);
  EXPECT_EQ(two.scope, 1u);
  EXPECT_EQ(two.first_step, 0);
  EXPECT_EQ(two.last_step, 1);
  EXPECT_EQ(two.start.size(), 8u);
  EXPECT_EQ(section_of(" --timeline-events 0"), "");
  DecodedChart chosen = decode_chart(section_of(" --steps 2"));
  EXPECT_EQ(chosen.flags, 1u);
  EXPECT_EQ(chosen.start.size(), 4u);
  EXPECT_EQ(chosen.origin, 3000000);
}
