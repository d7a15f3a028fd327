// `perf script` text -> Profile, with the behaviour of stackcollapse-perf.pl (FlameGraph).
//
// The Perl script is a line-by-line state machine driven by three regular expressions; each
// is re-implemented here by hand (parse_event_record, parse_event_name, parse_stack_line),
// including the corners its backtracking produces, so the folded output is byte-identical.
//
// Speed: stack lines repeat (a return address always prints the same symbol), so the frames a
// line produces are cached by the line's bytes; a sample then costs one hash lookup per line
// and one child lookup per frame. Big inputs are cut at blank lines (sample boundaries) and
// collapsed by several workers, each into its own table of distinct stacks; the tables are
// merged and the call tree is built in a canonical order, so the output never depends on the
// thread count.
#include "flamefold/readers/text/perf_script.h"

#include <malloc.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "flamefold/errors.h"
#include "flamefold/hash.h"
#include "flamefold/progress.h"
#include "flamefold/readers/text/parallel_feed.h"
#include "flamefold/readers/text/stack_table.h"
#include "flamefold/readers/text/text_source.h"

namespace flamefold {

namespace perf_script {

namespace {

// Perl's \s, \d and \w on byte strings.
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_word(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool is_lower_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// m:/tmp/perf-\d+\.map:
bool is_perf_map(std::string_view module) {
  size_t at = 0;
  while ((at = module.find("/tmp/perf-", at)) != std::string_view::npos) {
    size_t i = at + 10, d = i;
    while (i < module.size() && is_digit(module[i])) ++i;
    if (i > d && module.substr(i, 4) == ".map") return true;
    ++at;
  }
  return false;
}

// m/\.\(.*\)\./ : a Go method name such as "net/http.(*Client).Do".
bool looks_like_go_method(std::string_view f) {
  size_t open = f.find(".(");
  if (open == std::string_view::npos) return false;
  size_t close = f.rfind(").");
  return close != std::string_view::npos && close >= open + 2;
}

// One "->"-separated part of a symbol, tidied and annotated as stackcollapse-perf.pl does.
void tidy_part(std::string& func, const StackLine& s, const PerfOptions& o, bool java, bool inlined) {
  if (func == "[unknown]") {
    std::string_view base = "unknown";
    if (s.module != "[unknown]") {
      size_t slash = s.module.rfind('/');
      base = slash == std::string_view::npos ? s.module : s.module.substr(slash + 1);
    }
    std::string named = "[";
    named.append(base);
    if (o.addrs) {
      named.append(" <");
      named.append(s.pc);
      named.append(">");
    }
    named.push_back(']');
    func.swap(named);
  }
  // tidy_generic: ';' would split the frame; argument lists are noise (but keep Go method
  // names and C++ "(anonymous namespace)"); quotes go.
  std::replace(func.begin(), func.end(), ';', ':');
  if (!looks_like_go_method(func)) {
    size_t at = 0;
    while ((at = func.find('(', at)) != std::string::npos) {
      if (std::string_view(func).substr(at + 1, 20) != "anonymous namespace)") {
        func.resize(at);
        break;
      }
      ++at;
    }
  }
  func.erase(std::remove_if(func.begin(), func.end(), [](char c) { return c == '"' || c == '\''; }), func.end());
  // tidy_java: "Lorg/mozilla/Foo:.bar" -> "org/mozilla/Foo:.bar", only for the "java" process.
  if (java && !func.empty() && func[0] == 'L' && func.find('/') != std::string::npos) func.erase(0, 1);
  bool kernel = o.kernel || o.all, jit = o.jit || o.all;
  if (inlined) {
    if (func.find("_[i]") == std::string::npos) func.append("_[i]");
  } else if (kernel && (starts_with(s.module, "[") || ends_with(s.module, "vmlinux")) &&
             s.module.find("unknown") == std::string_view::npos) {
    func.append("_[k]");
  } else if (jit && is_perf_map(s.module)) {
    if (func.find("_[j]") == std::string::npos) func.append("_[j]");
  }
}

}  // namespace

bool parse_event_record(std::string_view line, EventRecord& r) {
  size_t n = line.size();
  if (n < 3 || is_space(line[0])) return false;
  // The comm is the shortest prefix (at least two characters) followed by spaces, digits,
  // optional "/digits" and a space.
  size_t e = 2;
  while (e < n) {
    if (!is_space(line[e])) {
      ++e;
      continue;
    }
    size_t i = e;
    while (i < n && is_space(line[i])) ++i;
    size_t d0 = i;
    while (i < n && is_digit(line[i])) ++i;
    if (i > d0) {
      size_t d1 = i;
      while (i < n && line[i] == '/') ++i;
      size_t t0 = i;
      while (i < n && is_digit(line[i])) ++i;
      if (i < n && is_space(line[i])) {
        r.comm = line.substr(0, e);
        r.pid = line.substr(d0, d1 - d0);
        r.tid = line.substr(t0, i - t0);
        return true;
      }
    }
    e = d0;  // any other end inside this run of spaces would fail the same way
  }
  return false;
}

bool parse_event_name(std::string_view line, std::string_view& event, std::string_view& period) {
  size_t end = line.size();
  while (end > 0 && is_space(line[end - 1])) --end;
  if (end < 2 || line[end - 1] != ':') return false;
  size_t start = end - 1;  // the event is the last word, without its final ':'
  while (start > 0 && !is_space(line[start - 1])) --start;
  if (start + 1 >= end || start == 0) return false;
  size_t gap = start;
  while (gap > 0 && is_space(line[gap - 1])) --gap;
  if (gap == 0) return false;
  if (line[gap - 1] == ':') {
    event = line.substr(start, end - 1 - start);
    period = {};
    return true;
  }
  // "...: <period> <event>:"
  if (!is_digit(line[gap - 1])) return false;
  size_t d = gap;
  while (d > 0 && is_digit(line[d - 1])) --d;
  size_t w = d;
  while (w > 0 && is_space(line[w - 1])) --w;
  if (w == 0 || line[w - 1] != ':') return false;
  event = line.substr(start, end - 1 - start);
  period = line.substr(d, gap - d);
  return true;
}

bool parse_stack_line(std::string_view line, StackLine& s) {
  size_t n = line.size(), i = 0;
  while (i < n && is_space(line[i])) ++i;
  size_t w0 = i;
  while (i < n && is_word(line[i])) ++i;
  size_t w1 = i;
  if (w1 == w0) return false;
  while (i < n && is_space(line[i])) ++i;
  size_t f = i;
  // The symbol runs (greedily) to the last " (" whose following non-space run holds a ')':
  // the module is what lies between that "(" and the run's last ')'.
  size_t p = std::string_view::npos, mod_end = 0;
  for (size_t at = n; at > w1 + 1;) {
    const void* hit = memrchr(line.data() + w1 + 1, '(', at - (w1 + 1));
    if (!hit) break;
    size_t open = static_cast<size_t>(static_cast<const char*>(hit) - line.data());
    at = open;
    if (line[open - 1] != ' ') continue;
    size_t close = std::string_view::npos;
    for (size_t k = open + 1; k < n && !is_space(line[k]); ++k)
      if (line[k] == ')') close = k;
    if (close == std::string_view::npos) continue;
    p = open - 1;
    mod_end = close;
    break;
  }
  if (p == std::string_view::npos) return false;
  // (.+) needs one character: when the symbol would be empty, Perl backtracks into the
  // spaces (symbol " ") or, failing that, into the address (its last character).
  size_t start = p >= f + 1 ? f : p - 1;
  if (start < w1) {
    if (w1 - 1 <= w0) return false;
    s.pc = line.substr(w0, w1 - 1 - w0);
  } else {
    s.pc = line.substr(w0, w1 - w0);
  }
  s.rawfunc = line.substr(start, p - start);
  s.module = line.substr(p + 2, mod_end - (p + 2));
  return true;
}

namespace {

inline bool is_hex(char c) { return is_lower_hex(c) || (c >= 'A' && c <= 'F'); }

// perf record without -g prints each sample on one line, its own ip, symbol and dso after the
// event: "comm 123 [000] 1.5:  250000 cpu-clock:  ffffffff8100 sym+0x10 ([kernel.kallsyms])".
// Splits such a line at the event's ':' (the rightmost ": " followed by a hex ip whose prefix
// reads as "...: [period] event:"). False for a plain header or anything else.
bool split_own_frame(std::string_view line, std::string_view& header, std::string_view& frame,
                     std::string_view& event, std::string_view& period) {
  size_t at = line.size();
  while (at > 0) {
    const void* hit = memrchr(line.data(), ':', at);
    if (!hit) return false;
    size_t colon = static_cast<size_t>(static_cast<const char*>(hit) - line.data());
    at = colon;
    if (colon + 1 >= line.size() || !is_space(line[colon + 1])) continue;
    size_t i = colon + 1;
    while (i < line.size() && is_space(line[i])) ++i;
    size_t ip = i;
    while (i < line.size() && is_hex(line[i])) ++i;
    if (i == ip || (i < line.size() && !is_space(line[i]))) continue;
    if (!parse_event_name(line.substr(0, colon + 1), event, period)) continue;
    header = line.substr(0, colon + 1);
    frame = line.substr(colon + 1);
    return true;
  }
  return false;
}

bool parse_sample_event(std::string_view line, std::string_view& event, std::string_view& period,
                        std::string_view& own_frame) {
  own_frame = {};
  if (parse_event_name(line, event, period)) return true;
  std::string_view header;
  return split_own_frame(line, header, own_frame, event, period);
}

bool parse_own_frame(std::string_view frame, StackLine& s) {
  size_t i = 0;
  while (i < frame.size() && is_space(frame[i])) ++i;
  size_t ip = i;
  while (i < frame.size() && is_hex(frame[i])) ++i;
  if (i == ip) return false;
  s.pc = frame.substr(ip, i - ip);
  while (i < frame.size() && is_space(frame[i])) ++i;
  std::string_view rest = frame.substr(i);
  while (!rest.empty() && is_space(rest.back())) rest.remove_suffix(1);
  if (rest.empty()) return false;  // the ip alone: no symbol to show
  // The dso alone ("-F ip,dso"): perf's own "[unknown]" symbol, so it is named after the dso.
  if (rest.front() == '(' && rest.back() == ')' && rest.find(' ') == std::string_view::npos) {
    s.rawfunc = "[unknown]";
    s.module = rest.substr(1, rest.size() - 2);
    return true;
  }
  if (parse_stack_line(frame, s)) return true;
  s.rawfunc = rest;  // a symbol without a dso ("-F ip,sym")
  s.module = {};
  return true;
}

// Without a call chain perf right-aligns the comm in 16 columns, so one-line sample headers
// start with spaces like stack lines do. Such a line is a header when, without its leading
// spaces, it reads as one and names its event. `header` is the line without those spaces.
struct SampleEvent {
  std::string_view event, period, own_frame;
  bool named = false;  // the header names its event
};
bool indented_sample_header(std::string_view line, std::string_view& header, EventRecord& r, SampleEvent& e) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i == 0 || i == line.size()) return false;
  header = line.substr(i);
  if (!parse_event_record(header, r)) return false;
  e.named = parse_sample_event(header, e.event, e.period, e.own_frame);
  return e.named;
}
bool indented_sample_header(std::string_view line, std::string_view& header, EventRecord& r) {
  SampleEvent e;
  return indented_sample_header(line, header, r, e);
}

void append_frame_names(const StackLine& s, const PerfOptions& o, bool java, std::vector<std::string>& out) {
  std::string_view raw = s.rawfunc;
  // Linux 4.8+ prints symbol offsets ("cpu_startup_entry+0x1a"): strip them.
  size_t h = raw.size();
  while (h > 0 && is_lower_hex(raw[h - 1])) --h;
  if (h < raw.size() && h >= 3 && raw.substr(h - 3, 3) == "+0x") raw = raw.substr(0, h - 3);
  if (!raw.empty() && raw[0] == '(') return;  // a process name, not a symbol
  // Inlined frames come as "outer->inner->..." (Perl's split drops trailing empty parts).
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (true) {
    size_t arrow = raw.find("->", pos);
    if (arrow == std::string_view::npos) {
      parts.push_back(raw.substr(pos));
      break;
    }
    parts.push_back(raw.substr(pos, arrow - pos));
    pos = arrow + 2;
  }
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  for (size_t k = 0; k < parts.size(); ++k) {
    std::string func(parts[k]);
    tidy_part(func, s, o, java, k > 0);
    out.push_back(std::move(func));
  }
}

}  // namespace

std::vector<std::string> frame_names(const StackLine& s, const PerfOptions& o, bool java) {
  std::vector<std::string> out;
  append_frame_names(s, o, java, out);
  return out;
}

}  // namespace perf_script

