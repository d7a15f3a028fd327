// Two profiles are the same: the same tree node for node (ids included), the same frames in the
// same order, the same weights, facts, counters, device-op statistics and flame chart. Writers
// read nothing else, so every output of the two is then byte-identical.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "flamefold/options.h"
#include "flamefold/profile.h"
#include "flamefold/timeline/chart.h"

namespace test {

inline void expect_same_chart(const flamefold::Profile& got, const flamefold::Profile& want) {
  ASSERT_EQ(got.chart != nullptr, want.chart != nullptr);
  if (!got.chart) return;
  const flamefold::TimelineChart &a = *got.chart, &b = *want.chart;
  EXPECT_EQ(a.ranks, b.ranks);
  ASSERT_EQ(a.lanes.size(), b.lanes.size());
  for (size_t i = 0; i < a.lanes.size(); ++i) {
    EXPECT_EQ(a.lanes[i].name, b.lanes[i].name);
    EXPECT_EQ(a.lanes[i].process, b.lanes[i].process);
    EXPECT_EQ(a.lanes[i].device, b.lanes[i].device);
    EXPECT_EQ(a.lanes[i].rank, b.lanes[i].rank);
  }
  EXPECT_EQ(a.trace_start, b.trace_start);
  EXPECT_EQ(a.trace_end, b.trace_end);
  EXPECT_EQ(a.trace_events, b.trace_events);
  EXPECT_EQ(a.scope, b.scope);
  EXPECT_EQ(a.window_start, b.window_start);
  EXPECT_EQ(a.window_end, b.window_end);
  EXPECT_EQ(a.first_step, b.first_step);
  EXPECT_EQ(a.last_step, b.last_step);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    EXPECT_EQ(a.steps[i].number, b.steps[i].number);
    EXPECT_EQ(a.steps[i].start, b.steps[i].start);
    EXPECT_EQ(a.steps[i].end, b.steps[i].end);
  }
  EXPECT_EQ(a.busy_start, b.busy_start);
  EXPECT_EQ(a.bucket_ns, b.bucket_ns);
  EXPECT_EQ(a.host_busy, b.host_busy);
  EXPECT_EQ(a.device_busy, b.device_busy);
  ASSERT_EQ(a.events.size(), b.events.size());
  for (size_t i = 0; i < a.events.size(); ++i) {
    const flamefold::TimelineChart::Event &x = a.events[i], &y = b.events[i];
    // (Event ids are the reader's own numbering: the streaming readers number some rows differently.)
    ASSERT_TRUE(x.start == y.start && x.end == y.end && x.node == y.node && x.lane == y.lane && x.launch == y.launch)
        << "chart event " << i << ": " << x.start << "-" << x.end << " node " << x.node << " lane " << x.lane << " launch "
        << x.launch << " vs " << y.start << "-" << y.end << " node " << y.node << " lane " << y.lane << " launch " << y.launch;
  }
}

inline void expect_same_profile(const flamefold::Profile& got, const flamefold::Profile& want) {
  using flamefold::FrameId;
  EXPECT_EQ(got.source_format, want.source_format);
  EXPECT_EQ(got.inputs, want.inputs);
  EXPECT_EQ(got.facts, want.facts);
  ASSERT_EQ(got.counters.size(), want.counters.size());
  for (size_t i = 0; i < got.counters.size(); ++i) {
    EXPECT_EQ(got.counters[i].what, want.counters[i].what);
    EXPECT_EQ(got.counters[i].count, want.counters[i].count) << got.counters[i].what;
  }
  ASSERT_EQ(got.symbols.frame_count(), want.symbols.frame_count());
  for (FrameId f = 0; f < got.symbols.frame_count(); ++f) {
    ASSERT_EQ(got.symbols.name(f), want.symbols.name(f)) << "frame " << f;
    EXPECT_EQ(got.symbols.file(f), want.symbols.file(f)) << "frame " << f;
    EXPECT_EQ(got.symbols[f].line, want.symbols[f].line) << "frame " << f;
    EXPECT_EQ(got.symbols.category_name(got.symbols[f].category), want.symbols.category_name(want.symbols[f].category));
  }
  ASSERT_EQ(got.node_count(), want.node_count());
  EXPECT_EQ(got.parent, want.parent);
  EXPECT_EQ(got.frame, want.frame);
  EXPECT_EQ(got.default_column, want.default_column);
  ASSERT_EQ(got.columns.size(), want.columns.size());
  for (size_t c = 0; c < got.columns.size(); ++c) {
    EXPECT_EQ(got.columns[c].name, want.columns[c].name);
    EXPECT_EQ(got.columns[c].unit, want.columns[c].unit);
    EXPECT_EQ(got.columns[c].self, want.columns[c].self) << "column " << got.columns[c].name;
  }
  ASSERT_EQ(got.device_ops.size(), want.device_ops.size());
  for (size_t i = 0; i < got.device_ops.size(); ++i) {
    EXPECT_EQ(got.device_ops[i].frame, want.device_ops[i].frame);
    EXPECT_EQ(got.device_ops[i].count, want.device_ops[i].count);
    EXPECT_EQ(got.device_ops[i].total_ns, want.device_ops[i].total_ns);
    EXPECT_EQ(got.device_ops[i].min_ns, want.device_ops[i].min_ns);
    EXPECT_EQ(got.device_ops[i].max_ns, want.device_ops[i].max_ns);
  }
  expect_same_chart(got, want);
}

// Named read options, for running one check under each.
struct OptionCase {
  std::string what;
  flamefold::ReadOptions o;
};
struct OptionCases {
  std::vector<OptionCase> all;
  template <class Set>
  void add(std::string what, Set set) {
    OptionCase c{std::move(what), flamefold::ReadOptions{}};
    set(c.o);
    all.push_back(std::move(c));
  }
};

// Both readings of `path` end the same way: the same error message, or the same profile.
template <class Reference, class Streaming>
void expect_same_outcome(const std::string& path, const flamefold::ReadOptions& o, Reference reference, Streaming streaming) {
  flamefold::Profile want, got;
  std::string want_error, got_error;
  try {
    want = reference(path, o);
  } catch (const std::exception& e) {
    want_error = e.what();
  }
  try {
    got = streaming(path, o);
  } catch (const std::exception& e) {
    got_error = e.what();
  }
  EXPECT_EQ(got_error, want_error);
  if (want_error.empty() && got_error.empty()) expect_same_profile(got, want);
}

}  // namespace test
