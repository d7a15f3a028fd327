#include "flamefold/readers/folded.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <mutex>
#include <thread>
#include <cstring>
#include <string>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "flamefold/errors.h"
#include "flamefold/hash.h"
#include "flamefold/heap.h"
#include "flamefold/progress.h"
#include "flamefold/readers/parallel_feed.h"
#include "flamefold/readers/stack_table.h"
#include "flamefold/readers/text_source.h"

namespace flamefold {

namespace {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\n'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The trailing count of a line, flamegraph.pl's /\s+?(\d+(?:\.\d*)?)$/: where it starts
// (just after the blank before it) and its value. False when the line has none.
bool split_count(std::string_view line, size_t& count_start, double& value) {
  size_t end = line.size(), i = end;
  while (i > 0 && is_digit(line[i - 1])) --i;
  size_t dot = std::string_view::npos;
  if (i > 0 && line[i - 1] == '.') {  // a fraction: digits before the dot are required
    dot = i - 1;
    i = dot;
    while (i > 0 && is_digit(line[i - 1])) --i;
    if (i == dot) return false;
  } else if (i == end) {
    return false;
  }
  if (i == 0 || !is_space(line[i - 1])) return false;
  count_start = i;
  std::string_view digits = line.substr(i);
  if (dot == std::string_view::npos && digits.size() <= 15) {
    uint64_t v = 0;
    for (char c : digits) v = v * 10 + static_cast<uint64_t>(c - '0');
    value = static_cast<double>(v);
    return true;
  }
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (r.ec != std::errc()) {
    if (digits.back() != '.') return false;
    r = std::from_chars(digits.data(), digits.data() + digits.size() - 1, value);  // "12."
    if (r.ec != std::errc()) return false;
  }
  return true;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

// Length of the common prefix of a and b, 16 bytes at a time (sorted lines share hundreds).
size_t common_prefix(std::string_view a, std::string_view b) {
  size_t limit = std::min(a.size(), b.size()), i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= limit; i += 16) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.data() + i));
    __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.data() + i));
    unsigned differ = ~static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y))) & 0xFFFFu;
    if (differ) return i + static_cast<size_t>(__builtin_ctz(differ));
  }
#endif
  for (; i + 8 <= limit; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) break;
  }
  while (i < limit && a[i] == b[i]) ++i;
  return i;
}

std::string_view trim_end(std::string_view line) {
  while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
  return line;
}

// Frame text -> frame id, one probe per frame instead of interning the name and then the frame.
class FrameCache {
 public:
  FrameCache() { slots_.assign(1024, Slot{}); }
  // The id stored for text (hash h), or kNone.
  FrameId find(std::string_view text, uint64_t h) const {
    for (size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (s.frame == kNone) return kNone;
      if (s.hash == h && s.len == text.size() && std::memcmp(text_.data() + s.begin, text.data(), text.size()) == 0)
        return s.frame;
    }
  }
  void prefetch_slot(uint64_t h) const { __builtin_prefetch(&slots_[h & (slots_.size() - 1)]); }
  // The text of the entry in h's home slot (a hint only: it may be another entry's, or none).
  void prefetch_text(uint64_t h) const {
    const Slot& s = slots_[h & (slots_.size() - 1)];
    if (s.frame != kNone) __builtin_prefetch(text_.data() + s.begin);
  }
  void insert(std::string_view text, uint64_t h, FrameId f) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    size_t i = h & (slots_.size() - 1);
    while (slots_[i].frame != kNone) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = Slot{h, text_.size(), text.size(), f};
    text_.append(text);
    ++size_;
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    size_t begin = 0, len = 0;
    FrameId frame = kNone;
  };
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.frame == kNone) continue;
      size_t i = s.hash & (slots_.size() - 1);
      while (slots_[i].frame != kNone) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  std::string text_;
  size_t size_ = 0;
};

// Reads folded lines into frames and stacks. Several can read parts of one input in
// parallel (each sees its parts in input order) and be combined with absorb() at the end.
class FoldedReader {
 public:
  explicit FoldedReader(bool cpython) : cpython(cpython) { thread_category_ = symbols.category(category::kThread); }