using namespace perf_script;
using stack_table::StackTable;
using stack_table::hash_frames;

namespace {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Stack line -> the frames it contributes, keyed by the line's bytes (and whether the process
// is "java", which changes tidying). Bounded: cleared when full, hot lines come back at once.
class LineCache {
 public:
  static constexpr size_t kMaxEntries = 1 << 16;
  static constexpr size_t kMaxText = 4 << 20;

  struct Entry {
    uint32_t frames_begin = 0;
    uint16_t frame_count = 0;
    bool unrecognised = false;
  };

  LineCache() { clear(); }
  void swap(LineCache& other) noexcept {
    slots_.swap(other.slots_);
    std::swap(mask_, other.mask_);
    std::swap(size_, other.size_);
    text_.swap(other.text_);
    frames_.swap(other.frames_);
  }

  const Entry* find(std::string_view line, uint64_t h, bool java) const {
    size_t i = h & mask_;
    while (true) {
      const Slot& s = slots_[i];
      if (s.len_plus_one == 0) return nullptr;
      if (s.hash == h && s.len_plus_one == line.size() + 1 && s.java == java &&
          std::memcmp(text_.data() + s.text_begin, line.data(), line.size()) == 0)
        return &s.entry;
      i = (i + 1) & mask_;
    }
  }
  const FrameId* frames(const Entry& e) const { return frames_.data() + e.frames_begin; }

