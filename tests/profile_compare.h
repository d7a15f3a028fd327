// Two profiles are the same: the same tree node for node (ids included), the same frames in the
// same order, the same weights, facts, counters and device-op statistics. Writers read nothing
// else, so every output of the two is then byte-identical.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "flamefold/options.h"
#include "flamefold/profile.h"

namespace test {

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
