// Profile::append_new_child (no lookup) next to child() (sibling scan, an index for wide parents) and the
// stack table's adaptive sort (first-seen order, then merging ascending runs).
#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "flamefold/input.h"
#include "flamefold/options.h"
#include "flamefold/profile.h"
#include "flamefold/readers/text/folded.h"

using namespace flamefold;

TEST(ProfileAppend, ChildrenAppendedUnderAWideParentAreIndexed) {
  Profile p;
  p.add_column("samples", "samples");
  std::vector<NodeId> made;
  for (int i = 0; i < 12; ++i) made.push_back(p.child(0, p.symbols.frame("f" + std::to_string(i))));  // root turns wide
  NodeId late = p.append_new_child(0, p.symbols.frame("late"));
  EXPECT_EQ(p.child(0, p.symbols.frame("late")), late);
  EXPECT_EQ(p.find_child(0, p.symbols.frame("late")), late);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(p.child(0, p.symbols.frame("f" + std::to_string(i))), made[i]);
  EXPECT_EQ(p.node_count(), 14u);
}

TEST(ProfileAppend, AppendedChildrenAreFoundAndNotDuplicated) {
  Profile p;
  p.add_column("samples", "samples");
  FrameId a = p.symbols.frame("a"), b = p.symbols.frame("b"), c = p.symbols.frame("c");
  NodeId na = p.append_new_child(0, a);
  NodeId nb = p.append_new_child(na, b);
  EXPECT_EQ(p.node_count(), 3u);
  EXPECT_EQ(p.columns[0].self.size(), 3u);
  EXPECT_EQ(p.first_child[0], na);
  EXPECT_EQ(p.parent[nb], na);
  // Lookups see the appended nodes; child() of an existing pair creates nothing.
  EXPECT_EQ(p.find_child(0, a), na);
  EXPECT_EQ(p.find_child(na, b), nb);
  EXPECT_EQ(p.find_child(na, c), kNone);
  EXPECT_EQ(p.child(na, b), nb);
  EXPECT_EQ(p.node_count(), 3u);
  // Appending after lookups, then child(): the index catches up again.
  NodeId nc = p.append_new_child(na, c);
  EXPECT_EQ(p.next_sibling[nc], nb);  // newest first, as child() links them
  EXPECT_EQ(p.child(na, c), nc);
  EXPECT_EQ(p.node_count(), 4u);
  // Appended-but-unindexed nodes survive a move.
  NodeId d = p.append_new_child(nc, a);
  Profile moved = std::move(p);
  EXPECT_EQ(moved.find_child(nc, a), d);
  EXPECT_EQ(moved.child(nc, a), d);
  EXPECT_EQ(moved.node_count(), 5u);
}

namespace {
std::string read_and_describe(const std::string& text) {
  Input in = Input::from_memory("t.folded", text);
  Profile p = read_folded(in, ReadOptions{});
  std::string out;
  for (NodeId n = 1; n < p.node_count(); ++n)
    out += std::to_string(p.parent[n]) + ":" + std::string(p.symbols.name(p.frame[n])) + "=" +
           std::to_string(p.columns[0].self[n]) + "\n";
  return out;
}
}  // namespace

// Byte order ("f::g;" < "f;") is not frame-name order ("f" < "f::g"), so a sorted folded file
// has several ascending runs: the tree must be the same as for any other order of the lines.
TEST(ProfileAppend, TreeDoesNotDependOnLineOrder) {
  std::vector<std::string> lines;
  const char* names[] = {"f", "f::g", "f.h", "f g", "f_x", "a", "z"};
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    std::string l;
    int depth = 1 + static_cast<int>(rng() % 5);
    for (int d = 0; d < depth; ++d) l += std::string(d ? ";" : "") + names[rng() % 7];
    lines.push_back(l + " " + std::to_string(1 + rng() % 9));
  }
  auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& l : v) s += l + "\n";
    return s;
  };
  std::vector<std::string> sorted = lines;
  std::sort(sorted.begin(), sorted.end());
  std::string expected = read_and_describe(joined(sorted));
  EXPECT_FALSE(expected.empty());
  for (int round = 0; round < 3; ++round) {
    std::shuffle(lines.begin(), lines.end(), rng);
    EXPECT_EQ(read_and_describe(joined(lines)), expected);
  }
  std::reverse(sorted.begin(), sorted.end());
  EXPECT_EQ(read_and_describe(joined(sorted)), expected);
}