  // Stores the frames in `pending` for this line; returns the stored entry.
  const Entry* insert(std::string_view line, uint64_t h, bool java, const std::vector<FrameId>& pending,
                      bool unrecognised) {
    if (size_ >= kMaxEntries || text_.size() + line.size() > kMaxText || pending.size() > 0xFFFF ||
        frames_.size() + pending.size() > UINT32_MAX / 2)
      clear();
    if (line.size() > kMaxText || pending.size() > 0xFFFF) return nullptr;  // too big to keep
    if ((size_ + 1) * 2 > slots_.size()) grow();
    size_t i = h & mask_;
    while (slots_[i].len_plus_one != 0) i = (i + 1) & mask_;
    Slot& s = slots_[i];
    s.hash = h;
    s.text_begin = static_cast<uint32_t>(text_.size());
    s.len_plus_one = static_cast<uint32_t>(line.size() + 1);
    s.java = java;
    s.entry.frames_begin = static_cast<uint32_t>(frames_.size());
    s.entry.frame_count = static_cast<uint16_t>(pending.size());
    s.entry.unrecognised = unrecognised;
    text_.append(line);
    frames_.insert(frames_.end(), pending.begin(), pending.end());
    ++size_;
    return &s.entry;
  }

  void clear() {
    slots_.assign(1024, Slot{});
    mask_ = slots_.size() - 1;
    size_ = 0;
    text_.clear();
    frames_.clear();
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t text_begin = 0;
    uint32_t len_plus_one = 0;  // 0 = empty slot
    Entry entry;
    bool java = false;
  };
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.len_plus_one == 0) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].len_plus_one != 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
  std::string text_;
  std::vector<FrameId> frames_;
};

