// macOS `sample` output, as inferno-collapse-sample reads it: the "Call graph:" section is a
// tree, one node a line, indented two characters a level past four spaces (' ', '+', '|', ':'
// and '!' draw the tree), each node "COUNT function  (in module) + offset  [address]". Every
// node at the end of a branch becomes a stack with the count of that node (inclusive counts of
// its ancestors are not added); stacks that end in a waiting function are left out. A stack met
// twice (two sibling nodes of one name) keeps the count met last, as inferno keeps it.
#include <string>
#include <vector>

#include "flamefold/readers/text/collapse.h"
#include "flamefold/readers/text/collapse_common.h"

namespace flamefold {

using namespace collapse;

namespace {

constexpr std::string_view kStart = "Call graph:";
constexpr std::string_view kEnd = "Total number in stack";

// Leaves of idle threads, hidden as inferno hides them.
bool waiting(std::string_view frame) {
  static const std::string_view kIgnored[] = {"__psynch_cvwait", "__select", "__semwait_signal", "__ulock_wait",
                                              "__wait4", "__workq_kernreturn", "kevent", "mach_msg_trap", "read",
                                              "semaphore_wait_trap"};
  for (std::string_view s : kIgnored)
    if (frame.size() >= s.size() && frame.substr(frame.size() - s.size()) == s) return true;
  return false;
}

bool indent_char(char c) { return c == ' ' || c == '+' || c == '|' || c == ':' || c == '!'; }

class SampleReader {
 public:
  explicit SampleReader(bool no_modules) : no_modules_(no_modules) {}
  void line(std::string_view l) {  // a call-graph line, starting with four spaces
    size_t indent = 4;
    while (indent < l.size() && indent_char(l[indent])) ++indent;
    if (indent == l.size()) {
      ++odd;  // nothing but tree drawing
      return;
    }
    indent -= 4;
    if (indent % 2) ++odd;
    const size_t prev = stack_.size(), depth = indent / 2 + 1;
    if (depth <= prev) {
      flush();
      stack_.resize(depth - 1);
    } else if (depth > prev + 1) {
      ++odd;  // a level skipped: taken as the next level
    }
    // "COUNT name  (in module) + offset  [address]"
    std::string_view rest = trim_start(l.substr(4 + indent));
    size_t space = rest.find(' ');
    if (space == std::string_view::npos) {
      ++odd;
      return;
    }
    std::string_view count_text = trim_end(rest.substr(0, space));
    rest = rest.substr(space + 1);
    size_t open = rest.find('(');
    std::string_view func = trim_end(open == std::string_view::npos ? rest : rest.substr(0, open));
    std::string_view module;
    size_t in = no_modules_ ? std::string_view::npos : rest.rfind("(in ");
    std::string_view after = in == std::string_view::npos ? rest : rest.substr(in + 4);
    size_t close = after.find(')');
    if (close != std::string_view::npos && !no_modules_) module = after.substr(0, close);
    if (module.size() >= 6 && module.substr(module.size() - 6) == ".dylib") module.remove_suffix(6);
    uint64_t count;
    if (!parse_usize(count_text, count)) {
      ++odd;
      return;
    }
    samples_ = static_cast<double>(count);
    std::string name = fix_rust_symbol(func);
    stack_.push_back(module.empty() ? name : std::string(module) + "`" + name);
  }

  // The stack read so far, with the count of its last node.
  void flush() {
    if (stack_.empty()) {
      counts.set("", samples_);
      return;
    }
    if (waiting(stack_.back())) return;
    std::string s;
    for (size_t i = 0; i < stack_.size(); ++i) {
      if (i) s += ';';
      s += stack_[i];
    }
    counts.set(s, samples_);
  }

  StackCounts counts;
  uint64_t odd = 0;

 private:
  const bool no_modules_;
  std::vector<std::string> stack_;
  double samples_ = 0;
};

}  // namespace

Profile read_mac_sample(Input& input, const ReadOptions& options) {
  Lines lines(input);
  std::string_view line;
  bool started = false, ended = false;
  while (lines.next(line))
    if (line.substr(0, kStart.size()) == kStart) {
      started = true;
      break;
    }
  SampleReader r(options.collapse.no_modules);
  uint64_t other = 0;
  while (started && lines.next(line)) {
    line = trim_end(line);
    if (line.empty()) continue;
    if (line.substr(0, 4) == "    ") {
      r.line(line);
    } else if (line.substr(0, kEnd.size()) == kEnd) {
      ended = true;
      break;
    } else {
      ++other;
    }
  }
  if (started) r.flush();
  Profile p = r.counts.build(input, "sample (macOS)");
  if (!started) p.count("no \"Call graph:\" section (nothing read)");
  else if (!ended) p.count("the call graph does not end with its summary (read to the end)");
  if (r.odd) p.count("call-graph lines not read as a node (bad indentation or count)", r.odd);
  if (other) p.count("call-graph lines not indented by four spaces (skipped)", other);
  return p;
}

bool looks_like_mac_sample(std::string_view head) {
  // The report's first line, or its call graph followed by the summary.
  if (head.substr(0, 21) == "Analysis of sampling " && head.find("\nCall graph:") != std::string_view::npos) return true;
  size_t start = head.find("\nCall graph:");
  return start != std::string_view::npos && head.find("\n" + std::string(kEnd), start) != std::string_view::npos;
}

}  // namespace flamefold
