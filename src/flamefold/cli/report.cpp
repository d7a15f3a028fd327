#include <cstdio>
#include <set>

#include "cli/commands.h"
#include "flamefold/writers/folded.h"

using namespace flamefold;

void report_counters(const Profile& p) {
  for (const Counter& c : p.counters)
    std::fprintf(stderr, "flamefold: warning: %s: %llu\n", c.what.c_str(), static_cast<unsigned long long>(c.count));
}

void print_info(const Profile& p) {
  std::printf("format: %s\n", p.source_format.c_str());
  for (const std::string& in : p.inputs) std::printf("input: %s\n", in.c_str());
  for (const auto& [k, v] : p.facts) std::printf("%s: %s\n", k.c_str(), v.c_str());
  for (size_t c = 0; c < p.columns.size(); ++c) {
    std::string w;
    append_weight(w, p.total(static_cast<int>(c)));
    std::printf("weight %s%s: %s %s\n", p.columns[c].name.c_str(), static_cast<int>(c) == p.default_column ? " (default)" : "",
                w.c_str(), p.columns[c].unit.c_str());
  }
  size_t leaves = 0, max_depth = 0;
  std::vector<uint32_t> depth(p.node_count(), 0);
  for (NodeId n = 1; n < p.node_count(); ++n) {
    depth[n] = depth[p.parent[n]] + 1;
    if (depth[n] > max_depth) max_depth = depth[n];
    if (p.first_child[n] == kNone) ++leaves;
  }
  std::set<FrameId> groups;
  for (NodeId n = 1; n < p.node_count(); ++n)
    if (p.symbols.is_group(p.frame[n])) groups.insert(p.frame[n]);
  std::printf("call paths: %zu\nunique stacks (leaves): %zu\nmax depth: %zu\nframes: %zu\n", p.node_count() - 1, leaves,
              max_depth, p.symbols.frame_count());
  if (!groups.empty()) {
    std::printf("threads/processes/ranks: %zu\n", groups.size());
    size_t shown = 0;
    for (FrameId f : groups) {
      if (++shown > 20) {
        std::printf("  ...\n");
        break;
      }
      // The category word once: "process 2750", not "process process 2750".
      std::string_view category = p.symbols.category_name(p.symbols[f].category), name = p.symbols.name(f);
      if (name.substr(0, category.size()) == category) std::printf("  %.*s\n", static_cast<int>(name.size()), name.data());
      else std::printf("  %.*s %.*s\n", static_cast<int>(category.size()), category.data(), static_cast<int>(name.size()), name.data());
    }
  }
  for (const Counter& c : p.counters)
    std::printf("warning: %s: %llu\n", c.what.c_str(), static_cast<unsigned long long>(c.count));
}