uint64_t parse_uint(std::string_view digits) {
  uint64_t v = 0;
  for (char c : digits) v = v * 10 + static_cast<uint64_t>(c - '0');
  return v;
}

// What a sample period counts: the software clock events count nanoseconds, other events
// their own occurrences ("cycles:u" -> cycles, "cpu/instructions/" -> instructions).
std::string period_unit(std::string_view event) {
  if (event.empty()) return "events";
  if (event.substr(0, 4) == "cpu/" || event.substr(0, 4) == "cpu_") {  // PMU syntax: cpu/cycles/pp
    size_t open = event.find('/');
    size_t close = event.find('/', open + 1);
    if (close != std::string_view::npos) event = event.substr(open + 1, close - open - 1);
  }
  size_t colon = event.find(':');
  if (colon != std::string_view::npos && colon > 0) {
    std::string_view after = event.substr(colon + 1);
    // "cpu-clock:ppp", "cycles:u": modifiers; "sched:sched_switch": a tracepoint, kept whole.
    if (after.find_first_not_of("ukhHGpPSDIW") == std::string_view::npos) event = event.substr(0, colon);
  }
  if (event == "cpu-clock" || event == "task-clock") return "ns";
  return std::string(event);
}

double parse_period(std::string_view digits) {
  if (digits.size() <= 18) return static_cast<double>(parse_uint(digits));
  double v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  return v;
}

// Collapses lines of perf script into a (partial) profile. One per worker thread.
class Collapser {
 public:
  explicit Collapser(const PerfOptions& o) : o_(o) {
    group_category_ = symbols.category(o.tid ? category::kThread : category::kProcess);
  }

  // The event to keep. Unknown until the first event line when empty and not forced.
  void set_filter(const std::string& filter, bool known, bool defaulted) {
    filter_ = filter;
    filter_known_ = known;
    defaulted_ = defaulted;
  }
  const std::string& filter() const { return filter_; }
  bool filter_known() const { return filter_known_; }
  bool filter_defaulted() const { return defaulted_; }

