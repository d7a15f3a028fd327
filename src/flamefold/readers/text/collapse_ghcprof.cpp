// GHC's .prof cost-centre report (`+RTS -p`), as inferno-collapse-ghcprof reads it: below the
// header "COST CENTRE MODULE SRC no. entries %time %alloc %time %alloc ...", a tree of cost
// centres indented one space a level; each becomes the stack "Module.centre;..." weighing its
// individual %time in tenths of a percent (the columns are found by the header's positions), or
// with --ticks / --bytes its ticks or bytes (the columns `+RTS -P` adds).
#include <string>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/readers/text/collapse.h"
#include "flamefold/readers/text/collapse_common.h"

namespace flamefold {

using namespace collapse;

namespace {

const std::string_view kHeader[] = {"COST", "CENTRE", "MODULE", "SRC", "no.", "entries", "%time", "%alloc", "%time", "%alloc"};

bool is_header(std::string_view line) {
  size_t pos = 0;
  for (std::string_view want : kHeader) {
    while (pos < line.size() && is_space(line[pos])) ++pos;
    size_t b = pos;
    while (pos < line.size() && !is_space(line[pos])) ++pos;
    if (line.substr(b, pos - b) != want) return false;
  }
  return true;
}

// The first word at or after code point `col` of the line (Rust's chars().skip(col)...).
std::string_view word_at(std::string_view line, size_t col) {
  size_t i = 0;
  for (size_t c = 0; c < col && i < line.size(); ++c) {
    unsigned char b = static_cast<unsigned char>(line[i]);
    i += b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
  }
  if (i > line.size()) i = line.size();
  std::string_view rest = trim_start(line.substr(i));
  size_t e = 0;
  while (e < rest.size()) {
    std::string_view after = rest.substr(e);
    if (trim_start(after).size() != after.size()) break;  // whitespace (of any width) starts here
    unsigned char b = static_cast<unsigned char>(rest[e]);
    e += b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
  }
  return rest.substr(0, std::min(e, rest.size()));
}

}  // namespace

Profile read_ghcprof(Input& input, const ReadOptions& options) {
  Lines lines(input);
  std::string_view line;
  const std::string& source = options.collapse.ghc_source;
  const bool percent = source.empty() || source == "time";
  size_t module_col = 0, time_col = 0;
  bool header = false;
  while (lines.next(line))
    if (is_header(line)) {
      module_col = line.find("MODULE");
      // ticks and bytes are right-aligned, values wider than their headings: the column starts
      // where the one before it ends.
      size_t col = percent ? line.find("%time") : source == "ticks" ? line.rfind("%alloc") : line.rfind("ticks");
      if (!percent && (source != "ticks" || line.find("ticks") == std::string_view::npos) && (source != "bytes" || col == std::string_view::npos || line.find("bytes") == std::string_view::npos))
        throw InputError(input.path(), "line " + std::to_string(lines.number()),
                         "no " + source + " column in the header (profile with +RTS -P for ticks and bytes)");
      time_col = percent ? col : col + (source == "ticks" ? 6 : 5);
      header = true;
      break;
    }
  if (!header) throw InputError(input.path(), "", "no cost-centre header (\"COST CENTRE MODULE SRC no. entries %time ...\")");
  lines.next(line);  // the blank line under the header
  StackCounts counts;
  std::vector<std::string> stack;
  std::string joined;
  while (lines.next(line)) {
    line = trim_end(line);
    if (line.empty()) break;  // the tree ends at a blank line
    size_t depth = line.find_first_not_of(' ');
    if (depth < stack.size()) {
      stack.resize(depth);
    } else if (depth != stack.size()) {
      throw InputError(input.path(), "line " + std::to_string(lines.number()),
                       "an indentation level skipped (" + std::to_string(depth) + " spaces under " +
                           std::to_string(stack.size()) + " levels)");
    }
    std::string_view cost_text = trim(word_at(line, time_col));
    double cost;
    if (!parse_f64(cost_text, cost))
      throw InputError(input.path(), "line " + std::to_string(lines.number()),
                       "the " + std::string(percent ? "%time" : source) + " column holds '" + std::string(cost_text) + "', not a number");
    // Tenths of a percent, truncated as inferno's integer cast truncates.
    const double weight = as_usize(percent ? cost * 10.0 : cost);
    stack.push_back(std::string(trim(word_at(line, module_col))) + "." + std::string(trim(word_at(line, 0))));
    joined.clear();
    for (size_t i = 0; i < stack.size(); ++i) {
      if (i) joined += ';';
      joined += stack[i];
    }
    counts.add(joined, weight);  // the same stack under other threads adds up
  }
  return counts.build(input, "ghcprof", percent ? "permille" : source);
}

bool looks_like_ghcprof(std::string_view head) {
  size_t pos = 0;
  while (pos < head.size()) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) break;
    if (is_header(head.substr(pos, nl - pos))) return true;
    pos = nl + 1;
  }
  return false;
}

}  // namespace flamefold