  // Whole lines of the input (a job); line numbers in job_* count from the job's start.
  void feed(std::string_view text) {
    job_lines = job_first_bad = 0;
    const char* at = text.data();
    const char* end = at + text.size();
    while (at < end) {
      const char* nl = static_cast<const char*>(std::memchr(at, '\n', static_cast<size_t>(end - at)));
      const char* line_end = nl ? nl : end;
      line(std::string_view(at, static_cast<size_t>(line_end - at)));
      at = nl ? nl + 1 : end;
    }
    lines += job_lines;
    // The previous line must outlive the job's buffer: copy it once per job, not per line.
    if (prev_.data() != prev_owned_.data()) {
      prev_owned_.assign(prev_);
      prev_ = prev_owned_;
    }
  }

  // Takes over another reader's stacks (frames re-interned by name) and counts.
  void absorb(FoldedReader& other) {
    std::vector<FrameId> map(other.symbols.frame_count());
    for (FrameId f = 0; f < map.size(); ++f) {
      const Frame& fr = other.symbols[f];
      map[f] = symbols.frame(other.symbols.strings[fr.name], other.symbols.strings[fr.file], fr.line,
                             symbols.category(other.symbols.category_name(fr.category)));
    }
    if (sorted_ && other.sorted_) {
      list_.append(other.list_, map);
    } else {
      use_table();
      auto add = [&](FrameId* f, uint32_t n, double weight) {
        for (uint32_t k = 0; k < n; ++k) f[k] = map[f[k]];
        table_.add(f, n, stack_table::hash_frames(f, n), weight);
      };
      other.list_.rewrite(add);
      other.table_.rewrite(add);
    }
    lines += other.lines;
    stacks += other.stacks;
    bad += other.bad;
    differential += other.differential;
  }

  void build(Profile& p) {
    if (sorted_)
      stack_table::build_profile(symbols, list_, p);
    else
      stack_table::build_profile(symbols, table_, p);
  }

  const bool cpython;
  uint64_t lines = 0, stacks = 0, bad = 0, differential = 0;
  uint64_t job_lines = 0, job_first_bad = 0;  // of the last feed()
  Symbols symbols;

 private:
  void line(std::string_view l) {
    ++job_lines;
    l = trim_end(l);
    if (l.empty()) return;
    size_t count_at;
    double count;
    if (!split_count(l, count_at, count)) {
      if (!job_first_bad) job_first_bad = job_lines;
      ++bad;
      return;
    }
    std::string_view frames = l.substr(0, count_at - 1);
    // A second count before this one: a differential line (flamegraph.pl draws the second).
    size_t second_at;
    double first;
    if (split_count(frames, second_at, first)) {
      ++differential;
      frames = frames.substr(0, second_at - 1);
    }
    while (!frames.empty() && frames.back() == ';') frames.remove_suffix(1);  // Perl's split
    ++stacks;
    size_t common = common_prefix(frames, prev_);
    if (common == frames.size() && common == prev_.size() && have_prev_) {
      add_repeat(count);  // the same stack as the line before
      return;
    }
    // Sorted so far: every line sorts after the one before (byte order). While that holds,
    // stacks are only listed; a line out of order moves them into a hash table.
    if (sorted_ && have_prev_ && common < prev_.size() &&
        (common == frames.size() || static_cast<unsigned char>(frames[common]) < static_cast<unsigned char>(prev_[common])))
      use_table();
    split(frames, common);
    have_prev_ = true;
    if (sorted_)
      list_.add(prev_frames_.data(), static_cast<uint32_t>(prev_frames_.size()), count);
    else
      table_.add(prev_frames_.data(), static_cast<uint32_t>(prev_frames_.size()),
                 stack_table::hash_frames(prev_frames_.data(), prev_frames_.size()), count);
  }

  void add_repeat(double count) {
    if (sorted_)
      list_.add_to_last(count);
    else
      table_.add(prev_frames_.data(), static_cast<uint32_t>(prev_frames_.size()),
                 stack_table::hash_frames(prev_frames_.data(), prev_frames_.size()), count);
  }

  void use_table() {
    if (!sorted_) return;
    list_.move_into(table_);
    sorted_ = false;
  }

