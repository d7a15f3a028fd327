// Java thread dumps (jstack, kill -3), as stackcollapse-jstack.pl reads them with its defaults:
// each RUNNABLE thread's stack, under the thread's name without its "-N" suffix, counts once.
// Threads the JVM runs for itself (compiler, signal dispatcher, service, attach listener) and
// threads parked in epoll or blocked in socket calls are left out, as runnable in name only.
#include <string>
#include <vector>

#include "flamefold/readers/text/collapse.h"
#include "flamefold/readers/text/collapse_common.h"

namespace flamefold {

using namespace collapse;

namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }
bool ends_with(std::string_view s, std::string_view end) {
  return s.size() >= end.size() && s.substr(s.size() - end.size()) == end;
}

// /C. CompilerThread/: "C2 CompilerThread0", "C1 CompilerThread3".
bool compiler_thread(std::string_view name) {
  for (size_t p = name.find(" CompilerThread"); p != std::string_view::npos; p = name.find(" CompilerThread", p + 1))
    if (p >= 2 && name[p - 2] == 'C') return true;
  return false;
}

// --shorten-pkgs: "com.example.Foo.bar" -> "c.e.Foo.bar" (each package word to its first
// character); a name without a package becomes empty, as in the Perl script.
std::string shorten_packages(std::string_view func) {
  size_t last = func.rfind('.');
  if (last == std::string_view::npos || last == 0 || last + 1 == func.size()) return "";
  size_t prev = func.rfind('.', last - 1);
  if (prev == std::string_view::npos || prev + 1 == last) return "";
  auto word = [](char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  std::string out;
  std::string_view pkgs = func.substr(0, prev + 1);
  for (size_t i = 0; i < pkgs.size(); ++i) {
    if (word(pkgs[i]) && i > 0 && word(pkgs[i - 1])) continue;  // the rest of a word
    out += pkgs[i];
  }
  out += func.substr(prev + 1);
  return out;
}

}  // namespace

Profile read_jstack(Input& input, const ReadOptions& options) {
  Lines lines(input);
  std::string_view line;
  StackCounts counts;
  std::vector<std::string> stack;  // innermost first, as printed
  std::string thread;
  bool have_thread = false;
  std::string state = "?";
  uint64_t threads = 0, kept = 0, unknown = 0;
  while (lines.next(line)) {
    if (!line.empty() && line[0] == '#') continue;
    if (line.empty()) {  // the end of a thread's entry
      if (state == "RUNNABLE") {
        if (have_thread) stack.push_back(thread);
        if (!stack.empty()) {
          std::string s;
          for (size_t i = stack.size(); i-- > 0;) {
            s += stack[i];
            if (i) s += ';';
          }
          counts.add(s, 1);
          ++kept;
        }
      }
      stack.clear();
      have_thread = false;
      thread.clear();
      state = "?";
      continue;
    }
    if (line[0] == '"') {  // "name" #12 daemon prio=5 ...
      size_t close = line.find('"', 1);
      std::string_view name = line.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1);
      thread = std::string(name);
      have_thread = !options.collapse.no_thread_name;
      size_t d = thread.size();  // s/-\d+$//
      while (d > 0 && is_digit(thread[d - 1])) --d;
      if (!options.collapse.include_tid && d < thread.size() && d > 0 && thread[d - 1] == '-') thread.resize(d - 1);
      if (compiler_thread(name) || contains(name, "Signal Dispatcher") || contains(name, "Service Thread") ||
          contains(name, "Attach Listener"))
        state = "BACKGROUND";
      ++threads;
      continue;
    }
    size_t st = line.find("java.lang.Thread.State: ");
    if (st != std::string_view::npos) {
      std::string_view rest = line.substr(st + 24);
      size_t e = 0;
      while (e < rest.size() && !is_space(rest[e])) ++e;
      if (e > 0 && state == "?") state = std::string(rest.substr(0, e));
      if (e > 0) continue;
    }
    std::string_view t = perl_trim_start(line);
    if (t.substr(0, 3) == "at ") {
      std::string_view func = t.substr(3);
      size_t open = func.find('(');
      if (open != std::string_view::npos) func = func.substr(0, open);
      stack.push_back(options.collapse.shorten_pkgs ? shorten_packages(func) : std::string(func));
      if (contains(func, "epollWait") || contains(func, "EPoll.wait")) state = "WAITING";
      if (ends_with(func, "socketAccept") || ends_with(func, "socketRead0")) state = "NETWORK";
      if (ends_with(func, "accept0")) {
        size_t sock = func.find("Socket");
        if (sock != std::string_view::npos && sock + 6 <= func.size() - 7) state = "NETWORK";
      }
      continue;
    }
    bool info = (!t.empty() && t[0] == '-') ||
                (line.size() >= 5 && line[0] == '2' && is_digit(line[1]) && is_digit(line[2]) && is_digit(line[3]) && line[4] == '-') ||
                line.starts_with("Full thread dump") || line.starts_with("JNI global references:");
    if (!info) ++unknown;
  }
  Profile p = counts.build(input, "jstack");
  p.facts.emplace_back("threads", std::to_string(threads));
  p.facts.emplace_back("RUNNABLE stacks", std::to_string(kept));
  if (unknown) p.count("thread-dump lines not recognised (skipped, as stackcollapse-jstack.pl does)", unknown);
  return p;
}

bool looks_like_jstack(std::string_view head) {
  if (head.find("\nFull thread dump ") != std::string_view::npos || head.substr(0, 17) == "Full thread dump ") return true;
  // A thread's first lines: "name" ... then its state.
  size_t q = head[0] == '"' ? 0 : head.find("\n\"");
  return q != std::string_view::npos && head.find("java.lang.Thread.State: ", q) != std::string_view::npos;
}

}  // namespace flamefold
