// DTrace ustack()/stack()/jstack() aggregations (as inferno-collapse-dtrace and
// stackcollapse.pl read them) and SystemTap print_stack() aggregations (stackcollapse-stap.pl).
// Both print each stack leaf first, one frame a line, then its count alone on a line.
#include <deque>
#include <string>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/readers/text/collapse.h"
#include "flamefold/readers/text/collapse_common.h"

namespace flamefold {

using namespace collapse;

namespace {

// One frame line of DTrace output, named as inferno-collapse-dtrace names it: the offset from
// the last '+' dropped, C++ arguments dropped, Java's 'L' prefixes and ';' separators tidied,
// and "a->b->c" (inlined frames) split into a, b_[i], c_[i].
// With `keep_offset` (--includeoffset) the offset stays and every frame is treated as possibly
// inlined, C++ and Java, as inferno does.
void dtrace_frame(std::string_view line, std::vector<std::string>& out, bool keep_offset) {
  bool inlines = keep_offset, cpp = keep_offset, semicolon = keep_offset;
  size_t last_plus = line.size();
  for (size_t i = 0; i < line.size() && !keep_offset; ++i) {
    char c = line[i];
    if (c == '>' && i > 0 && line[i - 1] == '-') inlines = true;
    else if (c == ':' && i > 0 && line[i - 1] == ':') cpp = true;
    else if (c == ';') semicolon = true;
    else if (c == '+') last_plus = i;
  }
  std::string_view frame = line.substr(0, last_plus);
  if (cpp) {  // Perl's s/(::.*)[(<].*/$1/: cut at the last '(' or '<' after the first "::"
    size_t scope = frame.find("::");
    if (scope != std::string_view::npos) {
      size_t open = frame.substr(scope + 2).find_last_of("(<");
      if (open != std::string_view::npos) frame = frame.substr(0, scope + 2 + open);
    }
  }
  if (frame.empty()) frame = "-";
  auto tidy = [&](std::string_view f) {
    std::string s(f);
    if (semicolon)
      for (char& c : s)
        if (c == ';') c = ':';
    return s;
  };
  if (!inlines) {
    out.push_back(tidy(frame));
    return;
  }
  bool first = true;
  size_t pos = 0;
  while (true) {
    size_t arrow = frame.find("->", pos);
    std::string_view f = frame.substr(pos, arrow == std::string_view::npos ? std::string_view::npos : arrow - pos);
    while (!f.empty() && f[0] == 'L') f.remove_prefix(1);
    std::string s = tidy(f);
    if (!first) s += "_[i]";
    first = false;
    out.push_back(std::move(s));
    if (arrow == std::string_view::npos) break;
    pos = arrow + 2;
  }
}

// Frames of the stack being read, root first: lines come leaf first, so each one goes in front.
struct LeafFirstStack {
  std::deque<std::string> frames;
  // `leaf_offset`: the leaf's offset (from its last '+') is dropped (--includeoffset).
  std::string joined(bool leaf_offset = false) const {
    std::string s;
    for (size_t i = 0; i < frames.size(); ++i) {
      if (i) s += ';';
      std::string_view f = frames[i];
      if (leaf_offset && i + 1 == frames.size()) f = f.substr(0, f.rfind('+'));
      s += f;
    }
    return s;
  }
};

}  // namespace

Profile read_dtrace(Input& input, const ReadOptions& options) {
  Lines lines(input);
  std::string_view line;
  // The header (the probe description dtrace prints) ends at the first blank line.
  bool header_ended = false;
  while (lines.next(line))
    if (trim(line).empty()) {
      header_ended = true;
      break;
    }
  StackCounts counts;
  LeafFirstStack stack;
  std::vector<std::string> parts;
  uint64_t stacks = 0;
  while (lines.next(line)) {
    std::string_view t = trim(line);
    if (t.empty()) continue;
    uint64_t count;
    if (parse_usize(t, count)) {
      counts.add(stack.joined(options.collapse.include_offset), static_cast<double>(count));
      stack.frames.clear();
      ++stacks;
      continue;
    }
    parts.clear();
    dtrace_frame(t, parts, options.collapse.include_offset);
    for (size_t k = parts.size(); k-- > 0;) stack.frames.push_front(std::move(parts[k]));
  }
  Profile p = counts.build(input, "dtrace");
  p.facts.emplace_back("stacks", std::to_string(stacks));
  if (!header_ended) p.count("no blank line after the header (nothing read)");
  if (!stack.frames.empty()) p.count("frames after the last count (no count: skipped)");
  return p;
}

Profile read_stap(Input& input, const ReadOptions& options) {
  Lines lines(input);
  std::string_view line;
  StackCounts counts;
  LeafFirstStack stack;
  uint64_t stacks = 0;
  while (lines.next(line)) {
    std::string_view digits;
    if (perl_count_line(line, digits)) {
      counts.add(stack.joined(), perl_number(digits));
      stack.frames.clear();
      ++stacks;
      continue;
    }
    std::string_view f = perl_trim_start(line);
    if (f.empty()) continue;
    size_t plus = f.rfind('+');  // the offset
    if (plus != std::string_view::npos) f = f.substr(0, plus);
    size_t colon = f.rfind(" : ");  // "0xffffffff8104f0f6 : " before the symbol
    if (colon != std::string_view::npos) f = f.substr(colon + 3);
    stack.frames.push_front(f.empty() ? std::string("-") : std::string(f));
  }
  Profile p = counts.build(input, "stap");
  p.facts.emplace_back("stacks", std::to_string(stacks));
  if (!stack.frames.empty()) p.count("frames after the last count (no count: skipped)");
  return p;
}

namespace {

// The non-blank lines of a head (the last one may be cut off by the window: left out).
template <typename F>
void head_lines(std::string_view head, F&& f) {
  size_t pos = 0;
  while (pos < head.size()) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) return;
    std::string_view l = head.substr(pos, nl - pos);
    pos = nl + 1;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (!f(l)) return;
  }
}