  // The frames of a stack, into prev_frames_; frames shared with the previous line (sorted
  // input shares long prefixes) are not interned again.
  void split(std::string_view frames, size_t common) {
    size_t keep = 0;  // frames of the previous line that this one shares
    while (keep < prev_ends_.size() && prev_ends_[keep] < common) ++keep;
    if (keep < prev_ends_.size() && prev_ends_[keep] == frames.size() && common == frames.size()) ++keep;
    prev_ends_.resize(keep);
    prev_frames_.resize(keep);
    size_t pos = keep ? prev_ends_.back() + 1 : 0;
    // Hash the new frames first and prefetch their cache slots, then the texts those slots
    // point at: the lookups below then overlap their cache misses instead of queueing them.
    pending_.clear();
    while (pos <= frames.size() && !frames.empty()) {
      size_t semi = frames.find(';', pos);
      if (semi == std::string_view::npos) semi = frames.size();
      bool first = keep == 0 && pending_.empty();
      uint64_t h = hash_bytes(frames.substr(pos, semi - pos)) ^ (first ? 0x9e3779b97f4a7c15ULL : 0);
      cache_.prefetch_slot(h);
      pending_.push_back(Pending{pos, semi, h, first});
      pos = semi + 1;
    }
    for (const Pending& p : pending_) cache_.prefetch_text(p.hash);
    for (const Pending& p : pending_) {
      prev_frames_.push_back(frame(frames.substr(p.begin, p.end - p.begin), p.hash, p.first));
      prev_ends_.push_back(p.end);
    }
    prev_ = frames;
  }

  FrameId frame(std::string_view text, uint64_t h, bool first) {
    FrameId f = cache_.find(text, h);
    if (f == kNone) {
      f = make_frame(text, first);
      cache_.insert(text, h, f);
    }
    return f;
  }

  FrameId make_frame(std::string_view name, bool first) {
    if (!cpython) return symbols.frame(name);
    if (first && name.substr(0, 4) == "tid:") return symbols.frame(name, {}, 0, thread_category_);
    // file.py:func:line (line 0 would not survive the round trip: keep such names whole).
    size_t c2 = name.rfind(':');
    if (c2 == std::string_view::npos || c2 == 0) return symbols.frame(name);
    size_t c1 = name.rfind(':', c2 - 1);
    std::string_view line_text = name.substr(c2 + 1);
    if (c1 == std::string_view::npos || c1 == 0 || !all_digits(line_text) || line_text.size() > 9)
      return symbols.frame(name);
    uint32_t ln = 0;
    std::from_chars(line_text.data(), line_text.data() + line_text.size(), ln);
    if (ln == 0 || line_text[0] == '0') return symbols.frame(name);
    return symbols.frame(name.substr(c1 + 1, c2 - c1 - 1), name.substr(0, c1), ln);
  }

  CategoryId thread_category_;
  FrameCache cache_;
  bool sorted_ = true, have_prev_ = false;
  stack_table::StackList list_;
  stack_table::StackTable table_;
  std::string_view prev_;   // the previous line's frames (in the job's text, or prev_owned_)
  std::string prev_owned_;
  std::vector<size_t> prev_ends_;
  std::vector<FrameId> prev_frames_;
  struct Pending {
    size_t begin, end;
    uint64_t hash;
    bool first;
  };
  std::vector<Pending> pending_;  // the new frames of the current line
};

}  // namespace

bool looks_like_folded(std::string_view head) {
  std::string decoded;
  head = head_as_utf8(head, decoded);
  // Most of the first non-blank lines must end in " <number>"; perf script's tab-indented
  // frames and '#' comments count against.
  int good = 0, bad = 0;
  size_t pos = 0;
  size_t at;
  double count;
  while (pos < head.size() && good + bad < 20) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) break;  // the last line may be cut off by the head window
    std::string_view line = trim_end(head.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.empty()) continue;
    if (line[0] == '\t' || line[0] == '#') {
      ++bad;
      continue;
    }
    if (split_count(line, at, count))
      ++good;
    else
      ++bad;
  }
  if (good + bad == 0) {
    if (split_count(trim_end(head), at, count)) return true;  // a single unterminated line
    // One line longer than the head window (a huge frame): text with frame separators.
    if (head.size() < (1 << 16) || is_space(head[0]) || head[0] == '#') return false;
    for (char c : head)
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t') return false;
    return head.find(';') != std::string_view::npos;
  }
  return good > 0 && good >= bad * 4;
}

