// Helpers for the Kineto / nest / correlate tests: a Profile's column as "a;b;c" -> self weight.
#pragma once
#include <map>
#include <string>

#include "flamefold/profile.h"

namespace kineto_test {

inline std::string path_of(const flamefold::Profile& p, flamefold::NodeId n) {
  std::string out;
  while (n != 0) {
    std::string name(p.symbols.name(p.frame[n]));
    out = out.empty() ? name : name + ";" + out;
    n = p.parent[n];
  }
  return out;
}

// Every node with a non-zero self weight in `column`.
inline std::map<std::string, double> folded(const flamefold::Profile& p, const std::string& column) {
  std::map<std::string, double> out;
  int c = p.column(column);
  if (c < 0) return out;
  for (flamefold::NodeId n = 1; n < p.node_count(); ++n)
    if (p.columns[c].self[n] != 0) out[path_of(p, n)] += p.columns[c].self[n];
  return out;
}

inline std::string fact(const flamefold::Profile& p, const std::string& key) {
  for (const auto& [k, v] : p.facts)
    if (k == key) return v;
  return "";
}

inline uint64_t counter(const flamefold::Profile& p, const std::string& substring) {
  uint64_t n = 0;
  for (const auto& c : p.counters)
    if (c.what.find(substring) != std::string::npos) n += c.count;
  return n;
}

}  // namespace kineto_test
