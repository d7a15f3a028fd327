// DTrace ustack()/stack()/jstack() aggregations (as inferno-collapse-dtrace and
// stackcollapse.pl read them) and SystemTap print_stack() aggregations (stackcollapse-stap.pl).
// Both print each stack leaf first, one frame a line, then its count alone on a line.
#include <cstring>
#include <string>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/readers/text/collapse.h"
#include "flamefold/readers/text/collapse_common.h"
#include "flamefold/readers/text/parallel_feed.h"
#include "flamefold/readers/text/stack_table.h"
#include "flamefold/strings.h"

namespace flamefold {

using namespace collapse;

namespace {

// The frames of the stack being read, in one buffer reused from stack to stack (no string per
// frame). Lines come leaf first; a line gives one frame, or several (an inlined chain, kept in
// the line's order). join() gives them root first, separated by ';'.
class LeafFirstStack {
 public:
  void start_line() { line_first_.push_back(ends_.size()); }
  std::string& text() { return text_; }  // the current frame's text is appended here
  void end_frame() { ends_.push_back(text_.size()); }
  bool empty() const { return ends_.empty(); }
  void clear() {
    text_.clear();
    ends_.clear();
    line_first_.clear();
  }
  // f(frame) for each frame, root first. `leaf_offset`: the leaf's offset (from its last '+')
  // is dropped (--includeoffset).
  template <typename F>
  void each_frame(bool leaf_offset, F&& f) const {
    for (size_t l = line_first_.size(); l-- > 0;) {
      const size_t from = line_first_[l], to = l + 1 < line_first_.size() ? line_first_[l + 1] : ends_.size();
      for (size_t k = from; k < to; ++k) {
        const size_t begin = k ? ends_[k - 1] : 0;
        std::string_view frame(text_.data() + begin, ends_[k] - begin);
        if (leaf_offset && l == 0 && k + 1 == to) frame = frame.substr(0, frame.rfind('+'));
        f(frame);
      }
    }
  }

