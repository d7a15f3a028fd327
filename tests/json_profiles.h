// What the tests of the JSON profile formats (speedscope, .cpuprofile, gecko) share: clean
// errors, folded output per weight, the weights `info` lists, and the speedscope round trip.
#pragma once
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "test_support.h"

namespace json_profiles {

inline std::string sh_quote(const std::string& s) { return "'" + s + "'"; }

// exit 2 with one "flamefold: error:" line naming the file, no output left behind; returns it.
inline std::string expect_clean_error(const std::string& input, const std::string& what, const std::string& extra = "") {
  std::string out = test::tmp_path("out.folded");
  std::filesystem::remove(out);
  test::RunResult r = test::flamefold("collapse " + extra + " " + sh_quote(input) + " -o " + sh_quote(out));
  EXPECT_EQ(r.exit_code, 2) << what << ": " << r.err;
  EXPECT_EQ(r.err.rfind("flamefold: error: ", 0), 0u) << what << ": " << r.err;
  EXPECT_NE(r.err.find(input), std::string::npos) << what << ": the message names the file: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": one line: " << r.err;
  EXPECT_FALSE(std::filesystem::exists(out)) << what;
  return r.err;
}

// `flamefold collapse` of one weight; fails the test when flamefold does.
inline std::string folded(const std::string& input, const std::string& weight = "", const std::string& extra = "") {
  test::RunResult r = test::flamefold("collapse " + extra + " " + sh_quote(input) + (weight.empty() ? "" : " --weight " + weight));
  EXPECT_EQ(r.exit_code, 0) << input << " --weight " << weight << ": " << r.err;
  return r.out;
}

inline std::string info(const std::string& input, const std::string& extra = "") {
  test::RunResult r = test::flamefold("info " + extra + " " + sh_quote(input));
  EXPECT_EQ(r.exit_code, 0) << input << ": " << r.err;
  return r.out;
}

// The weight columns `info` lists: (name, "total unit").
inline std::vector<std::pair<std::string, std::string>> weights(const std::string& info_text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::regex re("^weight (\\S+)(?: \\(default\\))?: (.*)$");
  std::istringstream in(info_text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, re)) out.emplace_back(m[1], m[2]);
  }
  return out;
}

// flamefold -> speedscope -> flamefold: the same weights with the same totals, and the same
// folded stacks for every one of them.
inline void expect_round_trip(const std::string& input, const std::string& read_args = "") {
  std::string ss = test::tmp_path(std::filesystem::path(input).filename().string() + ".speedscope.json");
  test::RunResult w = test::flamefold("flamegraph " + read_args + " " + sh_quote(input) + " -o " + sh_quote(ss));
  ASSERT_EQ(w.exit_code, 0) << w.err;
  std::string info_before = info(input, read_args), info_after = info(ss);
  auto before = weights(info_before), after = weights(info_after);
  ASSERT_FALSE(before.empty());
  std::regex default_weight("weight (\\S+) \\(default\\)");
  std::smatch d1, d2;
  EXPECT_TRUE(std::regex_search(info_before, d1, default_weight) && std::regex_search(info_after, d2, default_weight) &&
              d1[1] == d2[1])
      << "the default weight stays the default";
  // The same weights and units; totals equal up to the order of a floating-point sum (the
  // stacks themselves are compared exactly below).
  auto sorted = [](auto v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  before = sorted(before);
  after = sorted(after);
  ASSERT_EQ(before.size(), after.size()) << input;
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(before[i].first, after[i].first);
    double a = std::stod(before[i].second), b = std::stod(after[i].second);
    EXPECT_NEAR(a, b, 1e-12 * std::max(1.0, std::abs(a))) << before[i].first;
    EXPECT_EQ(before[i].second.substr(before[i].second.find(' ')), after[i].second.substr(after[i].second.find(' ')));
  }
  for (const auto& [weight, total] : before) {
    std::string a = folded(input, weight, read_args), b = folded(ss, weight);
    if (std::stod(total) != 0) EXPECT_FALSE(a.empty()) << weight;
    EXPECT_EQ(a, b) << input << ": weight " << weight << " differs after the round trip";
  }
}

}  // namespace json_profiles