bool hex_address(std::string_view s) {
  if (s.size() < 3 || s[0] != '0' || s[1] != 'x') return false;
  for (char c : s.substr(2))
    if (!(is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  return true;
}

}  // namespace

bool looks_like_dtrace(std::string_view head) {
  // inferno's test: past the first blank line, frame lines (module`function, or a bare
  // address) and then a count line.
  bool blank = false, frame = false;
  int verdict = -1;
  head_lines(head, [&](std::string_view l) {
    std::string_view t = trim(l);
    if (t.empty()) {
      blank = true;
      return true;
    }
    if (!blank) return true;
    uint64_t n;
    if (parse_usize(t, n)) {
      verdict = frame ? 1 : 0;
      return false;
    }
    if (t.find('`') != std::string_view::npos || hex_address(t)) {
      frame = true;
      return true;
    }
    verdict = 0;
    return false;
  });
  return verdict == 1;
}

bool looks_like_stap(std::string_view head) {
  // print_stack() lines "0xffffffff8104f0f6 : native_safe_halt+0x6/0x10 [kernel]" (or a bare
  // address), then a count; at least one symbolised frame before a count.
  bool frame = false;
  int verdict = -1;
  head_lines(head, [&](std::string_view l) {
    std::string_view t = trim(l);
    if (t.empty()) return true;
    std::string_view digits;
    if (perl_count_line(l, digits)) {
      if (frame) verdict = 1;
      return !frame;
    }
    size_t colon = t.find(" : ");
    if (colon != std::string_view::npos && hex_address(t.substr(0, colon))) {
      frame = true;
      return true;
    }
    if (hex_address(t)) return true;
    verdict = 0;
    return false;
  });
  return verdict == 1;
}

}  // namespace flamefold
