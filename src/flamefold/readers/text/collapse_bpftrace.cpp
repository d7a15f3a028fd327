// bpftrace's printed maps of stacks (`@[ustack] = count()`, `@[kstack, comm]`), as
// stackcollapse-bpftrace.pl reads them: "@[" opens a key, its frames follow one a line (leaf
// first, offsets kept: "func+12"), and "]: COUNT" closes it, or ", comm]: COUNT" naming the
// process, which becomes the root frame.
#include <string>
#include <vector>

#include "flamefold/readers/text/collapse.h"
#include "flamefold/readers/text/collapse_common.h"

namespace flamefold {

using namespace collapse;

namespace {

// Perl's /(.*)\]: (\d+)/ from `from` on: the text before the last "]: " followed by a digit,
// and the digits.
bool closing(std::string_view s, size_t from, std::string_view& before, std::string_view& digits) {
  for (size_t p = s.rfind("]: "); p != std::string_view::npos && p >= from; p = p ? s.rfind("]: ", p - 1) : std::string_view::npos) {
    size_t d = p + 3, e = d;
    while (e < s.size() && is_digit(s[e])) ++e;
    if (e > d) {
      before = s.substr(from, p - from);
      digits = s.substr(d, e - d);
      return true;
    }
    if (p == 0) break;
  }
  return false;
}

}  // namespace

Profile read_bpftrace(Input& input, const ReadOptions& options) {
  Lines lines(input);
  std::string_view line;
  StackCounts counts;
  std::vector<std::string> stack;  // leaf first, as printed
  bool in_stack = false;
  uint64_t stacks = 0;
  auto emit = [&](double count) {
    std::string s;
    for (size_t i = stack.size(); i-- > 0;) {
      s += stack[i];
      if (i) s += ';';
    }
    counts.add(s, count);
    ++stacks;
  };
  while (lines.next(line)) {
    std::string_view before, digits;
    if (!in_stack) {
      if (line == "@[") {
        in_stack = true;
      } else if (line.size() > 4 && line.substr(0, 3) == "@[," && is_space(line[3]) && closing(line, 4, before, digits)) {
        counts.add(before, perl_number(digits));  // a key with an empty stack: "@[, comm]: N"
        ++stacks;
      }
      continue;
    }
    // ",? ?(.*)]: N" closes the key; what is before the bracket (the comm) is its root.
    size_t from = 0;
    if (from < line.size() && line[from] == ',') ++from;
    if (from < line.size() && is_space(line[from])) ++from;
    if (closing(line, from, before, digits)) {
      if (!before.empty()) stack.emplace_back(before);
      emit(perl_number(digits));
      stack.clear();
      in_stack = false;
    } else {
      stack.emplace_back(perl_trim_start(line));
    }
  }
  Profile p = counts.build(input, "bpftrace");
  p.facts.emplace_back("stacks", std::to_string(stacks));
  if (in_stack) p.count("a stack not closed by \"]: COUNT\" at the end (skipped)");
  return p;
}

bool looks_like_bpftrace(std::string_view head) {
  // A key opened alone on its line ("@[") and closed by "]: COUNT".
  size_t pos = 0;
  bool opened = false;
  while (pos < head.size()) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) break;
    std::string_view l = head.substr(pos, nl - pos);
    pos = nl + 1;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    std::string_view before, digits;
    if (l == "@[") opened = true;
    else if (opened && closing(l, 0, before, digits)) return true;
  }
  return false;
}

}  // namespace flamefold