  // Lines of text; the last line may lack its '\n' only at the end of the input.
  void feed(std::string_view text) {
    const char* p = text.data();
    const char* end = p + text.size();
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      const char* line_end = nl ? nl : end;
      line(std::string_view(p, static_cast<size_t>(line_end - p)));
      p = nl ? nl + 1 : end;
    }
  }

  // End of the input: a sample without its closing blank line is dropped, as Perl does, but
  // one-line samples (perf record without -g) are complete as they stand.
  void end_of_input() {
    if (have_pname_ && !sample_has_lines_ && (own_frame_ || one_line_samples_)) end_sample();
    if (have_pname_) ++truncated_;
    have_pname_ = false;
    stack_.clear();
  }

  // End of a part of the input that the next part continues with a sample header (one-line
  // samples have no blank line to cut at): what the header would do, close a sample that has
  // no stack lines.
  void end_of_job() {
    if (have_pname_ && !sample_has_lines_) {
      one_line_samples_ = true;
      end_sample();
    }
  }

  // Per-job line accounting (for "first at line N" across workers).
  void begin_job() {
    job_lines_ = 0;
    job_first_bad_ = 0;
  }
  uint64_t job_lines() const { return job_lines_; }
  uint64_t job_first_bad() const { return job_first_bad_; }

  Symbols symbols;
  StackTable stacks;
  uint64_t truncated_samples() const { return truncated_; }
  // Frees what only reading needed (the line cache).
  void release_scratch() {
    LineCache().swap(cache_);
    std::vector<FrameId>().swap(stack_);
  }
  uint64_t samples = 0, bad_lines = 0, other_events = 0;
  bool any_period_not_one = false;
  bool saw_event_record = false;
  std::vector<uint64_t> samples_by_group;  // by the group frame's id (root frames)
  std::vector<uint64_t> pid_list, tid_list;  // distinct process and thread ids seen

 private:
  void line(std::string_view l) {
    ++job_lines_;
    if (!l.empty() && l[0] == '#') return;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);  // CRLF files
    if (l.empty()) {
      end_sample();
      return;
    }
    if (!is_space(l[0])) {
      EventRecord r;
      if (parse_event_record(l, r)) {
        SampleEvent e;
        e.named = parse_sample_event(l, e.event, e.period, e.own_frame);
        event_line(r, e);
        return;
      }
    }
    stack_line(l);
  }

  static void remember(U64Map& seen, std::vector<uint64_t>& list, uint64_t id) {
    if (id == U64Map::kEmpty) return;
    uint32_t fresh = static_cast<uint32_t>(list.size());
    if (seen.find_or_insert(id, fresh) == fresh) list.push_back(id);
  }

  void bad_line() {
    ++bad_lines;
    if (!job_first_bad_) job_first_bad_ = job_lines_;
  }

  void event_line(const EventRecord& r, const SampleEvent& e) {
    saw_event_record = true;
    // A header right after a header that had no stack lines: samples recorded without -g,
    // one line each. The previous one is complete (where Perl, waiting for a blank line that
    // never comes, would print nothing at all).
    if (have_pname_ && !sample_has_lines_) {
      one_line_samples_ = true;
      end_sample();
    }
    std::string_view event = e.event, period = e.period, own_frame = e.own_frame;
    if (e.named) {
      if (!filter_known_) {
        // By default only the first event type is kept: adding up cycles and instructions
        // would mean nothing.
        filter_.assign(event);
        filter_known_ = true;
        defaulted_ = true;
      } else if (event != filter_) {
        ++other_events;
        return;
      }
    }
    period_ = 1;
    if (!period.empty() && period != "0") {
      period_ = parse_period(period);
      if (period_ != 1) any_period_not_one = true;
    }
    // Without a "/tid" the number is the thread id; so is a tid of 0 (Perl's truth test).
    std::string_view pid = r.pid, tid = r.tid;
    if (tid.empty() || tid == "0") {
      tid = pid;
      pid = "?";
    }
    if (pid != "?") remember(pid_seen_, pid_list, parse_uint(pid.substr(0, 18)));
    remember(tid_seen_, tid_list, parse_uint(tid.substr(0, 18)));

    pname_buf_.assign(r.comm);
    std::replace(pname_buf_.begin(), pname_buf_.end(), ' ', '_');
    if (o_.tid) {
      pname_buf_.push_back('-');
      pname_buf_.append(pid);
      pname_buf_.push_back('/');
      pname_buf_.append(tid);
    } else if (o_.pid) {
      pname_buf_.push_back('-');
      pname_buf_.append(pid);
    }
    if (pname_buf_ != last_pname_) {
      last_pname_ = pname_buf_;
      pname_frames_.clear();
      // A ';' in a comm splits the folded line there; keep the tree the same as the text.
      size_t pos = 0;
      while (true) {
        size_t semi = last_pname_.find(';', pos);
        std::string_view part = std::string_view(last_pname_).substr(pos, semi == std::string::npos ? std::string::npos : semi - pos);
        pname_frames_.push_back(symbols.frame(part, {}, 0, pname_frames_.empty() ? group_category_ : 0));
        if (semi == std::string::npos) break;
        pos = semi + 1;
      }
      java_ = last_pname_ == "java";
    }
    have_pname_ = true;
    sample_has_lines_ = false;
    own_frame_ = !own_frame.empty();
    if (own_frame_) push_own_frame(own_frame);
  }

  // The sample's own ip/symbol/dso printed on its header line: its stack (one frame, or the
  // inlined chain "a->b"). Cached like stack lines, under a hash of its own.
  void push_own_frame(std::string_view text) {
    uint64_t h = hash_bytes(text) ^ 0x9e3779b97f4a7c15ULL;
    const LineCache::Entry* e = cache_.find(text, h, java_);
    if (!e) {
      pending_.clear();
      StackLine s;
      if (parse_own_frame(text, s)) {  // else an ip without a symbol: the process name alone
        names_.clear();
        perf_script::frame_names(s, o_, java_).swap(names_);
        for (const std::string& name : names_) pending_.push_back(symbols.frame(name));
      }
      e = cache_.insert(text, h, java_, pending_, false);
      if (!e) {  // not cacheable (a huge line): use it directly
        for (size_t k = pending_.size(); k-- > 0;) stack_.push_back(pending_[k]);
        return;
      }
    }
    const FrameId* f = cache_.frames(*e);
    for (uint32_t k = e->frame_count; k-- > 0;) stack_.push_back(f[k]);
  }

  void stack_line(std::string_view l) {
    bool java = have_pname_ && java_;
    uint64_t h = hash_bytes(l);
    const LineCache::Entry* e = cache_.find(l, h, java);
    if (!e) {
      std::string_view header;
      EventRecord r;
      SampleEvent se;
      if (indented_sample_header(l, header, r, se)) {  // not cached: headers carry timestamps
        event_line(r, se);
        return;
      }
      e = compute_line(l, h, java);
    }
    if (!e) return;  // an enormous line, already handled
    if (e->unrecognised) {
      bad_line();
      return;
    }
    if (!have_pname_) return;  // a sample of another event, or no sample header
    sample_has_lines_ = true;
    const FrameId* f = cache_.frames(*e);
    // Lines come leaf first; within a line the outer inlined frame comes first.
    for (uint32_t k = e->frame_count; k-- > 0;) stack_.push_back(f[k]);
  }

  const LineCache::Entry* compute_line(std::string_view l, uint64_t h, bool java) {
    StackLine s;
    pending_.clear();
    if (!parse_stack_line(l, s)) {
      const LineCache::Entry* e = cache_.insert(l, h, java, pending_, true);
      if (!e) bad_line();
      return e;
    }
    names_.clear();
    perf_script::frame_names(s, o_, java).swap(names_);
    for (const std::string& name : names_) pending_.push_back(symbols.frame(name));
    const LineCache::Entry* e = cache_.insert(l, h, java, pending_, false);
    if (!e && have_pname_)  // not cacheable (a huge line): use it directly
      for (size_t k = pending_.size(); k-- > 0;) stack_.push_back(pending_[k]);
    return e;
  }

  void end_sample() {
    if (!have_pname_) return;
    key_.assign(pname_frames_.begin(), pname_frames_.end());
    key_.insert(key_.end(), stack_.rbegin(), stack_.rend());
    stacks.add(key_.data(), static_cast<uint32_t>(key_.size()), hash_frames(key_.data(), key_.size()), period_);
    ++samples;
    FrameId g = pname_frames_[0];
    if (g >= samples_by_group.size()) samples_by_group.resize(g + 1, 0);
    ++samples_by_group[g];
    stack_.clear();
    have_pname_ = false;
  }

  const PerfOptions& o_;
  CategoryId group_category_;
  std::string filter_;
  bool filter_known_ = false, defaulted_ = false;
  // The sample being read.
  bool have_pname_ = false, java_ = false;
  bool sample_has_lines_ = false;   // stack lines seen since the header
  bool own_frame_ = false;          // the header carried the sample's own frame (no -g)
  bool one_line_samples_ = false;   // headers followed headers: samples of one line each
  double period_ = 1;
  std::string pname_buf_, last_pname_;
  std::vector<FrameId> pname_frames_;
  std::vector<FrameId> stack_;  // leaf first
  std::vector<FrameId> key_;    // the sample's stack, root first
  // Scratch.
  LineCache cache_;
  std::vector<FrameId> pending_;
  std::vector<std::string> names_;
  uint64_t job_lines_ = 0, job_first_bad_ = 0, truncated_ = 0;
  U64Map pid_seen_{64}, tid_seen_{64};
};

