#include "flamefold/writers/pstats_table.h"

#include <algorithm>
#include <array>
#include <string>

namespace flamefold {

namespace {

// pstats' sort_arg_dict_default: fields of (pcalls, ncalls, tottime, cumtime, file, line, name,
// stdname) with a direction (-1 = descending).
struct SortSpec {
  std::string_view key;
  std::string_view description;
  int n;
  std::array<std::pair<int, int>, 3> fields;
};
constexpr SortSpec kSorts[] = {
    {"calls", "call count", 1, {{{1, -1}}}},
    {"ncalls", "call count", 1, {{{1, -1}}}},
    {"cumtime", "cumulative time", 1, {{{3, -1}}}},
    {"cumulative", "cumulative time", 1, {{{3, -1}}}},
    {"filename", "file name", 1, {{{4, 1}}}},
    {"file", "file name", 1, {{{4, 1}}}},
    {"module", "file name", 1, {{{4, 1}}}},
    {"line", "line number", 1, {{{5, 1}}}},
    {"name", "function name", 1, {{{6, 1}}}},
    {"nfl", "name/file/line", 3, {{{6, 1}, {4, 1}, {5, 1}}}},
    {"pcalls", "primitive call count", 1, {{{0, -1}}}},
    {"stdname", "standard name", 1, {{{7, 1}}}},
    {"time", "internal time", 1, {{{2, -1}}}},
    {"tottime", "internal time", 1, {{{2, -1}}}},
};

const SortSpec* find_sort(std::string_view key) {
  for (const SortSpec& s : kSorts)
    if (s.key == key) return &s;
  return nullptr;
}

void append_count(std::string& b, double v) { fmt::format_to(std::back_inserter(b), "{:.0f}", v); }

}  // namespace

bool is_pstats_sort_key(std::string_view key) { return find_sort(key) != nullptr; }

void write_pstats_table(const CallStats& st, std::string_view sort_key, size_t limit, OutputFile& out) {
  const SortSpec* spec = find_sort(sort_key);
  if (!spec) spec = find_sort("cumulative");
  std::vector<uint32_t> rows;
  std::vector<std::string> std_names(st.functions.size());
  for (uint32_t i = 0; i < st.functions.size(); ++i)
    if (st.functions[i].listed) {
      rows.push_back(i);
      std_names[i] = pstats_std_string(st.functions[i]);
    }
  // Python compares str by code point, which is the UTF-8 byte order.
  auto compare_field = [&](int field, uint32_t a, uint32_t b) -> int {
    const FunctionStat &x = st.functions[a], &y = st.functions[b];
    auto cmp = [](auto u, auto v) { return u < v ? -1 : (v < u ? 1 : 0); };
    switch (field) {
      case 0: return cmp(x.pcalls, y.pcalls);
      case 1: return cmp(x.ncalls, y.ncalls);
      case 2: return cmp(x.tottime, y.tottime);
      case 3: return cmp(x.cumtime, y.cumtime);
      case 4: return cmp(std::string_view(x.file), std::string_view(y.file));
      case 5: return cmp(x.line, y.line);
      case 6: return cmp(std::string_view(x.name), std::string_view(y.name));
      default: return cmp(std::string_view(std_names[a]), std::string_view(std_names[b]));
    }
  };
  std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
    for (int i = 0; i < spec->n; ++i) {
      int c = compare_field(spec->fields[i].first, a, b) * spec->fields[i].second;
      if (c) return c < 0;
    }
    return false;
  });
  size_t listed = rows.size();
  size_t shown = limit && limit < listed ? limit : listed;

  double total_calls = 0, prim_calls = 0, total_tt = 0;
  for (const FunctionStat& f : st.functions)
    if (f.listed) {
      total_calls += f.ncalls;
      prim_calls += f.pcalls;
      total_tt += f.tottime;
    }

  std::string& b = out.buffer();
  if (!st.source.empty()) b += st.source + "\n";
  if (st.from_samples)
    b += fmt::format("(sampled input: tottime/cumtime are sample weights in {}, ncalls counts call paths)\n",
                     st.time_unit == "s" ? "seconds" : st.time_unit);
  if (!b.empty()) b += "\n";
  b += "         ";
  append_count(b, total_calls);
  b += " function calls ";
  if (total_calls != prim_calls) {
    b += "(";
    append_count(b, prim_calls);
    b += " primitive calls) ";
  }
  fmt::format_to(std::back_inserter(b), "in {:.3f} seconds\n\n", total_tt);
  if (shown == 0) return;
  b += fmt::format("   Ordered by: {}\n", spec->description);
  if (shown != listed) b += fmt::format("   List reduced from {} to {} due to restriction <{}>\n", listed, shown, limit);
  b += "\n   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n";
  for (size_t r = 0; r < shown; ++r) {
    uint32_t i = rows[r];
    const FunctionStat& f = st.functions[i];
    std::string calls;
    append_count(calls, f.ncalls);
    if (f.ncalls != f.pcalls) {
      calls += '/';
      append_count(calls, f.pcalls);
    }
    fmt::format_to(std::back_inserter(b), "{:>9} {:8.3f} ", calls, f.tottime);
    if (f.ncalls == 0)
      b += "         ";
    else
      fmt::format_to(std::back_inserter(b), "{:8.3f} ", f.tottime / f.ncalls);
    fmt::format_to(std::back_inserter(b), "{:8.3f} ", f.cumtime);
    if (f.pcalls == 0)
      b += "         ";
    else
      fmt::format_to(std::back_inserter(b), "{:8.3f} ", f.cumtime / f.pcalls);
    b += std_names[i];
    b += '\n';
    out.maybe_flush();
  }
  b += "\n\n";
}

}  // namespace flamefold
