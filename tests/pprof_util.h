// Helpers for the pprof and merge tests: profiles built with libprotobuf's generated classes,
// reading bytes through the reader, a profile's weights per path, and `go tool pprof -raw`.
#pragma once
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "flamefold/input.h"
#include "flamefold/merge.h"
#include "flamefold/profile.h"
#include "flamefold/readers/proto/pprof.h"
#include "profile.pb.h"
#include "test_support.h"

namespace pprof_test {

namespace pb = perftools::profiles;

// A string table that interns as it goes (index 0 = "").
struct Strings {
  pb::Profile& p;
  std::map<std::string, int64_t> index;
  explicit Strings(pb::Profile& profile) : p(profile) {
    if (p.string_table_size() == 0) p.add_string_table("");
  }
  int64_t operator()(const std::string& s) {
    if (s.empty()) return 0;
    auto [it, fresh] = index.try_emplace(s, p.string_table_size());
    if (fresh) p.add_string_table(s);
    return it->second;
  }
};

inline flamefold::Profile read_bytes(const std::string& bytes, const std::string& name = "mem.pb") {
  flamefold::Input in = flamefold::Input::from_memory(name, bytes);
  return flamefold::read_pprof(in, flamefold::ReadOptions{});
}

// "a;b;c" (frame names from the root) -> self weight of `column`, for every node that has one.
inline std::map<std::string, double> weights(const flamefold::Profile& p, const std::string& column) {
  std::map<std::string, double> out;
  int c = p.column(column);
  if (c < 0) return out;
  for (flamefold::NodeId n = 0; n < p.node_count(); ++n) {
    if (p.columns[c].self[n] == 0) continue;
    std::string path;
    for (flamefold::NodeId m = n; m != 0; m = p.parent[m]) {
      std::string name(p.symbols.name(p.frame[m]));
      path = path.empty() ? name : name + ";" + path;
    }
    out[path] += p.columns[c].self[n];
  }
  return out;
}

// Every frame of the tree with its file, line and category, as "name|file|line|category" per path.
inline std::map<std::string, double> described(const flamefold::Profile& p, const std::string& column) {
  std::map<std::string, double> out;
  int c = p.column(column);
  if (c < 0) return out;
  for (flamefold::NodeId n = 0; n < p.node_count(); ++n) {
    if (p.columns[c].self[n] == 0) continue;
    std::string path;
    for (flamefold::NodeId m = n; m != 0; m = p.parent[m]) {
      flamefold::FrameId f = p.frame[m];
      std::string d = std::string(p.symbols.name(f)) + "|" + std::string(p.symbols.file(f)) + "|" +
                      std::to_string(p.symbols[f].line) + "|" + std::string(p.symbols.category_name(p.symbols[f].category));
      path = path.empty() ? d : d + ";" + path;
    }
    out[path] += p.columns[c].self[n];
  }
  return out;
}

// Two profiles have the same weights on every path in every column, and the same frames
// (names, files, lines, categories) on those paths; weights rounded as pprof rounds them.
inline void expect_same_weights(const flamefold::Profile& got, const flamefold::Profile& want, bool rounded = false) {
  ASSERT_EQ(got.columns.size(), want.columns.size());
  for (size_t c = 0; c < want.columns.size(); ++c) {
    const std::string& name = want.columns[c].name;
    ASSERT_GE(got.column(name), 0) << name;
    EXPECT_EQ(got.columns[got.column(name)].unit, want.columns[c].unit) << name;
    std::map<std::string, double> w = described(want, name), g = described(got, name);
    if (rounded) {
      std::map<std::string, double> r;
      for (auto& [k, v] : w)
        if (std::llround(v) != 0) r[k] = static_cast<double>(std::llround(v));
      w.swap(r);
    }
    EXPECT_EQ(g.size(), w.size()) << name;
    for (const auto& [path, v] : w) {
      auto it = g.find(path);
      if (it == g.end()) {
        ADD_FAILURE() << "column " << name << ": path missing after the round trip: " << path;
        continue;
      }
      EXPECT_EQ(it->second, v) << name << " " << path;
    }
  }
  EXPECT_EQ(got.columns[got.default_column].name, want.columns[want.default_column].name);
}

// `go tool pprof` from Debian's golang-go, or "" when it is not installed.
inline std::string go_binary() {
  for (const char* p : {"/usr/bin/go", "/usr/lib/go/bin/go", "/usr/local/go/bin/go"})
    if (std::filesystem::exists(p)) return p;
  return "";
}
#define REQUIRE_GO()                                                                                    \
  std::string go = pprof_test::go_binary();                                                             \
  if (go.empty()) GTEST_SKIP() << "go is not installed (Debian's golang-go): skipping go tool pprof checks"; \
  go = "GOCACHE=" + std::string(FLAMEFOLD_TEST_TMP) + "/gocache GOPATH=" + std::string(FLAMEFOLD_TEST_TMP) + \
       "/gopath GOTOOLCHAIN=local " + go;

// The sample types `go tool pprof -raw` lists and the sum of each over its samples.
struct RawTotals {
  std::vector<std::string> types;  // "cpu/nanoseconds"
  std::vector<long long> totals;
  std::string default_type;        // the type marked [dflt], if any
  size_t samples = 0;
};

inline RawTotals parse_raw(const std::string& raw) {
  RawTotals t;
  std::istringstream in(raw);
  std::string line;
  bool in_samples = false, have_types = false;
  while (std::getline(in, line)) {
    if (line == "Samples:") {
      in_samples = true;
      continue;
    }
    if (!in_samples) continue;
    if (line.rfind("Locations", 0) == 0 || line.rfind("Mappings", 0) == 0) break;
    if (!have_types) {
      std::istringstream words(line);
      for (std::string w; words >> w;) {
        size_t d = w.find("[dflt]");
        if (d != std::string::npos) {
          w = w.substr(0, d);
          t.default_type = w;
        }
        t.types.push_back(w);
      }
      t.totals.assign(t.types.size(), 0);
      have_types = true;
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream nums(line.substr(0, colon));
    std::vector<long long> v;
    for (std::string w; nums >> w;) {
      char* end = nullptr;
      long long x = std::strtoll(w.c_str(), &end, 10);
      if (*end != '\0') {
        v.clear();  // a label line ("worker:[a]"), not values
        break;
      }
      v.push_back(x);
    }
    if (v.size() != t.types.size()) continue;
    for (size_t i = 0; i < v.size(); ++i) t.totals[i] += v[i];
    ++t.samples;
  }
  return t;
}

}  // namespace pprof_test
