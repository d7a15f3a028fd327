#include "flamefold/readers/folded.h"

#include <charconv>
#include <cstring>
#include <string>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/hash.h"
#include "flamefold/progress.h"
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

// Length of the common prefix of a and b, eight bytes at a time (sorted lines share hundreds).
size_t common_prefix(std::string_view a, std::string_view b) {
  size_t limit = std::min(a.size(), b.size()), i = 0;
  for (; i + 8 <= limit; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) {
      while (a[i] == b[i]) ++i;
      return i;
    }
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

class FoldedReader {
 public:
  FoldedReader() { thread_category_ = symbols.category(category::kThread); }

  void feed(std::string_view text) {
    const char* at = text.data();
    const char* end = at + text.size();
    while (at < end) {
      const char* nl = static_cast<const char*>(std::memchr(at, '\n', static_cast<size_t>(end - at)));
      const char* line_end = nl ? nl : end;
      line(std::string_view(at, static_cast<size_t>(line_end - at)));
      at = nl ? nl + 1 : end;
    }
  }

  uint64_t lines = 0, stacks = 0, bad = 0, first_bad = 0, differential = 0;
  bool cpython = false;
  // Frames and distinct stacks as read; the call tree is built from them at the end.
  Symbols symbols;
  stack_table::StackTable table;

 private:
  void line(std::string_view l) {
    ++lines;
    l = trim_end(l);
    if (l.empty()) return;
    size_t count_at;
    double count;
    if (!split_count(l, count_at, count)) {
      if (!bad) first_bad = lines;
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
    if (!decided_) {
      cpython = frames.substr(0, 4) == "tid:";
      decided_ = true;
    }
    while (!frames.empty() && frames.back() == ';') frames.remove_suffix(1);  // Perl's split
    split(frames);
    table.add(prev_frames_.data(), static_cast<uint32_t>(prev_frames_.size()),
              stack_table::hash_frames(prev_frames_.data(), prev_frames_.size()), count);
    ++stacks;
  }

  // The frames of a stack, into prev_frames_; frames shared with the previous line (sorted
  // input shares long prefixes) are not interned again.
  void split(std::string_view frames) {
    size_t common = common_prefix(frames, prev_);
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
    prev_.assign(frames);
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
  bool decided_ = false;
  std::string prev_;
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
  TextEncoding enc = detect_text_encoding(head);
  std::string decoded;
  if (enc != TextEncoding::Utf8) {
    decoded = utf16_to_utf8(head, enc == TextEncoding::Utf16BE);
    head = decoded;
  } else if (head.size() >= 3 && std::memcmp(head.data(), "\xEF\xBB\xBF", 3) == 0) {
    head.remove_prefix(3);
  }
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

Profile read_folded(Input& input, const ReadOptions& options) {
  Profile p;
  p.source_format = "folded";
  p.inputs.push_back(input.path());
  TextSource src(input);
  Progress progress(options.progress, "reading " + input.path(), input.size_on_disk());
  FoldedReader reader;
  std::string_view chunk;
  while (src.next(chunk)) {
    reader.feed(chunk);
    progress.update(src.consumed());
  }
  progress.finish();
  stack_table::build_profile(reader.symbols, reader.table, p);
  if (reader.cpython) p.source_format = "folded (CPython sampling profiler)";
  if (src.encoding() != TextEncoding::Utf8)
    p.facts.emplace_back("encoding", src.encoding() == TextEncoding::Utf16LE ? "UTF-16 LE" : "UTF-16 BE");
  p.facts.emplace_back("stack lines", std::to_string(reader.stacks));
  if (reader.differential)
    p.facts.emplace_back("differential lines", std::to_string(reader.differential) + " (two counts; the second is used)");
  if (reader.bad)
    p.count("lines without a trailing count (skipped; first at line " + std::to_string(reader.first_bad) + ")",
            reader.bad);
  if (src.decode_errors()) p.count("invalid UTF-16 (replaced by U+FFFD)", src.decode_errors());
  return p;
}

}  // namespace flamefold
