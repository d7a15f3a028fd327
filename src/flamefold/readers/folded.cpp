#include "flamefold/readers/folded.h"

#include <charconv>
#include <string>
#include <vector>

#include "flamefold/errors.h"

namespace flamefold {

namespace {

// Parses the trailing count of a folded line: digits with an optional fraction.
bool parse_count(std::string_view s, double& out) {
  if (s.empty()) return false;
  size_t dot = s.find('.');
  uint64_t whole = 0;
  std::string_view ip = s.substr(0, dot);
  if (ip.empty() && dot == std::string_view::npos) return false;
  for (char c : ip) {
    if (c < '0' || c > '9') return false;
    whole = whole * 10 + static_cast<uint64_t>(c - '0');
  }
  if (dot == std::string_view::npos) {
    out = static_cast<double>(whole);
    return true;
  }
  std::string_view fp = s.substr(dot + 1);
  for (char c : fp)
    if (c < '0' || c > '9') return false;
  if (ip.empty() && fp.empty()) return false;
  double v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc()) return false;
  out = v;
  return true;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

bool looks_like_folded(std::string_view head) {
  // Most of the first non-blank lines must end in " <number>" and contain no tab-indented frames.
  int good = 0, bad = 0;
  size_t pos = 0;
  while (pos < head.size() && good + bad < 20) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) break;  // the last line may be cut off by the head window
    std::string_view line = head.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line[0] == '\t' || line[0] == '#') {
      ++bad;
      continue;
    }
    size_t sp = line.find_last_of(' ');
    double c;
    if (sp != std::string_view::npos && sp > 0 && parse_count(line.substr(sp + 1), c))
      ++good;
    else
      ++bad;
  }
  if (good + bad == 0) {
    // A single unterminated line.
    std::string_view line = head;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    size_t sp = line.find_last_of(' ');
    double c;
    return sp != std::string_view::npos && parse_count(line.substr(sp + 1), c);
  }
  return good > 0 && good >= bad * 4;
}

Profile read_folded(Input& input, const ReadOptions& options) {
  Profile p;
  p.source_format = "folded";
  p.inputs.push_back(input.path());
  int col = p.add_column("samples", "samples");
  CategoryId thread_cat = p.symbols.category(category::kThread);
  std::vector<FrameId> stack;
  uint64_t line_no = 0, lines = 0, bad = 0;
  uint64_t first_bad_line = 0;
  bool cpython = false, decided = false;
  double total = 0;
  std::string_view chunk;
  while (input.next_chunk(chunk)) {
    size_t pos = 0;
    while (pos < chunk.size()) {
      size_t nl = chunk.find('\n', pos);
      if (nl == std::string_view::npos) nl = chunk.size();
      std::string_view line = chunk.substr(pos, nl - pos);
      pos = nl + 1;
      ++line_no;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
      if (line.empty()) continue;
      size_t sp = line.find_last_of(" \t");
      double count = 0;
      if (sp == std::string_view::npos || !parse_count(line.substr(sp + 1), count)) {
        if (!bad) first_bad_line = line_no;
        ++bad;
        continue;
      }
      std::string_view frames = line.substr(0, sp);
      while (!frames.empty() && (frames.back() == ' ' || frames.back() == '\t')) frames.remove_suffix(1);
      if (!decided) {
        cpython = frames.rfind("tid:", 0) == 0;
        decided = true;
      }
      stack.clear();
      size_t fpos = 0;
      bool first = true;
      while (fpos <= frames.size()) {
        size_t semi = frames.find(';', fpos);
        if (semi == std::string_view::npos) semi = frames.size();
        std::string_view name = frames.substr(fpos, semi - fpos);
        fpos = semi + 1;
        if (cpython) {
          if (first && name.rfind("tid:", 0) == 0) {
            stack.push_back(p.symbols.frame(name, {}, 0, thread_cat));
          } else {
            // file.py:func:line; frames without that shape (built-ins) stay as they are.
            size_t c2 = name.rfind(':');
            size_t c1 = c2 == std::string_view::npos || c2 == 0 ? std::string_view::npos : name.rfind(':', c2 - 1);
            if (c1 != std::string_view::npos && c1 > 0 && all_digits(name.substr(c2 + 1))) {
              uint32_t ln = 0;
              std::from_chars(name.data() + c2 + 1, name.data() + name.size(), ln);
              stack.push_back(p.symbols.frame(name.substr(c1 + 1, c2 - c1 - 1), name.substr(0, c1), ln));
            } else {
              stack.push_back(p.symbols.frame(name));
            }
          }
        } else {
          stack.push_back(p.symbols.frame(name));
        }
        first = false;
      }
      NodeId n = p.path(0, stack);
      p.add(n, col, count);
      total += count;
      ++lines;
    }
  }
  if (cpython) p.source_format = "folded (CPython sampling profiler)";
  if (bad) p.count("lines without a trailing count (skipped; first at line " + std::to_string(first_bad_line) + ")", bad);
  p.facts.emplace_back("stack lines", std::to_string(lines));
  (void)options;
  (void)total;
  return p;
}

}  // namespace flamefold