// The first event name in `text`, as the Perl script would meet it.
bool find_first_event(std::string_view text, std::string& event) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (l.empty() || l[0] == '#') continue;
    if (l.back() == '\r') l.remove_suffix(1);
    EventRecord r;
    std::string_view ev, period, own_frame, header;
    if (is_space(l[0])) {
      if (!indented_sample_header(l, header, r)) continue;
      l = header;
    }
    if (parse_event_record(l, r) && parse_sample_event(l, ev, period, own_frame)) {
      event.assign(ev);
      return true;
    }
  }
  return false;
}

// Where the text can be cut so that the next part starts a new sample: just after the last
// blank line. 0 when there is none.
size_t last_sample_boundary(std::string_view text, bool starts_line_after_newline) {
  const void* last = memrchr(text.data(), '\n', text.size());
  if (!last) return 0;
  size_t end = static_cast<size_t>(static_cast<const char*>(last) - text.data());  // a '\n'
  // Samples recorded without -g are one line each, with no blank line between them: when the
  // last line and the one before it are both sample headers, cut before the last one (the
  // reader closes a header-only sample at the next header, so this is a boundary for -g
  // text too).
  auto is_header_start = [&](size_t at) {
    if (at >= text.size() || text[at] == '#' || text[at] == '\n') return false;
    if (!is_space(text[at])) return true;
    size_t nl = text.find('\n', at);
    std::string_view l = text.substr(at, (nl == std::string_view::npos ? text.size() : nl) - at);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    std::string_view header;
    EventRecord r;
    return indented_sample_header(l, header, r);
  };
  if (end > 0) {
    const void* before = memrchr(text.data(), '\n', end);
    if (before) {
      size_t last_start = static_cast<size_t>(static_cast<const char*>(before) - text.data()) + 1;
      size_t prev_start = 0;
      if (last_start >= 2) {
        const void* p = memrchr(text.data(), '\n', last_start - 1);
        prev_start = p ? static_cast<size_t>(static_cast<const char*>(p) - text.data()) + 1 : 0;
      }
      if ((prev_start > 0 || starts_line_after_newline) && is_header_start(last_start) && is_header_start(prev_start))
        return last_start;
    }
  }
  // Otherwise just after the last blank line.
  while (true) {
    size_t start = 0;
    if (end > 0) {
      const void* prev = memrchr(text.data(), '\n', end);
      start = prev ? static_cast<size_t>(static_cast<const char*>(prev) - text.data()) + 1 : 0;
    }
    size_t len = end - start;
    bool line_start_known = start > 0 || starts_line_after_newline;
    if (line_start_known && (len == 0 || (len == 1 && text[start] == '\r'))) return end + 1;
    if (start == 0) return 0;
    end = start - 1;
  }
}