namespace {

// Whether the first stack line starts with CPython's "tid:N" thread frame (seed 004's dialect):
// decided once from the head of the input, so every worker of a parallel read agrees.
bool starts_with_thread_frame(std::string_view head) {
  std::string decoded;
  head = head_as_utf8(head, decoded);
  size_t pos = 0, at;
  double count;
  while (pos < head.size()) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) break;
    std::string_view line = trim_end(head.substr(pos, nl - pos));
    pos = nl + 1;
    if (!line.empty() && split_count(line, at, count)) return line.substr(0, 4) == "tid:";
  }
  return head.substr(pos, 4) == "tid:";  // one line longer than the head
}

// Whether the whole lines of the head come in byte order, as stackcollapse-* writes them.
// Worker threads pay off only then: on unsorted input each builds a hash table of its own
// stacks, and merging those costs about what the second thread saved.
bool head_is_sorted(std::string_view head) {
  std::string_view prev;
  size_t pos = 0, lines = 0;
  while (pos < head.size()) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) break;
    std::string_view line = trim_end(head.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.empty()) continue;
    if (++lines > 1 && line < prev) return false;
    prev = line;
  }
  return true;
}

}  // namespace

Profile read_folded(Input& input, const ReadOptions& options) {
  Profile p;
  p.source_format = "folded";
  p.inputs.push_back(input.path());
  // The tree's arrays are built in one go: page faults would be a third of the time.
  heap_prefer_huge_pages_for_input(input.size_on_disk());
  const bool cpython = starts_with_thread_frame(input.head());
  TextSource src(input);
  Progress progress(options.progress, "reading " + input.path(), input.size_on_disk());

  unsigned workers = options.threads_to_use ? options.threads_to_use : std::thread::hardware_concurrency();
  workers = std::clamp(workers, 1u, 64u);
  // Threads pay off only on big inputs (size unknown for stdin: assume big).
  constexpr uint64_t kParallelFrom = 8 << 20;
  uint64_t size = input.size_on_disk();
  if (size != 0 && size < (input.compression() == Compression::None ? kParallelFrom : kParallelFrom / 8)) workers = 1;
  if (!head_is_sorted(input.head())) workers = 1;

  std::vector<std::unique_ptr<FoldedReader>> readers;
  for (unsigned w = 0; w < workers; ++w) readers.push_back(std::make_unique<FoldedReader>(cpython));
  struct JobLines {
    uint64_t lines = 0, first_bad = 0;
  };
  std::vector<JobLines> jobs;  // per job, to number the first bad line across the input
  std::mutex jobs_mu;
  auto feed = [&](unsigned w, std::string_view text, size_t job) {
    FoldedReader& r = *readers[w];
    r.feed(text);
    std::lock_guard<std::mutex> lock(jobs_mu);
    if (jobs.size() <= job) jobs.resize(job + 1);
    jobs[job] = JobLines{r.job_lines, r.job_first_bad};
  };
  if (workers == 1) {
    std::string_view chunk;
    for (size_t job = 0; src.next(chunk); ++job) {
      feed(0, chunk, job);
      progress.update(src.consumed());
    }
  } else {
    parallel_feed::run_lines(src, progress, workers, feed);
  }
  progress.finish();
  uint64_t first_bad = 0, lines_before = 0;
  for (const JobLines& j : jobs) {
    if (j.first_bad && !first_bad) first_bad = lines_before + j.first_bad;
    lines_before += j.lines;
  }
  FoldedReader& reader = *readers[0];
  for (size_t w = 1; w < readers.size(); ++w) reader.absorb(*readers[w]);
  reader.build(p);
  if (reader.cpython) p.source_format = "folded (CPython sampling profiler)";
  if (src.encoding() != TextEncoding::Utf8)
    p.facts.emplace_back("encoding", src.encoding() == TextEncoding::Utf16LE ? "UTF-16 LE" : "UTF-16 BE");
  p.facts.emplace_back("stack lines", std::to_string(reader.stacks));
  if (reader.differential)
    p.facts.emplace_back("differential lines", std::to_string(reader.differential) + " (two counts; the second is used)");
  if (reader.bad)
    p.count("lines without a trailing count (skipped; first at line " + std::to_string(first_bad) + ")",
            reader.bad);
  if (src.decode_errors()) p.count("invalid UTF-16 (replaced by U+FFFD)", src.decode_errors());
  return p;
}

}  // namespace flamefold
