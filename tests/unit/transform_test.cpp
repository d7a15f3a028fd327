// Profile transforms: copy_symbols keeps ids; reversed() merges stacks from the leaf.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "flamefold/frame_label.h"
#include "flamefold/transform.h"

using namespace flamefold;

namespace {

// "a;b;c" -> weight in column 0, optionally under a thread group frame.
void add(Profile& p, const std::string& stack, double w, int column = 0) {
  std::vector<FrameId> frames;
  size_t pos = 0;
  CategoryId thread = p.symbols.category(category::kThread);
  while (pos <= stack.size()) {
    size_t semi = stack.find(';', pos);
    if (semi == std::string::npos) semi = stack.size();
    std::string_view name = std::string_view(stack).substr(pos, semi - pos);
    bool group = name.rfind("thread:", 0) == 0;
    frames.push_back(group ? p.symbols.frame(name.substr(7), {}, 0, thread) : p.symbols.frame(name));
    pos = semi + 1;
  }
  p.add(p.path(0, frames), column, w);
}

// Every weighted path as "a;b;c=w" (column c), in node order.
std::vector<std::string> paths(const Profile& p, int c = 0) {
  std::vector<std::string> out;
  for (NodeId n = 1; n < p.node_count(); ++n) {
    if (p.columns[c].self[n] == 0) continue;
    std::string s;
    for (NodeId m = n; m != 0; m = p.parent[m]) s = frame_label(p.symbols, p.frame[m]) + (s.empty() ? "" : ";") + s;
    out.push_back(s + "=" + std::to_string(static_cast<int>(p.columns[c].self[n])));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(Transform, CopySymbolsKeepsFrameAndCategoryIds) {
  Profile p;
  CategoryId k = p.symbols.category("kernel");
  FrameId a = p.symbols.frame("a");
  FrameId b = p.symbols.frame("b", "b.py", 12);
  FrameId c = p.symbols.frame("c", {}, 0, k);
  FrameId a2 = p.symbols.frame("a", {}, 0, k);  // same name, other category: another frame
  Symbols copy;
  copy_symbols(p.symbols, copy);
  ASSERT_EQ(copy.frame_count(), p.symbols.frame_count());
  for (FrameId f : {a, b, c, a2}) {
    EXPECT_EQ(copy.name(f), p.symbols.name(f));
    EXPECT_EQ(copy.file(f), p.symbols.file(f));
    EXPECT_EQ(copy[f].line, p.symbols[f].line);
    EXPECT_EQ(copy.category_name(copy[f].category), p.symbols.category_name(p.symbols[f].category));
  }
  EXPECT_EQ(copy[a2].category, k);
}

TEST(Transform, ReversedMergesStacksFromTheLeaf) {
  Profile p;
  p.add_column("samples", "samples");
  add(p, "main;parse;alloc", 2);
  add(p, "main;eval;alloc", 3);
  add(p, "main;eval", 1);
  add(p, "main", 4);
  Profile r = reversed(p);
  EXPECT_EQ(paths(r), (std::vector<std::string>{"alloc;eval;main=3", "alloc;parse;main=2", "eval;main=1", "main=4"}));
  EXPECT_EQ(r.total(0), p.total(0));
  // alloc's samples, scattered under two parents before, are one frame now.
  std::vector<double> t = r.totals(0);
  NodeId alloc = r.find_child(0, r.symbols.frame("alloc"));
  ASSERT_NE(alloc, kNone);
  EXPECT_EQ(t[alloc], 5);
  // Reversing twice gives the original paths back.
  EXPECT_EQ(paths(reversed(r)), paths(p));
}

TEST(Transform, ReversedKeepsGroupFramesOnTopAndEveryColumn) {
  Profile p;
  p.add_column("samples", "samples");
  int gpu = p.add_column("gpu", "ns");
  p.default_column = gpu;
  p.source_format = "test";
  p.count("odd lines", 3);
  add(p, "thread:worker;run;step;kernel", 5);
  add(p, "thread:worker;run;step;kernel", 700, gpu);
  add(p, "thread:main;run", 1);
  add(p, "thread:main", 2);  // weight on the group frame itself
  p.add(0, 0, 6);            // and on the root
  Profile r = reversed(p);
  EXPECT_EQ(paths(r, 0), (std::vector<std::string>{"main;run=1", "main=2", "worker;kernel;step;run=5"}));
  EXPECT_EQ(paths(r, gpu), (std::vector<std::string>{"worker;kernel;step;run=700"}));
  EXPECT_EQ(r.columns[0].self[0], 6);
  EXPECT_EQ(r.columns[gpu].unit, "ns");
  EXPECT_EQ(r.default_column, gpu);
  EXPECT_EQ(r.source_format, "test");
  ASSERT_EQ(r.counters.size(), 1u);
  EXPECT_EQ(r.counters[0].count, 3u);
  NodeId worker = r.first_child[0];
  while (worker != kNone && r.symbols.name(r.frame[worker]) != "worker") worker = r.next_sibling[worker];
  ASSERT_NE(worker, kNone);
  EXPECT_TRUE(r.symbols.is_group(r.frame[worker]));
}