std::string thousands(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

// Moves the distinct stacks of `from` into `into` (frames re-interned by name), freeing them.
void absorb(Collapser& into, Collapser& from) {
  std::vector<FrameId> map(from.symbols.frame_count());
  for (FrameId f = 0; f < map.size(); ++f) {
    const Frame& fr = from.symbols[f];
    map[f] = into.symbols.frame(from.symbols.strings[fr.name], from.symbols.strings[fr.file], fr.line,
                                into.symbols.category(from.symbols.category_name(fr.category)));
  }
  from.stacks.rewrite([&](FrameId* f, uint32_t n, double weight) {
    for (uint32_t k = 0; k < n; ++k) f[k] = map[f[k]];
    into.stacks.add(f, n, hash_frames(f, n), weight);
  });
  from.stacks = StackTable();
}

void build_profile(Collapser& c, Profile& out) {
  stack_table::build_profile(stack_table::SymbolFrames(c.symbols), c.stacks, out);
}

struct JobResult {
  uint64_t lines = 0, first_bad = 0;
};

// Several workers: the reading thread cuts the text at sample boundaries into jobs; each worker
// collapses its jobs into its own Collapser.
void collapse_parallel(TextSource& src, Progress& progress, unsigned workers, const PerfOptions& o,
                       std::vector<std::unique_ptr<Collapser>>& collapsers, std::vector<JobResult>& results,
                       std::string& filter, bool& filter_known, bool& defaulted) {
  // The event filter as known when the job was cut: the first event of the input becomes the
  // filter as soon as the reading thread sees it, in input order.
  struct JobFilter {
    std::string filter;
    bool known = false, defaulted = false;
  };
  using Job = parallel_feed::Job<JobFilter>;
  for (unsigned w = 0; w < workers; ++w) collapsers.push_back(std::make_unique<Collapser>(o));
  std::mutex results_mu;
  parallel_feed::run_records<JobFilter>(
      src, progress, workers, last_sample_boundary,
      [&](Job& j) {
        if (!filter_known && find_first_event(j.text, filter)) {
          filter_known = true;
          defaulted = true;
        }
        j.extra = JobFilter{filter, filter_known, defaulted};
      },
      [&](unsigned w, const Job& j) {
        Collapser& c = *collapsers[w];
        c.set_filter(j.extra.filter, j.extra.known, j.extra.defaulted);
        c.begin_job();
        c.feed(j.text);
        if (j.last)
          c.end_of_input();
        else
          c.end_of_job();
        std::lock_guard<std::mutex> lock(results_mu);
        if (results.size() <= j.index) results.resize(j.index + 1);
        results[j.index] = JobResult{c.job_lines(), c.job_first_bad()};
      });
}

}  // namespace

bool looks_like_perf_script(std::string_view head) {
  // The first line that is not a comment must be a sample header, and the line after it a
  // stack frame or the blank line that ends the sample. Without -g a sample is one line: a
  // header that carries its own ip/symbol, or a header ending at the event followed by another.
  std::string decoded;
  head = head_as_utf8(head, decoded);
  size_t pos = 0;
  bool header_seen = false, header_has_event = false;
  while (pos < head.size()) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) {
      // Cut off by the head window (a huge frame line): an indented line after a header.
      std::string_view rest = head.substr(pos);
      return header_seen && rest.size() > 1 && (rest[0] == ' ' || rest[0] == '\t');
    }
    std::string_view l = head.substr(pos, nl - pos);
    pos = nl + 1;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (!header_seen) {
      if (l.empty() || l[0] == '#') continue;
      EventRecord r;
      std::string_view trimmed;
      if (!l.empty() && (l[0] == ' ' || l[0] == '\t')) {
        if (!indented_sample_header(l, trimmed, r)) return false;
        l = trimmed;
      }
      if (!parse_event_record(l, r)) return false;
      std::string_view event, period, own_frame;
      header_has_event = parse_sample_event(l, event, period, own_frame);
      if (!own_frame.empty()) return true;
      header_seen = true;
      continue;
    }
    if (l.empty()) return true;
    if (l[0] == '#') continue;
    EventRecord r;
    std::string_view event, period, own_frame, trimmed;
    if (header_has_event && indented_sample_header(l, trimmed, r)) return true;
    StackLine s;
    if (parse_stack_line(l, s)) return true;
    return header_has_event && parse_event_record(l, r) && parse_sample_event(l, event, period, own_frame);
  }
  return false;
}

