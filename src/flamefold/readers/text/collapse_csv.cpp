// Call trees exported as CSV, one node a line:
//   Intel VTune (`amplxe-cl -report top-down -call-stack-mode all -format csv`), read as
//   inferno-collapse-vtune reads it: "Function Stack,CPU Time:Self,Module" then nodes indented
//   one space a level, "function,seconds,module"; a node with self time becomes a stack weighing
//   its milliseconds.
//   Visual Studio's profiler (CallTreeSummary.csv), read as inferno-collapse-vsprof reads it:
//   "Level,Function Name,Number of Calls,...", each node "level,"function",calls,..."; the calls
//   of a node less those of its callees become the weight of its stack.
// inferno keeps the last weight of a stack seen twice in these formats; so does flamefold.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/readers/text/collapse.h"
#include "flamefold/readers/text/collapse_common.h"

namespace flamefold {

using namespace collapse;

namespace {

constexpr std::string_view kVtuneHeader = "Function Stack,CPU Time:Self,Module";
constexpr std::string_view kVsprofHeader =
    "Level,Function Name,Number of Calls,Elapsed Inclusive Time %,Elapsed Exclusive Time %,Avg Elapsed Inclusive "
    "Time,Avg Elapsed Exclusive Time,Module Name,";

std::string join(const std::vector<std::string>& frames) {
  std::string s;
  for (size_t i = 0; i < frames.size(); ++i) {
    if (i) s += ';';
    s += frames[i];
  }
  return s;
}

std::string line_place(uint64_t n) { return "line " + std::to_string(n); }

}  // namespace

Profile read_vtune(Input& input, const ReadOptions& options) {
  Lines lines(input);
  std::string_view line;
  bool header = false;
  while (lines.next(line))
    if (line.substr(0, kVtuneHeader.size()) == kVtuneHeader) {
      header = true;
      break;
    }
  if (!header) throw InputError(input.path(), "", "no VTune CSV header (\"" + std::string(kVtuneHeader) + "\")");
  StackCounts counts;
  std::vector<std::string> stack;
  while (lines.next(line)) {
    line = trim_end(line);
    if (line.empty()) continue;
    size_t spaces = line.find_first_not_of(' ');
    const size_t prev = stack.size(), depth = spaces + 1;
    if (depth <= prev) {
      stack.resize(depth - 1);
    } else if (depth > prev + 1) {
      throw InputError(input.path(), line_place(lines.number()), "an indentation level skipped (" +
                       std::to_string(spaces) + " spaces after " + std::to_string(prev) + ")");
    }
    // function (quoted when it holds a comma or a space), seconds, module
    std::string_view rest = line.substr(spaces), func;
    size_t cut;
    if (!rest.empty() && rest[0] == '"') {
      cut = rest.find("\",", 1);
      func = cut == std::string_view::npos ? std::string_view() : rest.substr(1, cut - 1);
      cut = cut == std::string_view::npos ? cut : cut + 2;
    } else {
      cut = rest.find(',');
      func = cut == std::string_view::npos ? std::string_view() : rest.substr(0, cut);
      cut = cut == std::string_view::npos ? cut : cut + 1;
    }
    size_t comma = cut == std::string_view::npos ? cut : rest.find(',', cut);
    const bool no_modules = options.collapse.no_modules;  // then "function,seconds" will do
    if (cut == std::string_view::npos || (comma == std::string_view::npos && !no_modules))
      throw InputError(input.path(), line_place(lines.number()), "expected \"function,seconds,module\"");
    std::string_view time = rest.substr(cut, comma == std::string_view::npos ? std::string_view::npos : comma - cut);
    std::string_view module = no_modules ? std::string_view() : rest.substr(comma + 1);
    double seconds;
    if (!parse_f64(time, seconds))
      throw InputError(input.path(), line_place(lines.number()), "CPU Time:Self '" + std::string(time) + "' is not a number");
    const double ms = as_usize(std::round(seconds * 1000.0));
    stack.push_back(module.empty() ? std::string(func) : std::string(module) + "`" + std::string(func));
    if (ms > 0) counts.set(join(stack), ms);
  }
  return counts.build(input, "vtune", "ms");
}

namespace {

// A number at the start of a vsprof field list (after a comma, if any): "12," or "\"1,234\",".
std::pair<uint64_t, std::string_view> next_number(std::string_view s, const Input& input, uint64_t line) {
  if (!s.empty() && s[0] == ',') s.remove_prefix(1);
  bool quoted = !s.empty() && s[0] == '"';
  std::string_view num, rest;
  size_t cut = quoted ? s.find('"', 1) : s.find(',');
  if (cut != std::string_view::npos) {
    num = quoted ? s.substr(1, cut - 1) : s.substr(0, cut);
    rest = s.substr(cut + 1);  // past the closing quote, or past the comma
    std::string digits;
    for (char c : num)
      if (c != ',') digits += c;  // thousands separators
    uint64_t v;
    if (parse_usize(digits, v)) {
      if (quoted && !rest.empty() && rest[0] == ',') rest.remove_prefix(1);
      return {v, rest};
    }
  }
  throw InputError(input.path(), line_place(line), "expected a number at '" + std::string(s.substr(0, 40)) + "'");
}

}  // namespace

Profile read_vsprof(Input& input, const ReadOptions& options) {
  Lines lines(input);
  std::string_view line;
  if (!lines.next(line)) throw InputError(input.path(), "", "the file is empty");
  if (trim(line) != kVsprofHeader)
    throw InputError(input.path(), "line 1", "not the header of a Visual Studio call tree (\"Level,Function Name,...\")");
  StackCounts counts;
  std::vector<std::pair<std::string, uint64_t>> stack;  // function, calls
  auto write = [&] {
    if (stack.empty() || stack.back().second == 0) return;
    std::string s;
    for (size_t i = 0; i < stack.size(); ++i) {
      if (i) s += ';';
      s += stack[i].first;
    }
    counts.set(s, static_cast<double>(stack.back().second));
  };
  while (lines.next(line)) {
    line = trim_end(line);
    if (line.empty()) continue;
    auto [depth, rest] = next_number(line, input, lines.number());
    if (rest.empty() || rest[0] != '"')
      throw InputError(input.path(), line_place(lines.number()), "expected the function name in quotes");
    size_t close = rest.find('"', 1);
    if (close == std::string_view::npos)
      throw InputError(input.path(), line_place(lines.number()), "the function name has no closing quote");
    std::string_view name = rest.substr(1, close - 1);
    uint64_t calls = next_number(rest.substr(close + 1), input, lines.number()).first;
    const size_t prev = stack.size();
    if (prev < depth) {  // a callee
      stack.emplace_back(name, calls);
    } else if (prev == depth) {  // a sibling: the node before was a leaf
      write();
      if (!stack.empty()) stack.pop_back();  // level 0 first: nothing before it
      stack.emplace_back(name, calls);
    } else {
      // Back up to the parent. Each node keeps its calls less those of the callee written
      // before it, so a caller is not counted with its callees' calls again.
      uint64_t prev_calls = 0;
      for (size_t k = 0; k < prev - depth + 1; ++k) {
        if (prev_calls != stack.back().second) write();
        prev_calls = stack.back().second;
        stack.pop_back();
        if (stack.empty()) break;
        if (prev_calls < stack.back().second) stack.back().second -= prev_calls;
      }
      stack.emplace_back(name, calls);
    }
  }
  write();
  return counts.build(input, "vsprof", "calls");
}

bool looks_like_vtune(std::string_view head) {
  size_t pos = 0;
  while (pos < head.size()) {
    if (head.substr(pos, kVtuneHeader.size()) == kVtuneHeader) return true;
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return false;
}

bool looks_like_vsprof(std::string_view head) {
  size_t nl = head.find('\n');
  if (nl == std::string_view::npos) return false;
  return trim(head.substr(0, nl)) == kVsprofHeader;
}

}  // namespace flamefold
