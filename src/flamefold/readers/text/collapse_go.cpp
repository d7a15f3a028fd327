// Go pprof profiles printed as text:
//   `go tool pprof -raw`, as stackcollapse-go.pl reads it: "Samples:" then "COUNT VALUE: loc loc
//   ..." (location ids, leaf first), then "Locations" listing "ID: 0xADDR M=N function file:line";
//   a stack weighs the sample's first value (the count).
//   `go tool pprof -traces`: traces between "-----------+------" rules, the first line of each
//   "VALUE   function" and the callers below it; values like 10ms, 1.50s or 512kB are read in
//   nanoseconds or bytes.
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/readers/text/collapse.h"
#include "flamefold/readers/text/text_source.h"
#include "flamefold/readers/text/collapse_common.h"

namespace flamefold {

using namespace collapse;

namespace {

bool is_hex_lower(char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }

// /^\s*([0-9]+)\s*[0-9]+: ([0-9 ]+)/: the count and the location ids.
bool sample_line(std::string_view l, std::string_view& count, std::string_view& ids) {
  size_t i = 0;
  while (i < l.size() && is_space(l[i])) ++i;
  const size_t b = i;
  while (i < l.size() && is_digit(l[i])) ++i;
  const size_t d1 = i;  // end of the first run of digits
  size_t k = d1;
  while (k < l.size() && is_space(l[k])) ++k;
  size_t after;  // end of the second number
  if (k > d1) {
    if (d1 == b) return false;
    size_t e = k;
    while (e < l.size() && is_digit(l[e])) ++e;
    if (e == k) return false;
    count = l.substr(b, d1 - b);
    after = e;
  } else {
    // No blank between the numbers: the regex leaves the second one the last digit.
    if (d1 - b < 2) return false;
    count = l.substr(b, d1 - b - 1);
    after = d1;
  }
  if (l.substr(after, 2) != ": ") return false;
  size_t s = after + 2, e = s;
  while (e < l.size() && (is_digit(l[e]) || l[e] == ' ')) ++e;
  if (e == s) return false;
  ids = l.substr(s, e - s);
  return true;
}

// /^\s*([0-9]*): 0x[0-9a-f]+ (M=[0-9]+ )?([^ ]+) .*/: the location id and its function.
bool location_line(std::string_view l, std::string_view& id, std::string_view& name) {
  size_t i = 0;
  while (i < l.size() && is_space(l[i])) ++i;
  size_t b = i;
  while (i < l.size() && is_digit(l[i])) ++i;
  id = l.substr(b, i - b);
  if (l.substr(i, 4) != ": 0x") return false;
  i += 4;
  size_t h = i;
  while (i < l.size() && is_hex_lower(l[i])) ++i;
  if (i == h || i >= l.size() || l[i] != ' ') return false;
  std::string_view rest = l.substr(i + 1);
  auto token = [](std::string_view s, std::string_view& out) {  // ([^ ]+) followed by a blank
    size_t e = s.find(' ');
    if (e == 0 || e == std::string_view::npos) return false;
    out = s.substr(0, e);
    return true;
  };
  if (rest.substr(0, 2) == "M=") {
    size_t m = 2;
    while (m < rest.size() && is_digit(rest[m])) ++m;
    if (m > 2 && m < rest.size() && rest[m] == ' ' && token(rest.substr(m + 1), name)) return true;
  }
  return token(rest, name);
}

Profile read_go_raw(Lines& lines, Input& input) {
  enum class State { Ignore, Sample, Location } state = State::Ignore;
  std::map<std::string, double> stacks;  // location ids as printed -> count
  std::unordered_map<std::string, std::string> names;
  std::string_view line;
  uint64_t samples = 0;
  while (lines.next(line)) {
    if (!line.empty() && line[0] == '#') continue;
    if (state == State::Ignore) {
      if (line.find("Samples:") != std::string_view::npos) state = State::Sample;
    } else if (state == State::Sample) {
      std::string_view count, ids;
      if (sample_line(line, count, ids)) {
        stacks[std::string(ids)] += perl_number(count);
        ++samples;
      } else if (line.find("Locations") != std::string_view::npos) {
        state = State::Location;
      }
    } else {
      std::string_view id, name;
      if (location_line(line, id, name)) names[std::string(id)] = std::string(name);
      else if (line.find("Mappings") != std::string_view::npos) break;
    }
  }
  StackCounts counts;
  std::vector<std::string_view> ids;
  for (const auto& [key, count] : stacks) {
    // Perl's split / /: empty fields kept but the trailing ones; reversed: root first.
    ids.clear();
    size_t pos = 0;
    while (pos <= key.size()) {
      size_t sp = key.find(' ', pos);
      if (sp == std::string::npos) sp = key.size();
      ids.push_back(std::string_view(key).substr(pos, sp - pos));
      pos = sp + 1;
    }
    while (!ids.empty() && ids.back().empty()) ids.pop_back();
    std::string s;
    for (size_t i = ids.size(); i-- > 0;) {
      auto it = names.find(std::string(ids[i]));
      s += it != names.end() && !it->second.empty() && it->second != "0" ? std::string_view(it->second) : ids[i];
      if (i) s += ';';
    }
    counts.add(s, count);
  }
  Profile p = counts.build(input, "go pprof (-raw)");
  p.facts.emplace_back("samples", std::to_string(samples));
  return p;
}

// "10ms", "1.50s", "512kB", "3": the value in nanoseconds, bytes or as a count.
enum class GoUnit { Count, Nanoseconds, Bytes };
bool go_value(std::string_view text, double& v, GoUnit& unit) {
  size_t e = 0;
  while (e < text.size() && (is_digit(text[e]) || text[e] == '.' || text[e] == '-' || text[e] == '+' || text[e] == 'e')) ++e;
  if (e == 0 || !parse_f64(text.substr(0, e), v)) return false;
  std::string_view u = text.substr(e);
  static const std::pair<std::string_view, double> kTime[] = {{"ns", 1},      {"us", 1e3},      {"µs", 1e3},
                                                              {"ms", 1e6},    {"s", 1e9},       {"mins", 60e9},
                                                              {"hrs", 3600e9}, {"days", 86400e9}};
  static const std::pair<std::string_view, double> kBytes[] = {{"B", 1}, {"kB", 1024.0}, {"KB", 1024.0},
                                                               {"MB", 1048576.0}, {"GB", 1073741824.0},
                                                               {"TB", 1099511627776.0},
                                                               {"PB", 1125899906842624.0}};
  unit = GoUnit::Count;
  if (u.empty()) return true;
  for (const auto& [name, scale] : kTime)
    if (u == name) {
      v = std::round(v * scale);
      unit = GoUnit::Nanoseconds;
      return true;
    }
  for (const auto& [name, scale] : kBytes)
    if (u == name) {
      v = std::round(v * scale);
      unit = GoUnit::Bytes;
      return true;
    }
  return false;
}

// An inlined function is marked " (inline)": the folded convention's "_[i]" instead.
std::string frame_name(std::string_view printed) {
  constexpr std::string_view kInline = " (inline)";
  if (printed.size() > kInline.size() && printed.substr(printed.size() - kInline.size()) == kInline)
    return std::string(printed.substr(0, printed.size() - kInline.size())) + "_[i]";
  return std::string(printed);
}

bool is_rule(std::string_view l) { return l.size() > 12 && l.substr(0, 11) == "-----------" && l[11] == '+'; }

Profile read_go_traces(Lines& lines, Input& input) {
  StackCounts counts;
  std::vector<std::string> frames;  // leaf first
  double value = 0;
  bool have_value = false, mixed = false;
  GoUnit unit = GoUnit::Count, seen_unit = GoUnit::Count;
  bool any_unit = false;
  uint64_t traces = 0, odd = 0;
  std::string_view line;
  auto flush = [&] {
    if (have_value && !frames.empty()) {
      std::string s;
      for (size_t i = frames.size(); i-- > 0;) {
        s += frames[i];
        if (i) s += ';';
      }
      counts.add(s, value);
      ++traces;
    }
    frames.clear();
    have_value = false;
  };
  bool in_traces = false;
  while (lines.next(line)) {
    if (is_rule(line)) {
      flush();
      in_traces = true;
      continue;
    }
    if (!in_traces || line.empty()) continue;
    // "VALUE   function" opens a trace; "        function" continues it; "  key:  value" is a label.
    size_t lead = line.find_first_not_of(' ');
    if (lead == std::string_view::npos) continue;
    std::string_view rest = line.substr(lead);
    size_t gap = rest.find("   ");
    if (!have_value && gap != std::string_view::npos && lead < 12) {
      double v;
      GoUnit u;
      if (go_value(rest.substr(0, gap), v, u)) {
        if (any_unit && u != seen_unit) mixed = true;
        seen_unit = u;
        any_unit = true;
        unit = u;
        value = v;
        have_value = true;
        frames.push_back(frame_name(trim(rest.substr(gap))));
        continue;
      }
    }
    if (!have_value) {
      if (rest.find(": ") == std::string_view::npos) ++odd;  // not a label either
      continue;
    }
    frames.push_back(frame_name(trim(rest)));
  }
  flush();
  Profile p = counts.build(input, "go pprof (-traces)",
                           unit == GoUnit::Nanoseconds ? "ns" : unit == GoUnit::Bytes ? "bytes" : "samples");
  p.facts.emplace_back("traces", std::to_string(traces));
  if (mixed) p.count("traces with values in other units (added as they are)");
  if (odd) p.count("lines in the traces not read (neither a value, a frame nor a label)", odd);
  return p;
}

bool starts_raw(std::string_view head) {
  return head.substr(0, 11) == "PeriodType:" || head.find("\nSamples:\n") != std::string_view::npos ||
         head.substr(0, 9) == "Samples:\n";
}

}  // namespace

Profile read_go_pprof_text(Input& input, const ReadOptions& options) {
  std::string storage;
  bool raw = starts_raw(head_as_utf8(input.head(), storage));
  Lines lines(input);
  return raw ? read_go_raw(lines, input) : read_go_traces(lines, input);
}

bool looks_like_go_pprof_text(std::string_view head) {
  if (starts_raw(head)) return head.find("PeriodType:") != std::string_view::npos || head.find("samples/count") != std::string_view::npos;
  // -traces: a "Type:" line in the header, then the first rule.
  size_t rule = head.find("\n-----------+");
  return rule != std::string_view::npos && head.substr(0, rule).find("Type: ") != std::string_view::npos;
}

}  // namespace flamefold