Profile read_perf_script(Input& input, const ReadOptions& options) {
  // Big buffers (chunks, tables, the tree's arrays) straight from mmap and back to the system
  // when freed: glibc would otherwise raise this threshold after the first free and keep the
  // read buffers' pages while the tree is built (peak memory).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  const PerfOptions& o = options.perf;
  TextSource src(input);
  Progress progress(options.progress, "reading " + input.path(), input.size_on_disk());

  const unsigned workers = parallel_feed::workers_for(input, options);

  std::string filter = o.event_filter;
  bool filter_known = !filter.empty(), defaulted = false;
  std::vector<std::unique_ptr<Collapser>> collapsers;
  std::vector<JobResult> results;
  if (workers == 1) {
    collapsers.push_back(std::make_unique<Collapser>(o));
    Collapser& c = *collapsers[0];
    c.set_filter(filter, filter_known, false);
    c.begin_job();
    std::string_view chunk;
    while (src.next(chunk)) {
      c.feed(chunk);
      progress.update(src.consumed());
    }
    c.end_of_input();
    results.push_back(JobResult{c.job_lines(), c.job_first_bad()});
    filter = c.filter();
    filter_known = c.filter_known();
    defaulted = c.filter_defaulted();
  } else {
    collapse_parallel(src, progress, workers, o, collapsers, results, filter, filter_known, defaulted);
  }
  progress.finish();

  // Totals over the workers.
  uint64_t samples = 0, bad = 0, other = 0, truncated = 0;
  bool periods = false, saw_header = false;
  std::vector<std::pair<std::string, uint64_t>> by_group;  // name, samples
  for (auto& c : collapsers) {
    samples += c->samples;
    bad += c->bad_lines;
    other += c->other_events;
    truncated += c->truncated_samples();
    periods |= c->any_period_not_one;
    saw_header |= c->saw_event_record;
    for (FrameId g = 0; g < c->samples_by_group.size(); ++g) {
      if (!c->samples_by_group[g]) continue;
      std::string name(c->symbols.name(g));
      auto it = std::find_if(by_group.begin(), by_group.end(), [&](const auto& e) { return e.first == name; });
      if (it == by_group.end())
        by_group.emplace_back(name, c->samples_by_group[g]);
      else
        it->second += c->samples_by_group[g];
    }
  }
  uint64_t first_bad_line = 0, lines_before = 0;
  for (const JobResult& r : results) {
    if (r.first_bad && !first_bad_line) first_bad_line = lines_before + r.first_bad;
    lines_before += r.lines;
  }
  // Distinct pids / tids over the workers.
  auto distinct = [&](std::vector<uint64_t> Collapser::*list) {
    std::vector<uint64_t> all;
    for (auto& c : collapsers) all.insert(all.end(), ((*c).*list).begin(), ((*c).*list).end());
    std::sort(all.begin(), all.end());
    return static_cast<size_t>(std::unique(all.begin(), all.end()) - all.begin());
  };
  size_t pid_count = distinct(&Collapser::pid_list), tid_count = distinct(&Collapser::tid_list);

  if (samples == 0 && !saw_header && bad > 0)
    throw InputError(input.path(), "line " + std::to_string(first_bad_line),
                     "not perf script text: expected a sample header such as \"comm 1234 [000] 12.345: 1 cycles:\"");

  for (auto& c : collapsers) c->release_scratch();
  for (size_t w = 1; w < collapsers.size(); ++w) absorb(*collapsers[0], *collapsers[w]);
  malloc_trim(0);  // give the read buffers back before the tree is built (peak memory)
  Profile base;
  build_profile(*collapsers[0], base);
  collapsers.clear();
  base.source_format = "perf script";
  base.inputs.push_back(input.path());
  if (filter_known)
    base.facts.emplace_back("event", filter + (defaulted ? " (the first event in the input; --event-filter picks another)" : ""));
  base.facts.emplace_back("samples", thousands(samples));
  if (periods) {
    base.columns[0].unit = period_unit(filter);
    base.facts.emplace_back("weights", "sample periods of " + (filter_known ? filter : std::string("the event")) + ", in " +
                                           base.columns[0].unit + " (as stackcollapse-perf.pl counts them)");
  }
  if (other) base.facts.emplace_back("samples of other events (skipped)", thousands(other));
  if (pid_count) base.facts.emplace_back("process ids", std::to_string(pid_count));
  if (tid_count) base.facts.emplace_back("thread ids", std::to_string(tid_count));
  std::sort(by_group.begin(), by_group.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::string group_kind = o.tid ? "threads" : o.pid ? "processes" : "commands";
  base.facts.emplace_back(group_kind, std::to_string(by_group.size()));
  std::string top;
  for (size_t i = 0; i < by_group.size() && i < 10; ++i) {
    if (i) top += ", ";
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", samples ? 100.0 * static_cast<double>(by_group[i].second) / static_cast<double>(samples) : 0.0);
    top += by_group[i].first + " " + thousands(by_group[i].second) + " (" + pct + ")";
  }
  if (by_group.size() > 10) top += ", ...";
  if (!by_group.empty()) base.facts.emplace_back("samples by " + group_kind.substr(0, group_kind.size() - 1), top);

  if (bad)
    base.count("lines that are neither a sample header nor a stack frame (skipped; first at line " +
                   std::to_string(first_bad_line) + ")",
               bad);
  if (other && defaulted)
    base.count("samples of other events skipped (kept only '" + filter + "', the first event; choose with --event-filter)",
               other);
  if (truncated) base.count("last sample not ended by a blank line (dropped, as stackcollapse-perf.pl does)", truncated);
  if (src.decode_errors()) base.count("invalid UTF-16 (replaced by U+FFFD)", src.decode_errors());
  return base;
}

}  // namespace flamefold
