// reversed() (flamegraph.pl --reverse) builds the flipped tree from sorted keys instead of one
// child lookup per frame. Checked against the lookup-per-frame construction it replaced: the
// same paths with the same weights in every column, siblings never repeated. (Its speed is a benchmark: bench/misc.sh, bench/RESULTS.md.)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "flamefold/transform.h"
#include "test_support.h"

using namespace flamefold;

namespace {

// The previous construction: every weighted path inserted with Profile::child().
Profile reversed_by_lookups(const Profile& p) {
  Profile out;
  copy_symbols(p.symbols, out.symbols);
  for (const WeightColumn& c : p.columns) out.add_column(c.name, c.unit);
  for (size_t c = 0; c < p.columns.size(); ++c) out.add(0, static_cast<int>(c), p.columns[c].self[0]);
  std::vector<FrameId> path;
  for (NodeId n = 1; n < p.node_count(); ++n) {
    bool weighted = false;
    for (const WeightColumn& c : p.columns) weighted = weighted || c.self[n] != 0;
    if (!weighted) continue;
    path.clear();
    for (NodeId m = n; m != 0; m = p.parent[m]) path.push_back(p.frame[m]);
    size_t groups = 0;
    while (groups < path.size() && p.symbols.is_group(path[path.size() - 1 - groups])) ++groups;
    NodeId at = 0;
    for (size_t i = 0; i < groups; ++i) at = out.child(at, path[path.size() - 1 - i]);
    for (size_t i = 0; i + groups < path.size(); ++i) at = out.child(at, path[i]);
    for (size_t c = 0; c < p.columns.size(); ++c) out.add(at, static_cast<int>(c), p.columns[c].self[n]);
  }
  return out;
}

// Every node as "frame ids root first" -> weights of all columns.
std::map<std::vector<FrameId>, std::vector<double>> by_path(const Profile& p) {
  std::map<std::vector<FrameId>, std::vector<double>> out;
  for (NodeId n = 0; n < p.node_count(); ++n) {
    std::vector<FrameId> key;
    for (NodeId m = n; m != 0; m = p.parent[m]) key.push_back(p.frame[m]);
    std::reverse(key.begin(), key.end());
    std::vector<double>& w = out[key];
    EXPECT_TRUE(w.empty()) << "two nodes for one path";
    for (const WeightColumn& c : p.columns) w.push_back(c.self[n]);
  }
  return out;
}

// A random call tree under a few thread frames, weights in two columns (one fractional).
Profile random_profile(size_t nodes, uint32_t seed) {
  std::mt19937 rng(seed);
  Profile p;
  p.add_column("samples", "samples");
  p.add_column("gpu", "ns");
  CategoryId thread = p.symbols.category(category::kThread);
  std::vector<FrameId> frames;
  for (int i = 0; i < 300; ++i) frames.push_back(p.symbols.frame("f" + std::to_string(i)));
  std::vector<NodeId> tops;
  for (int t = 0; t < 4; ++t) tops.push_back(p.child(0, p.symbols.frame("t" + std::to_string(t), {}, 0, thread)));
  while (p.node_count() < nodes) {
    NodeId at = tops[rng() % tops.size()];
    size_t depth = 1 + rng() % 24;
    for (size_t d = 0; d < depth; ++d) at = p.child(at, frames[std::min<size_t>(rng() % 300, rng() % 300)]);
    p.add(at, 0, 1 + rng() % 5);
    if (rng() % 3 == 0) p.add(at, 1, 0.25 * (rng() % 9));
  }
  p.add(tops[0], 0, 2);  // weight on a group frame
  return p;
}

template <class F>
double best_seconds(F f) {
  double best = 1e9;
  for (int i = 0; i < 3; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

TEST(MiscReverse, SameTreeAsOneLookupPerFrame) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    Profile p = random_profile(20000, seed);
    Profile fast = reversed(p), reference = reversed_by_lookups(p);
    EXPECT_EQ(fast.node_count(), reference.node_count());
    EXPECT_EQ(by_path(fast), by_path(reference));
    // Siblings are never repeated (each (parent, frame) once), so find_child agrees with the walk.
    for (NodeId n = 1; n < fast.node_count(); ++n) ASSERT_EQ(fast.find_child(fast.parent[n], fast.frame[n]), n);
    EXPECT_EQ(fast.total(1), p.total(1));
  }
}