 private:
  std::string text_;
  std::vector<size_t> ends_;        // where each frame's text ends
  std::vector<size_t> line_first_;  // each line's first frame
};

// One frame line of DTrace output, named as inferno-collapse-dtrace names it: the offset from
// the last '+' dropped, C++ arguments dropped, Java's 'L' prefixes and ';' separators tidied,
// and "a->b->c" (inlined frames) split into a, b_[i], c_[i].
// With `keep_offset` (--includeoffset) the offset stays and every frame is treated as possibly
// inlined, C++ and Java, as inferno does.
void dtrace_frame(std::string_view line, LeafFirstStack& stack, bool keep_offset) {
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
  std::string& out = stack.text();
  auto tidy = [&](std::string_view f) {
    const size_t at = out.size();
    out += f;
    if (semicolon)
      for (size_t i = at; i < out.size(); ++i)
        if (out[i] == ';') out[i] = ':';
  };
  stack.start_line();
  if (!inlines) {
    tidy(frame);
    stack.end_frame();
    return;
  }
  bool first = true;
  size_t pos = 0;
  while (true) {
    size_t arrow = frame.find("->", pos);
    std::string_view f = frame.substr(pos, arrow == std::string_view::npos ? std::string_view::npos : arrow - pos);
    while (!f.empty() && f[0] == 'L') f.remove_prefix(1);
    tidy(f);
    if (!first) out += "_[i]";
    first = false;
    stack.end_frame();
    if (arrow == std::string_view::npos) break;
    pos = arrow + 2;
  }
}

// Calls f(line) for each line of a job's text (as collapse::Lines splits them: without '\n'
// and a '\r' before it).
template <typename F>
void each_line(std::string_view text, F&& f) {
  size_t pos = 0;
  while (pos < text.size()) {
    const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
    const size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - text.data()) : text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(line);
    pos = end + 1;
  }
}

// Where the text up to its last count line ends (0: none): every stack is whole before it, so
// workers can take the pieces apart. Chunks end at a line break (TextSource).
template <typename IsCount>
size_t after_last_count(std::string_view chunk, IsCount&& is_count) {
  size_t stop = chunk.size();
  while (stop > 0) {
    const size_t content_end = chunk[stop - 1] == '\n' ? stop - 1 : stop;
    const void* nl = content_end ? memrchr(chunk.data(), '\n', content_end) : nullptr;
    const size_t begin = nl ? static_cast<size_t>(static_cast<const char*>(nl) - chunk.data()) + 1 : 0;
    std::string_view line = chunk.substr(begin, content_end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (is_count(line)) return stop;
    stop = begin;
  }
  return 0;
}

// What one worker gathered from its pieces of the input: its distinct stacks with their counts,
// as sequences of frame names of its own (no joined text per stack: these formats' frames never
// hold a ';', so splitting the peer's line at ';' gives the same frames).
struct StackWorker {
  LeafFirstStack stack;
  StringTable names;
  stack_table::StackTable table;
  std::vector<FrameId> ids;
  uint64_t stacks = 0;
  bool frames_left = false;  // frames after the input's last count

  // The stack read so far ends with this count. A stack without frames is the peer's empty line,
  // one frame named "" (as the text "" splits); a zero count adds nothing (flamegraph.pl skips
  // stacks whose counts add up to 0, and counts are never negative).
  void count(double n, bool leaf_offset = false) {
    if (n != 0) {
      ids.clear();
      stack.each_frame(leaf_offset, [&](std::string_view f) { ids.push_back(names.intern(f)); });
      if (ids.empty()) ids.push_back(names.intern(""));
      table.add(ids.data(), static_cast<uint32_t>(ids.size()), stack_table::hash_frames(ids.data(), ids.size()), n);
    }
    stack.clear();
    ++stacks;
  }
};

struct SkipHeader {
  size_t bytes = 0;  // of the job's text that still belong to the header
};

// Both formats: a stack's lines, then its count alone on a line. The input is cut after count
// lines into jobs read by several workers (each into a table of its own, added up at the end),
// since a count line always ends the stack before it. read_line(worker, line) reads one line of
// a job; `header` (DTrace) skips the lines up to the first blank one.
template <typename IsCount, typename ReadLine>
Profile read_stack_counts(Input& input, const ReadOptions& options, std::string_view format, bool header,
                          IsCount&& is_count, ReadLine&& read_line) {
  TextSource src(input);
  Progress progress(options.progress, "reading " + input.path(), input.size_on_disk());
  const unsigned workers = parallel_feed::workers_for(input, options);
  std::vector<StackWorker> results(workers);
  bool header_ended = !header;
  parallel_feed::run_records<SkipHeader>(
      src, progress, workers, [&](std::string_view chunk, bool) { return after_last_count(chunk, is_count); },
      [&](parallel_feed::Job<SkipHeader>& j) {  // on the reading thread, in input order
        // The header: the lines up to the first blank one, maybe over several jobs.
        size_t pos = 0;
        while (!header_ended && pos < j.text.size()) {
          const size_t nl = j.text.find('\n', pos);
          const size_t end = nl == std::string::npos ? j.text.size() : nl;
          std::string_view line = std::string_view(j.text).substr(pos, end - pos);
          if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
          pos = nl == std::string::npos ? j.text.size() : nl + 1;
          header_ended = trim(line).empty();
        }
        j.extra.bytes = pos;
      },
      [&](unsigned w, const parallel_feed::Job<SkipHeader>& j) {
        StackWorker& r = results[w];
        each_line(std::string_view(j.text).substr(j.extra.bytes), [&](std::string_view line) { read_line(r, line); });
        if (j.last && !r.stack.empty()) r.frames_left = true;
      });
  progress.finish();
  // The workers' stacks in one table, their names as the profile's frames.
  Symbols symbols;
  stack_table::StackTable table;
  uint64_t stacks = 0;
  bool frames_left = false;
  std::vector<FrameId> frame_of;
  for (StackWorker& r : results) {
    stacks += r.stacks;
    frames_left = frames_left || r.frames_left;
    frame_of.resize(r.names.size());
    for (StrId i = 0; i < r.names.size(); ++i) frame_of[i] = symbols.frame(r.names[i]);
    r.table.rewrite([&](FrameId* f, uint32_t n, double weight) {
      for (uint32_t k = 0; k < n; ++k) f[k] = frame_of[f[k]];
      table.add(f, n, stack_table::hash_frames(f, n), weight);
    });
    r = StackWorker();
  }
  Profile p;
  stack_table::build_profile(stack_table::SymbolFrames(symbols), table, p);
  if (!p.columns.empty()) p.columns[0].unit = "samples";
  p.source_format = std::string(format);
  p.inputs.push_back(input.path());
  p.facts.emplace_back("stacks", std::to_string(stacks));
  if (!header_ended) p.count("no blank line after the header (nothing read)");
  if (frames_left) p.count("frames after the last count (no count: skipped)");
  return p;
}

}  // namespace

Profile read_dtrace(Input& input, const ReadOptions& options) {
  const bool offset = options.collapse.include_offset;
  auto is_count = [](std::string_view line) {
    uint64_t n;
    return parse_usize(trim(line), n);
  };
  return read_stack_counts(input, options, "dtrace", /*header=*/true, is_count, [offset](StackWorker& r, std::string_view line) {
    std::string_view t = trim(line);
    if (t.empty()) return;
    uint64_t count;
    if (parse_usize(t, count)) {
      r.count(static_cast<double>(count), offset);
      return;
    }
    dtrace_frame(t, r.stack, offset);
  });
}

Profile read_stap(Input& input, const ReadOptions& options) {
  auto is_count = [](std::string_view line) {
    std::string_view digits;
    return perl_count_line(line, digits);
  };
  return read_stack_counts(input, options, "stap", /*header=*/false, is_count, [](StackWorker& r, std::string_view line) {
    std::string_view digits;
    if (perl_count_line(line, digits)) {
      r.count(perl_number(digits));
      return;
    }
    std::string_view f = perl_trim_start(line);
    if (f.empty()) return;
    size_t plus = f.rfind('+');  // the offset
    if (plus != std::string_view::npos) f = f.substr(0, plus);
    size_t colon = f.rfind(" : ");  // "0xffffffff8104f0f6 : " before the symbol
    if (colon != std::string_view::npos) f = f.substr(colon + 3);
    r.stack.start_line();
    r.stack.text() += f.empty() ? std::string_view("-") : f;
    r.stack.end_frame();
  });
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
