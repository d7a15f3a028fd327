#include "flamefold/readers/text/folded.h"

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "flamefold/diff.h"
#include "flamefold/errors.h"
#include "flamefold/hash.h"
#include "flamefold/heap.h"
#include "flamefold/progress.h"
#include "flamefold/readers/text/parallel_feed.h"
#include "flamefold/readers/text/stack_table.h"
#include "flamefold/readers/text/text_source.h"
#include "flamefold/prefetch.h"

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

// Where the next ';' is in [from, s.size()), or s.size(): 16 bytes at a time (a call to
// memchr per frame cost more than the search).
size_t find_semicolon(std::string_view s, size_t from) {
  const char* p = s.data();
  size_t i = from, n = s.size();
#if defined(__SSE2__)
  const __m128i semi = _mm_set1_epi8(';');
  for (; i + 16 <= n; i += 16) {
    unsigned m = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)), semi)));
    if (m) return i + static_cast<size_t>(__builtin_ctz(m));
  }
#endif
  while (i < n && p[i] != ';') ++i;
  return i;
}

std::string_view trim_end(std::string_view line) {
  while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
  return line;
}

// What the lines of a folded file carry besides frames, judged once from the head of the input
// (so every worker of a parallel read agrees):
//   CPython  "tid:N;file.py:func:line;..."    (CPython's sampling profiler): a thread level;
//   Austin   "P<pid>;T<iid>:<tid>;file:func:line;..." (Austin 3): process and thread levels;
//   PySpy    "process N:\"cmd\";thread (0x..);func (file:line);..." (py-spy --format raw with
//            --subprocesses/--threads): process and thread levels.
// In the CPython and Austin dialects "file:func:line" frames carry their file and line.
// `comments`: the file starts with comment lines ('#' or '//': Austin's "# mode: wall" ...), so
// such lines are metadata wherever they are (Austin writes more at the end), not stacks.
struct Dialect {
  enum Kind : uint8_t { Plain, CPython, Austin, PySpy } kind = Plain;
  bool comments = false;
  bool splits_source() const { return kind == CPython || kind == Austin; }
};

bool is_comment_line(std::string_view l) { return !l.empty() && (l[0] == '#' || (l[0] == '/' && l.size() > 1 && l[1] == '/')); }

// Whether a frame at `index` of a line whose frames are `line` is a process or thread level.
inline bool group_frame(Dialect::Kind kind, std::string_view t, size_t index, std::string_view line) {
  switch (kind) {
    case Dialect::Plain: return false;
    case Dialect::CPython: return index == 0 && t.substr(0, 4) == "tid:";
    case Dialect::Austin:
      if (index == 0) return t.size() > 1 && t[0] == 'P' && is_digit(t[1]);
      return index == 1 && t.size() > 1 && t[0] == 'T' && line.size() > 1 && line[0] == 'P' && is_digit(line[1]);
    case Dialect::PySpy:
      if (index == 0 && t.substr(0, 8) == "process ") return true;
      return index < 2 && t.substr(0, 8) == "thread (" && (index == 0 || line.substr(0, 8) == "process ");
  }
  return false;
}

// Comment lines kept as the profile's facts (at most this many; more are only counted).
constexpr size_t kKeptComments = 64;

// The reader's frames: each distinct frame text once, numbered as first seen, one probe per
// frame of a line. In CPython's dialect a "tid:" text at the start of a stack is a thread and
// is kept apart from the same text further in; texts and the profile's frames then correspond
// one to one, so nothing is interned by name until the profile is built, once per frame.
// Room for n elements, growing at least twofold: the tables' expect() is asked again after every
// job with a slowly rising estimate, and exact reserves copied the arrays each time.
template <typename T>
void reserve_at_least(std::vector<T>& v, size_t n) {
  if (n > v.capacity()) v.reserve(std::max(n, 2 * v.capacity()));
}

class FrameTable {
 public:
  // `in_place`: text that stays readable while the table and its texts are in use (a mapped
  // input); frame texts inside it are not copied.
  explicit FrameTable(std::string_view in_place = {}) : in_place_(in_place) {
    slots_.assign(1024, Slot{});
    const size_t block = size_t(1) << kBlockBits;
    for (size_t k = 0; k * block < in_place.size(); ++k) blocks_.push_back(in_place.data() + k * block);
    used_ = block;  // copies start a block of their own
  }

  // The frame with this text (hash h, from hash_of), or kNone.
  FrameId find(std::string_view text, uint64_t h, bool thread) const {
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    for (size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (!s.frame_plus_one) return kNone;
      if (s.tag == tag) {
        FrameId f = s.frame_plus_one - 1;
        if (thread == this->thread(f) && text == this->text(f)) return f;
      }
    }
  }
  // Lookups in three steps ahead of find(): the home slot, the entry it holds, that entry's text
  // (hints only: they may be another frame's, or none).
  void prefetch_slot(uint64_t h) const { flamefold::prefetch(&slots_[h & (slots_.size() - 1)]); }
  void prefetch_entry(uint64_t h) const {
    const Slot& s = slots_[h & (slots_.size() - 1)];
    if (s.frame_plus_one) flamefold::prefetch(&frames_[s.frame_plus_one - 1]);
  }
  void prefetch_text(uint64_t h) const {
    const Slot& s = slots_[h & (slots_.size() - 1)];
    if (s.frame_plus_one) flamefold::prefetch(at(frames_[s.frame_plus_one - 1].place & kBeginBits));
  }
  // Adds a text find() did not find.
  FrameId insert(std::string_view text, uint64_t h, bool thread) {
    if ((frames_.size() + 1) * 2 > slots_.size()) grow();
    FrameId f = append(text, h, thread);
    place(f);
    return f;
  }
  // find(), and insert() when absent, in one probe.
  FrameId find_or_insert(std::string_view text, uint64_t h, bool thread) {
    if ((frames_.size() + 1) * 2 > slots_.size()) grow();
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    size_t i = h & (slots_.size() - 1);
    for (; slots_[i].frame_plus_one; i = (i + 1) & (slots_.size() - 1))
      if (slots_[i].tag == tag) {
        FrameId f = slots_[i].frame_plus_one - 1;
        if (thread == this->thread(f) && text == this->text(f)) return f;
      }
    FrameId f = append(text, h, thread);
    slots_[i] = Slot{tag, f + 1};
    return f;
  }

  // Room for n frames in the lookup table, which only grows: one table rather than a series of
  // doublings.
  void expect(size_t n) {
    if (slots_.empty()) return;
    size_t slots = slots_.size();
    while ((n + 1) * 2 > slots) slots *= 2;
    if (slots != slots_.size()) rehash(slots);
  }
  // Frees the lookup table once every text is in (find() and insert() must not follow).
  void drop_index() { std::vector<Slot>().swap(slots_); }
  // Hands the texts over to `to`, which may then refer to them in place; text() still works.
  void give_texts(StringTable& to) {
    for (auto& s : storage_) to.adopt(std::move(s));
    storage_.clear();
  }

  size_t size() const { return frames_.size(); }
  std::string_view text(FrameId f) const {
    const uint64_t p = frames_[f].place;
    const char* t = at(p & kBeginBits);
    uint64_t len = p >> kLenShift;
    if (len == kLongLen) std::memcpy(&len, t - 8, 8);  // a long text has its length before it
    return std::string_view(t, len);
  }
  bool thread(FrameId f) const { return frames_[f].place & kThreadBit; }
  void prefetch(FrameId f) const { flamefold::prefetch(&frames_[f]); }
  uint64_t hash(FrameId f) const { return frames_[f].hash; }
  // Where the text of f is (for at()), with the thread bit.
  uint64_t place_of(FrameId f) const { return frames_[f].place & (kBeginBits | kThreadBit); }
  const char* at(uint64_t offset) const {
    return blocks_[offset >> kBlockBits] + (offset & ((uint64_t(1) << kBlockBits) - 1));
  }
  static constexpr uint64_t kBeginBits = (uint64_t(1) << 39) - 1;  // 512 GB of frame text
  static constexpr uint64_t kThreadBit = uint64_t(1) << 39;

  // The hash find() and insert() take: a thread frame hashes apart from the same text further in.
  static uint64_t hash_of(std::string_view text, bool thread) {
    return hash_bytes(text) ^ (thread ? 0x9e3779b97f4a7c15ULL : 0);
  }

 private:
  static constexpr int kLenShift = 40;
  static constexpr uint64_t kLongLen = (uint64_t(1) << 24) - 1;  // texts this long and longer
  // Texts live in blocks that never move, addressed by one running offset: block k holds the
  // offsets [k << kBlockBits, (k + 1) << kBlockBits); a text longer than a block gets a block of
  // its own spanning as many of them.
  static constexpr int kBlockBits = 20;

  struct Slot {
    uint32_t tag = 0;  // the hash's top half
    uint32_t frame_plus_one = 0;  // 0 = empty
  };
  struct Entry {
    uint64_t hash;
    uint64_t place;  // text offset | thread bit | length (kLongLen: the 8 bytes before the text)
  };

  FrameId append(std::string_view text, uint64_t h, bool thread) {
    uint64_t begin = inside(text) ? static_cast<uint64_t>(text.data() - in_place_.data()) : store(text);
    uint64_t len = std::min<uint64_t>(text.size(), kLongLen);
    frames_.push_back(Entry{h, begin | (thread ? kThreadBit : 0) | len << kLenShift});
    return static_cast<FrameId>(frames_.size() - 1);
  }
  bool inside(std::string_view text) const {
    return text.size() < kLongLen && text.data() >= in_place_.data() &&
           text.data() + text.size() <= in_place_.data() + in_place_.size();
  }
  uint64_t store(std::string_view text) {
    const size_t block = size_t(1) << kBlockBits;
    const size_t head = text.size() >= kLongLen ? 8 : 0;
    const size_t need = head + text.size();
    if (blocks_.empty() || used_ + need > block) {
      size_t spans = need <= block ? 1 : (need + block - 1) / block;
      storage_.emplace_back(new char[spans * block]);  // not zeroed: pages are touched as texts arrive
      for (size_t k = 0; k < spans; ++k) blocks_.push_back(storage_.back().get() + k * block);
      used_ = 0;
      if ((blocks_.size() << kBlockBits) > kBeginBits) throw std::length_error("over 512 GB of frame names");
    }
    uint64_t begin = ((blocks_.size() - 1) << kBlockBits) + used_;
    if (need > block) begin = (blocks_.size() - (need + block - 1) / block) << kBlockBits;
    char* to = const_cast<char*>(at(begin));
    if (head) {
      uint64_t len = text.size();
      std::memcpy(to, &len, 8);
    }
    std::memcpy(to + head, text.data(), text.size());
    used_ = need > block ? block : used_ + need;  // a big text fills its blocks
    return begin + head;
  }
  void place(FrameId f) {
    const uint64_t h = frames_[f].hash;
    size_t i = h & (slots_.size() - 1);
    while (slots_[i].frame_plus_one) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = Slot{static_cast<uint32_t>(h >> 32), f + 1};
  }
  void grow() { rehash(slots_.size() * 2); }
  void rehash(size_t slots) {
    std::vector<Slot>(slots).swap(slots_);
    for (FrameId f = 0; f < frames_.size(); ++f) place(f);
  }

  std::vector<Slot> slots_;
  std::vector<Entry> frames_;
  std::vector<std::unique_ptr<char[]>> storage_;
  std::vector<const char*> blocks_;
  size_t used_ = 0;  // bytes used in the last block
  std::string_view in_place_;
};

// A reader's frames as the tree builder sees them (stack_table::build_profile): the frame each
// text stands for, in CPython's dialect "file.py:function:line" split into its parts.
class FoldedFrames {
 public:
  FoldedFrames(const FrameTable& table, Dialect dialect) : t_(table), kind_(dialect.kind) {
    if (!dialect.splits_source()) return;
    parts_.resize(t_.size());
    for (FrameId f = 0; f < t_.size(); ++f) parts_[f] = split(t_.text(f), t_.thread(f));
  }
  size_t size() const { return t_.size(); }
  // Whether the profile's frames can be appended without lookups (Symbols::append_distinct):
  // in the plain dialect a frame is its text, so distinct frames have distinct names, and
  // no file and no category.
  bool distinct_names() const { return parts_.empty() && kind_ == Dialect::Plain; }
  // Sibling order: name, then category ("" before "thread"), then file and line.
  bool less(FrameId a, FrameId b) const {
    if (parts_.empty()) {
      int c = t_.text(a).compare(t_.text(b));
      return c ? c < 0 : t_.thread(a) < t_.thread(b);
    }
    const Parts &x = parts_[a], &y = parts_[b];
    std::string_view ta = t_.text(a), tb = t_.text(b);
    int c = ta.substr(x.name_begin, x.name_len).compare(tb.substr(y.name_begin, y.name_len));
    if (c) return c < 0;
    if (t_.thread(a) != t_.thread(b)) return t_.thread(b);
    c = ta.substr(0, x.file_len).compare(tb.substr(0, y.file_len));
    return c ? c < 0 : x.line < y.line;
  }
  void prefetch(FrameId f) const {
    t_.prefetch(f);
    if (!parts_.empty()) flamefold::prefetch(&parts_[f]);
  }
  uint64_t key(FrameId f) const {  // stack_table::name_key of the name
    std::string_view t = t_.text(f);
    return stack_table::name_key(parts_.empty() ? t : t.substr(parts_[f].name_begin, parts_[f].name_len));
  }
  Symbols::FrameText text(FrameId f) const {
    std::string_view text = t_.text(f);
    std::string_view category = !t_.thread(f) ? category::kNone
                                : (kind_ == Dialect::Austin && text.substr(0, 1) == "P") ||
                                          (kind_ == Dialect::PySpy && text.substr(0, 8) == "process ")
                                      ? category::kProcess
                                      : category::kThread;
    if (parts_.empty())  // the text is the name: its hash is known, unless a thread's
      return Symbols::FrameText{text, {}, 0, category, t_.thread(f) ? 0 : t_.hash(f), true};
    const Parts& p = parts_[f];
    return Symbols::FrameText{text.substr(p.name_begin, p.name_len), text.substr(0, p.file_len), p.line, category, 0, true};
  }

 private:
  struct Parts {
    uint32_t name_begin = 0, name_len = 0, file_len = 0, line = 0;
  };
  // file.py:func:line (line 0 would not survive the round trip: such names stay whole).
  static Parts split(std::string_view name, bool thread) {
    Parts whole{0, static_cast<uint32_t>(name.size()), 0, 0};
    if (thread) return whole;
    size_t c2 = name.rfind(':');
    if (c2 == std::string_view::npos || c2 == 0) return whole;
    size_t c1 = name.rfind(':', c2 - 1);
    std::string_view line_text = name.substr(c2 + 1);
    if (c1 == std::string_view::npos || c1 == 0 || !all_digits(line_text) || line_text.size() > 9) return whole;
    uint32_t ln = 0;
    std::from_chars(line_text.data(), line_text.data() + line_text.size(), ln);
    if (ln == 0 || line_text[0] == '0') return whole;
    return Parts{static_cast<uint32_t>(c1 + 1), static_cast<uint32_t>(c2 - c1 - 1), static_cast<uint32_t>(c1), ln};
  }
  const FrameTable& t_;
  Dialect::Kind kind_;
  std::vector<Parts> parts_;  // CPython's and Austin's dialects only
};

// Cuts stack lines into a count and frames, telling the leading frames a line shares with the
// line before (sorted input shares long prefixes) from its new ones, which it hashes
// (FrameTable::hash_of) but does not look up.
class LineCutter {
 public:
  struct Fresh {
    size_t begin, end;  // in frames()
    uint64_t hash;
    bool thread;
  };

  // `alone`: every line on its own (no repeats, nothing kept from the line before).
  explicit LineCutter(Dialect dialect, bool alone = false) : dialect_(dialect), alone_(alone) {}

  // False for a blank line and for a line without a count (counted as bad). Otherwise sets
  // count and either `repeat` (the same stack as the line before) or `keep` (how many frames
  // of the line before this one starts with) and fresh() (the others), and `out_of_order`
  // (the line sorts before the one before, in byte order).
  bool cut(std::string_view l) {
    ++job_lines;
    l = trim_end(l);
    if (l.empty()) return false;
    if (dialect_.comments && is_comment_line(l)) {
      if (comments.size() < kKeptComments) comments.emplace_back(l);
      ++comment_lines;
      return false;
    }
    size_t count_at;
    if (!split_count(l, count_at, count)) {
      if (!job_first_bad) job_first_bad = job_lines;
      ++bad;
      return false;
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
    size_t common = alone_ ? 0 : common_prefix(frames, prev_);
    if (alone_) ends_.clear();
    repeat = have_prev_ && !alone_ && common == frames.size() && common == prev_.size();
    if (repeat) return true;
    out_of_order = have_prev_ && common < prev_.size() &&
                   (common == frames.size() ||
                    static_cast<unsigned char>(frames[common]) < static_cast<unsigned char>(prev_[common]));
    keep = 0;
    while (keep < ends_.size() && ends_[keep] < common) ++keep;
    if (keep < ends_.size() && ends_[keep] == frames.size() && common == frames.size()) ++keep;
    ends_.resize(keep);
    size_t pos = keep ? ends_.back() + 1 : 0;
    fresh_.clear();
    while (pos <= frames.size() && !frames.empty()) {
      size_t semi = find_semicolon(frames, pos);
      std::string_view text = frames.substr(pos, semi - pos);
      // Dialects: a process or thread level at the start of a stack.
      bool thread = dialect_.kind != Dialect::Plain && group_frame(dialect_.kind, text, keep + fresh_.size(), frames);
      fresh_.push_back(Fresh{pos, semi, FrameTable::hash_of(text, thread), thread});
      ends_.push_back(semi);
      pos = semi + 1;
    }
    prev_ = frames;
    have_prev_ = true;
    return true;
  }

  const std::vector<Fresh>& fresh() const { return fresh_; }
  std::string_view frames() const { return prev_; }  // of the line cut last
  size_t frame_count() const { return ends_.size(); }  // of the last line that was not a repeat

  // Keeps the line before for the next job (whose buffer this one's may not outlive): one
  // copy per job, not per line.
  void end_job() {
    if (prev_.data() != prev_owned_.data()) {
      prev_owned_.assign(prev_);
      prev_ = prev_owned_;
    }
  }
  void start_job() { job_lines = job_first_bad = 0; }

  double count = 0;
  bool repeat = false, out_of_order = false;
  size_t keep = 0;
  uint64_t job_lines = 0, job_first_bad = 0;  // line numbers from the job's start
  uint64_t stacks = 0, bad = 0, differential = 0, comment_lines = 0;
  std::vector<std::string> comments;  // the first kKeptComments comment lines

 private:
  const Dialect dialect_;
  const bool alone_;
  bool have_prev_ = false;
  std::string_view prev_;  // the frames of the line before (in the job's text, or prev_owned_)
  std::string prev_owned_;
  std::vector<size_t> ends_;  // where each frame of prev_ ends
  std::vector<Fresh> fresh_;
};

// Reads a sorted folded file (as stackcollapse-* write them) into frames and a list of
// stacks. Several can read parts of one input in parallel (each sees its parts in input
// order) and be combined with absorb() at the end. Should the input turn out not to be
// sorted, the stacks go into a call tree (stack_table::Trie) instead.
class FoldedReader {
 public:
  explicit FoldedReader(Dialect dialect) : dialect(dialect), cut_(dialect) {}

  // Whole lines of the input (a job); line numbers in job_* count from the job's start.
  void feed(std::string_view text) {
    cut_.start_job();
    const char* at = text.data();
    const char* end = at + text.size();
    while (at < end) {
      const char* nl = static_cast<const char*>(std::memchr(at, '\n', static_cast<size_t>(end - at)));
      const char* line_end = nl ? nl : end;
      line(std::string_view(at, static_cast<size_t>(line_end - at)));
      at = nl ? nl + 1 : end;
    }
    lines += cut_.job_lines;
    job_lines = cut_.job_lines;
    job_first_bad = cut_.job_first_bad;
    cut_.end_job();
  }

  // Takes over another reader's stacks (frames looked up by text) and counts.
  void absorb(FoldedReader& other) {
    std::vector<FrameId> map(other.frames_.size());
    for (FrameId f = 0; f < map.size(); ++f) {
      std::string_view text = other.frames_.text(f);
      bool thread = other.frames_.thread(f);
      map[f] = frames_.find(text, other.frames_.hash(f), thread);
      if (map[f] == kNone) map[f] = frames_.insert(text, other.frames_.hash(f), thread);
    }
    if (sorted_ && other.sorted_) {
      list_.append(other.list_, map);
    } else {
      use_trie();
      other.list_.rewrite([&](FrameId* f, uint32_t n, double weight) {
        for (uint32_t k = 0; k < n; ++k) f[k] = map[f[k]];
        trie_.add(f, n, weight);
      });
      trie_.merge(other.trie_, map);
      other.trie_ = stack_table::Trie(false);
    }
    lines += other.lines;
    cut_.stacks += other.cut_.stacks;
    cut_.bad += other.cut_.bad;
    cut_.differential += other.cut_.differential;
    cut_.comment_lines += other.cut_.comment_lines;
    for (std::string& c : other.cut_.comments)
      if (cut_.comments.size() < kKeptComments) cut_.comments.push_back(std::move(c));
  }

  void build(Profile& p) {
    frames_.drop_index();
    frames_.give_texts(p.symbols.strings);  // the profile's names are these texts (or parts of them)
    FoldedFrames frames(frames_, dialect);
    if (sorted_)
      stack_table::build_profile(frames, list_, p);
    else
      stack_table::write_tree(frames, trie_, p);
  }

  uint64_t stacks() const { return cut_.stacks; }
  uint64_t bad() const { return cut_.bad; }
  uint64_t differential() const { return cut_.differential; }
  uint64_t comment_lines() const { return cut_.comment_lines; }
  std::vector<std::string>& comments() { return cut_.comments; }

  const Dialect dialect;
  uint64_t lines = 0;
  uint64_t job_lines = 0, job_first_bad = 0;  // of the last feed()

 private:
  void line(std::string_view l) {
    if (!cut_.cut(l)) return;
    if (cut_.repeat) {
      if (sorted_)
        list_.add_to_last(cut_.count);
      else
        trie_.add(frames_of_line_.data(), static_cast<uint32_t>(frames_of_line_.size()), cut_.count);
      return;
    }
    // Sorted so far: every line sorts after the one before (byte order). While that holds,
    // stacks are only listed; a line out of order moves them into a call tree, which each
    // line then goes into straight away.
    if (sorted_ && cut_.out_of_order) use_trie();
    // The new frames: request their table slots first, then the entries and texts those slots
    // lead to, then look them up: the lookups overlap their cache misses instead of queueing them.
    frames_of_line_.resize(cut_.keep);
    std::string_view text = cut_.frames();
    for (const LineCutter::Fresh& f : cut_.fresh()) frames_.prefetch_slot(f.hash);
    for (const LineCutter::Fresh& f : cut_.fresh()) frames_.prefetch_entry(f.hash);
    for (const LineCutter::Fresh& f : cut_.fresh()) frames_.prefetch_text(f.hash);
    for (const LineCutter::Fresh& f : cut_.fresh()) {
      std::string_view t = text.substr(f.begin, f.end - f.begin);
      FrameId id = frames_.find(t, f.hash, f.thread);
      frames_of_line_.push_back(id != kNone ? id : frames_.insert(t, f.hash, f.thread));
    }
    if (sorted_)
      list_.add(frames_of_line_.data(), static_cast<uint32_t>(frames_of_line_.size()), cut_.count);
    else
      trie_.add(frames_of_line_.data(), static_cast<uint32_t>(frames_of_line_.size()), cut_.count);
  }

  void use_trie() {
    if (!sorted_) return;
    list_.rewrite([&](FrameId* f, uint32_t n, double weight) { trie_.add(f, n, weight); });
    list_ = stack_table::StackList();
    sorted_ = false;
  }

  LineCutter cut_;
  FrameTable frames_;
  bool sorted_ = true;
  stack_table::StackList list_;
  stack_table::Trie trie_{false};
  std::vector<FrameId> frames_of_line_;  // of the last line
};

// Hashes of frame-text prefixes (a node of the call tree is one): step over each frame's text hash.
constexpr uint64_t kRootPrefix = 0x243f6a8885a308d3ULL;
inline uint64_t prefix_step(uint64_t h, uint64_t text_hash) { return mix64(h * 0x9e3779b97f4a7c15ULL ^ text_hash); }

// A job's lines cut (LineCutter), not yet looked up: what LineTree and NodeTable take. Cutting
// needs no tables, so the next job can be cut on one thread while another builds the tree.
struct CutJob {
  struct Line {
    double count;
    uint32_t keep;   // leading frames shared with the line before in this job
    uint32_t fresh;  // frames after those, the next ones in `frames`
    uint64_t begin;  // where the line starts in the job's text
  };
  struct Frame {
    uint64_t hash;    // FrameTable::hash_of
    uint64_t prefix;  // prefix_step over the line's frames up to this one
    uint64_t begin;   // in the job's text
    uint32_t len;
    bool thread;
  };
  std::vector<Line> lines;
  std::vector<Frame> frames;
  uint64_t lines_read = 0, first_bad = 0, stacks = 0, bad = 0, differential = 0, comment_lines = 0;
  std::vector<std::string> comments;

  // A line without frames after a line whose first frame is empty ("" in ";a") has always been
  // read as that one empty frame: LineCutter, finding the frames a line shares with the line
  // before, takes the empty frame as shared. The trees do the same, across jobs too, so the
  // result does not depend on where the input was cut into jobs. That frame, for such a line:
  static Frame empty_frame(uint64_t line_begin) {
    const uint64_t h = FrameTable::hash_of({}, false);
    return Frame{h, prefix_step(kRootPrefix, h), line_begin, 0, false};
  }

  // `alone`: each line's frames all in `frames` (keep 0, no repeats).
  void cut(std::string_view text, Dialect dialect, bool alone) {
    lines.clear();
    frames.clear();
    LineCutter c(dialect, alone);  // a line has no line before at a job's start
    std::vector<uint64_t> prefix;  // per frame of the line before
    const char* at = text.data();
    const char* end = at + text.size();
    while (at < end) {
      const char* nl = static_cast<const char*>(std::memchr(at, '\n', static_cast<size_t>(end - at)));
      const char* line_end = nl ? nl : end;
      if (c.cut(std::string_view(at, static_cast<size_t>(line_end - at)))) {
        if (c.repeat) {
          lines.push_back(Line{c.count, static_cast<uint32_t>(c.frame_count()), 0, static_cast<uint64_t>(at - text.data())});
        } else {
          const uint64_t base = static_cast<uint64_t>(at - text.data());
          prefix.resize(c.keep);
          uint64_t h = c.keep ? prefix.back() : kRootPrefix;
          for (const LineCutter::Fresh& f : c.fresh()) {
            h = prefix_step(h, f.hash);
            prefix.push_back(h);
            frames.push_back(Frame{f.hash, h, base + f.begin, static_cast<uint32_t>(f.end - f.begin), f.thread});
          }
          lines.push_back(Line{c.count, static_cast<uint32_t>(c.keep), static_cast<uint32_t>(c.fresh().size()), base});
        }
      }
      at = nl ? nl + 1 : end;
    }
    lines_read = c.job_lines;
    first_bad = c.job_first_bad;
    stacks = c.stacks;
    bad = c.bad;
    differential = c.differential;
    comment_lines = c.comment_lines;
    comments = std::move(c.comments);
  }
};

// The call tree of an unsorted folded file, built as its lines come (in input order, so a
// node's weight adds up in that order). A node is found by a hash of its whole prefix of
// frame texts: a line's lookups need no frame ids and are all requested at once, and each
// compares a text once. The frame table is asked only when a node is new.
class NodeTable {
 public:
  explicit NodeTable(FrameTable& frames) : frames_(frames) {
    parent.push_back(kNone);
    frame.push_back(kNone);
    self.push_back(0);
    slots_.assign(1 << 16, Slot{});
  }

  // Room for about this many nodes (a guess: untouched room costs no memory).
  void expect(size_t nodes) {
    reserve_at_least(parent, nodes);
    reserve_at_least(frame, nodes);
    reserve_at_least(self, nodes);
  }

  // A job's lines (cut from `text`). Every lookup's slot is known from the cut (the prefix
  // hashes): slots are requested kAhead frames ahead, across lines, and half as far ahead
  // what they lead to (the text a slot points at; for an empty slot, a new node, the frame
  // table's slot), so about that many cache misses are in flight at any time.
  void add(const CutJob& job, std::string_view text) {
    constexpr size_t kAhead = 32;
    const CutJob::Frame* fr = job.frames.data();
    const size_t n = job.frames.size();
    for (size_t i = 0; i < n && i < kAhead; ++i) flamefold::prefetch(&slots_[fr[i].prefix & mask()]);
    size_t i = 0;
    path_.clear();
    for (const CutJob::Line& l : job.lines) {
      path_.resize(l.keep);
      NodeId node = l.keep ? path_.back() : 0;
      bool fresh = false;  // made a node: the rest of the line is new too
      if (l.keep == 0 && l.fresh == 0 && after_empty_first_) {  // CutJob::empty_frame
        CutJob::Frame e = CutJob::empty_frame(l.begin);
        node = child(0, e, text, fresh);
        path_.push_back(node);
      } else if (l.keep == 0) {
        after_empty_first_ = l.fresh && fr[i].len == 0;
      }
      for (uint32_t k = 0; k < l.fresh; ++k, ++i) {
        if (i + kAhead < n) flamefold::prefetch(&slots_[fr[i + kAhead].prefix & mask()]);
        if (i + kAhead / 2 < n) {
          const CutJob::Frame& later = fr[i + kAhead / 2];
          const Slot& s = slots_[later.prefix & mask()];
          if (s.node)
            flamefold::prefetch(frames_.at(s.begin_tag & FrameTable::kBeginBits));
          else
            frames_.prefetch_slot(later.hash);
        }
        node = child(node, fr[i], text, fresh);
        path_.push_back(node);
      }
      self[node] += l.count;
    }
  }

  size_t size() const { return parent.size(); }
  void finish() {  // drops what lookups need
    std::vector<Slot>().swap(slots_);
    std::vector<NodeId>().swap(path_);
  }

  std::vector<NodeId> parent;
  std::vector<FrameId> frame;
  std::vector<double> self;

 private:
  static constexpr uint64_t kTagBits = ~(FrameTable::kBeginBits | FrameTable::kThreadBit);
  size_t mask() const { return slots_.size() - 1; }

  NodeId child(NodeId p, const CutJob::Frame& fr, std::string_view text, bool& fresh) {
    const uint64_t h = fr.prefix;
    const char* t = text.data() + fr.begin;
    const uint32_t len_thread = fr.len | (fr.thread ? 0x80000000u : 0);
    size_t i = h & mask();
    if (!fresh)
      for (; slots_[i].node; i = (i + 1) & mask()) {
        const Slot& s = slots_[i];
        if (s.parent == p && s.len_thread == len_thread && ((s.begin_tag ^ h) & kTagBits) == 0 &&
            std::memcmp(frames_.at(s.begin_tag & FrameTable::kBeginBits), t, fr.len) == 0)
          return s.node;
      }
    fresh = true;
    std::string_view name(t, fr.len);
    FrameId f = frames_.find_or_insert(name, fr.hash, fr.thread);
    NodeId n = static_cast<NodeId>(parent.size());
    parent.push_back(p);
    frame.push_back(f);
    self.push_back(0);
    if (parent.size() * 2 > slots_.size()) {
      grow();
      i = h & mask();
    }
    while (slots_[i].node) i = (i + 1) & mask();
    slots_[i] = Slot{frames_.place_of(f) | (h & kTagBits), len_thread, p, n, static_cast<uint32_t>(h)};
    return n;
  }

  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (!s.node) continue;
      size_t i = s.hash_low & mask();
      while (slots_[i].node) i = (i + 1) & mask();
      slots_[i] = s;
    }
  }

  struct Slot {
    uint64_t begin_tag = 0;  // the frame's text (FrameTable::place_of) | the prefix hash's top bits
    uint32_t len_thread = 0;  // text length | 0x80000000 for a thread
    NodeId parent = 0;
    NodeId node = 0;  // 0: empty (the root is nobody's child)
    uint32_t hash_low = 0;  // the prefix hash's low half: where the slot goes when the table grows
  };
  FrameTable& frames_;
  std::vector<Slot> slots_;
  std::vector<NodeId> path_;  // the nodes of the line before
  bool after_empty_first_ = false;  // the line before starts with an empty frame
};

// The call tree of an unsorted mapped file, built as its lines come (in input order, so a
// node's weight adds up in that order). A node stands for a prefix of a line's frames and is
// found by a hash of that prefix's text. Only the deepest prefix of a line already in the tree
// needs finding: every shorter one is then in the tree too, and every longer one is new. It is
// found going up from the whole stack (a line mostly adds a few frames to a path seen before:
// a few probes, not one per frame) and checked with one memcmp of the whole prefix against the
// line that made its node, which the mapping keeps. The frames of the nodes a job made are
// looked up afterwards (add_frames), in the order the nodes were made: with threads, by
// whichever thread is free, while the tree thread builds the next job's nodes.
class LineTree {
 public:
  explicit LineTree(std::string_view text) : text_(text) {
    parent.push_back(kNone);
    frame.push_back(kNone);
    self.push_back(0);
    line_.push_back(0);
    slots_.assign(1 << 16, Slot{});
  }

  // Room for this many nodes (the frames' column is add_frames' to size).
  void expect(size_t nodes) {
    reserve_at_least(parent, nodes);
    reserve_at_least(self, nodes);
    reserve_at_least(line_, nodes);
    size_t slots = slots_.size();
    while (nodes * 4 > slots * 3) slots *= 2;  // a guess: up to 3/4 full (it grows past 7/10 of what it holds)
    if (slots != slots_.size()) rehash(slots);  // one table rather than a series of doublings
  }

  // Frames in `made` that are not in the job's frames: the empty frame (CutJob::empty_frame).
  static constexpr uint32_t kEmptyFrame = UINT32_MAX;

  // A job's lines, cut alone (CutJob::cut) from `text`, a piece of the mapped text. `made`
  // gets, for each node made, in order, its frame's index in job.frames (or kEmptyFrame).
  void add(const CutJob& job, std::string_view text, std::vector<uint32_t>& made) {
    made.clear();
    const uint64_t job_at = static_cast<uint64_t>(text.data() - text_.data());
    const size_t lines = job.lines.size();
    starts_.resize(lines + 1);
    starts_[0] = 0;
    for (size_t i = 0; i < lines; ++i) starts_[i + 1] = starts_[i] + job.lines[i].fresh;
    // Requested ahead, in three steps: the slots of the lines four ahead, from the whole stack
    // up (as far as lines usually go); for the line two ahead, its deepest prefix in the tree,
    // guessed from those slots by hash alone, then where that prefix's line starts; for the
    // next line, the start of the text its prefix is compared with (a line elsewhere in the
    // input).
    constexpr size_t kAhead = 4, kLevels = 16;
    auto request = [&](size_t i) {
      for (size_t k = starts_[i + 1]; k > starts_[i] && k + kLevels > starts_[i + 1]; --k)
        flamefold::prefetch(&slots_[job.frames[k - 1].prefix & mask()]);
    };
    NodeId guessed[2] = {0, 0};  // for lines i + 1 and i + 2, by i % 2
    auto node_by_hash = [&](uint64_t h) -> NodeId {
      for (size_t at = h & mask(); slots_[at].node; at = (at + 1) & mask())
        if (slots_[at].hash == h) return slots_[at].node;
      return 0;
    };
    auto guess = [&](size_t i) {
      const size_t first = starts_[i], end = starts_[i + 1];
      size_t k = end;  // the line's frames [first, k) are its deepest prefix in the tree
      NodeId node = 0;
      for (; k > first && k + kLevels > end; --k)
        if ((node = node_by_hash(job.frames[k - 1].prefix))) break;
      if (node) flamefold::prefetch(&line_[node]);
      guessed[i % 2] = node;
    };
    auto request_text = [&](size_t i) {
      if (const NodeId node = guessed[i % 2]) {
        const char* t = text_.data() + line_[node];
        for (size_t b = 0; b < kTextRequested; b += 64) flamefold::prefetch(t + b);
      }
    };
    for (size_t i = 0; i < lines && i < kAhead; ++i) request(i);
    for (size_t i = 0; i < lines && i < 2; ++i) guess(i);
    if (lines > 0) request_text(0);
    for (size_t i = 0; i < lines; ++i) {
      if (i + kAhead < lines) request(i + kAhead);
      if (i + 1 < lines) request_text(i + 1);
      if (i + 2 < lines) guess(i + 2);
      const CutJob::Line& l = job.lines[i];
      const CutJob::Frame* f = job.frames.data() + starts_[i];
      if (l.fresh && prefix_length(f[l.fresh - 1], l.begin) == UINT32_MAX) throw std::length_error("a stack longer than 4 GB");
      const uint64_t line_at = job_at + l.begin;
      CutJob::Frame empty;
      uint32_t stack = l.fresh;
      uint32_t first_index = static_cast<uint32_t>(starts_[i]);  // of f[0] in job.frames
      if (stack == 0 && after_empty_first_) {  // CutJob::empty_frame
        empty = CutJob::empty_frame(l.begin);
        f = &empty;
        stack = 1;
        first_index = kEmptyFrame;
      }
      after_empty_first_ = stack && f[0].len == 0;
      uint32_t k = stack;  // frames in the deepest prefix found, going up from the whole stack
      NodeId node = 0;
      for (; k > 0; --k)
        if ((node = find(f[k - 1], line_at, l.begin)) != kNone) break;
      if (k == 0) node = 0;
      for (; k < stack; ++k) {
        node = make(node, f[k], line_at, l.begin);
        made.push_back(first_index == kEmptyFrame ? kEmptyFrame : first_index + k);
      }
      self[node] += l.count;
    }
  }

  // The frames of the nodes a job made (add()'s `made`, in the order they were made), from
  // `frames`, where new ones are added. Each frame's table slot is requested kAhead frames
  // ahead (requesting the entry it holds too meant loading the slot before it came: slower).
  void add_frames(const CutJob& job, std::string_view text, const std::vector<uint32_t>& made, FrameTable& frames) {
    const CutJob::Frame empty = CutJob::empty_frame(0);
    auto frame_of = [&](size_t k) -> const CutJob::Frame& { return made[k] == kEmptyFrame ? empty : job.frames[made[k]]; };
    constexpr size_t kAhead = 24;
    const size_t n = made.size();
    reserve_at_least(frame, frame.size() + n);
    for (size_t k = 0; k < n && k < kAhead; ++k) frames.prefetch_slot(frame_of(k).hash);
    for (size_t k = 0; k < n; ++k) {
      if (k + kAhead < n) frames.prefetch_slot(frame_of(k + kAhead).hash);
      const CutJob::Frame& f = frame_of(k);
      frame.push_back(frames.find_or_insert(text.substr(f.begin, f.len), f.hash, f.thread));
    }
  }

  size_t size() const { return parent.size(); }
  void finish() {
    if (frame.size() != parent.size()) throw std::logic_error("LineTree: nodes without their frames");
    std::vector<Slot>().swap(slots_);
    std::vector<uint64_t>().swap(line_);
  }

  std::vector<NodeId> parent;
  std::vector<FrameId> frame;
  std::vector<double> self;

 private:
  size_t mask() const { return slots_.size() - 1; }
  // The length of the line's text up to the end of frame f (UINT32_MAX from 4 GB on).
  static uint32_t prefix_length(const CutJob::Frame& f, uint64_t line_begin) {
    return static_cast<uint32_t>(std::min<uint64_t>(f.begin + f.len - line_begin, UINT32_MAX));
  }

  NodeId find(const CutJob::Frame& f, uint64_t line_at, uint64_t line_begin) const {
    const uint32_t length = prefix_length(f, line_begin);
    for (size_t i = f.prefix & mask(); slots_[i].node; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (s.hash == f.prefix && s.length == length &&
          std::memcmp(text_.data() + line_[s.node], text_.data() + line_at, length) == 0)
        return s.node;
    }
    return kNone;
  }

  NodeId make(NodeId p, const CutJob::Frame& f, uint64_t line_at, uint64_t line_begin) {
    NodeId n = static_cast<NodeId>(parent.size());
    parent.push_back(p);
    self.push_back(0);
    line_.push_back(line_at);
    if (parent.size() * 10 > slots_.size() * 7) rehash(slots_.size() * 2);
    size_t i = f.prefix & mask();
    while (slots_[i].node) i = (i + 1) & mask();
    slots_[i] = Slot{f.prefix, n, prefix_length(f, line_begin)};
    return n;
  }

  void rehash(size_t slots) {
    std::vector<Slot> old(slots);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (!s.node) continue;
      size_t i = s.hash & mask();
      while (slots_[i].node) i = (i + 1) & mask();
      slots_[i] = s;
    }
  }

  struct Slot {
    uint64_t hash = 0;     // of the prefix (CutJob::Frame::prefix)
    NodeId node = 0;       // 0: empty (the root is nobody's child)
    uint32_t length = 0;   // of the prefix's text
  };
  std::string_view text_;
  std::vector<Slot> slots_;
  std::vector<uint64_t> line_;  // per node: where a line starting with its prefix starts in text_
  static constexpr size_t kTextRequested = 1024;  // of the text a prefix is compared with
  std::vector<size_t> starts_;  // per line of the job being added: its first frame
  bool after_empty_first_ = false;  // the line before starts with an empty frame
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
  bool comments = false;  // the file starts with comment lines (Austin's metadata): they are not stacks
  bool top = true;
  while (pos < head.size() && good + bad < 20) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) break;  // the last line may be cut off by the head window
    std::string_view line = trim_end(head.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.empty()) continue;
    if (top && is_comment_line(line)) comments = true;
    top = false;
    if (comments && is_comment_line(line)) continue;
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

// The dialect, from the first stack line of the head (and whether comment lines come first):
// decided once from the head of the input, so every worker of a parallel read agrees.
Dialect detect_dialect(std::string_view head) {
  std::string decoded;
  head = head_as_utf8(head, decoded);
  Dialect d;
  size_t pos = 0, at;
  double count;
  bool first = true;
  std::string_view stack;
  while (pos < head.size()) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) break;
    std::string_view line = trim_end(head.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.empty()) continue;
    if (first && is_comment_line(line)) d.comments = true;
    first = false;
    if (d.comments && is_comment_line(line)) continue;
    if (split_count(line, at, count)) {
      stack = line;
      break;
    }
  }
  if (stack.empty()) stack = head.substr(pos);  // one line longer than the head
  if (stack.substr(0, 4) == "tid:") {
    d.kind = Dialect::CPython;
  } else if (stack.size() > 1 && stack[0] == 'P' && is_digit(stack[1])) {
    size_t semi = stack.find(';');
    if (semi != std::string_view::npos && stack.substr(semi + 1, 1) == "T") d.kind = Dialect::Austin;
  } else if (stack.substr(0, 8) == "process " || stack.substr(0, 8) == "thread (") {
    size_t i = stack[0] == 'p' ? 8 : 0;
    while (i < stack.size() && is_digit(stack[i])) ++i;
    if (stack[0] == 't' || (i > 8 && stack.substr(i, 1) == ":")) d.kind = Dialect::PySpy;
  }
  return d;
}

// Whether the whole lines of the head come in byte order, as stackcollapse-* writes them:
// then workers split the input (read_sorted); otherwise it goes into one tree (read_unsorted).
bool head_is_sorted(std::string_view head, Dialect dialect) {
  std::string_view prev;
  size_t pos = 0, lines = 0;
  while (pos < head.size()) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) break;
    std::string_view line = trim_end(head.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.empty() || (dialect.comments && is_comment_line(line))) continue;
    if (++lines > 1 && line < prev) return false;
    prev = line;
  }
  return true;
}

}  // namespace

namespace {

// What reading an input gave, however it was read.
struct ReadCounts {
  uint64_t stacks = 0, bad = 0, differential = 0, first_bad = 0, comment_lines = 0;
  std::vector<std::string> comments;
};

// Numbers the first bad line across jobs: (lines, first bad line) per job, in input order.
struct JobLines {
  uint64_t lines = 0, first_bad = 0;
};
uint64_t first_bad_line(const std::vector<JobLines>& jobs) {
  uint64_t before = 0;
  for (const JobLines& j : jobs) {
    if (j.first_bad) return before + j.first_bad;
    before += j.lines;
  }
  return 0;
}

// A sorted input (judged by its head): FoldedReaders, one per worker, over line-aligned jobs.
ReadCounts read_sorted(TextSource& src, Progress& progress, unsigned workers, Dialect dialect, Profile& p) {
  std::vector<std::unique_ptr<FoldedReader>> readers;
  for (unsigned w = 0; w < workers; ++w) readers.push_back(std::make_unique<FoldedReader>(dialect));
  std::vector<JobLines> jobs;
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
  FoldedReader& reader = *readers[0];
  for (size_t w = 1; w < readers.size(); ++w) reader.absorb(*readers[w]);
  readers.resize(1);
  reader.build(p);
  return ReadCounts{reader.stacks(), reader.bad(),           reader.differential(), first_bad_line(jobs),
                    reader.comment_lines(), std::move(reader.comments())};
}

// How many entries a table of an unsorted read will hold at the end of the input, projected after
// every job so that tables are sized ahead, not by a series of doublings (a table's pages are all
// touched). While jobs make entries at a steady rate (distinct stacks) the rest of the input
// makes as many at that rate; when each job makes fewer than the one before (repeated stacks:
// later lines mostly reuse nodes), by a ratio r, the rest makes rate * r / (1 - r), the sum of
// that decline. And never more than eight times as many as there are. (Sized once by the first
// job's rate, the tree's table was 16 times too big for a file of repeated stacks.)
class TableProjection {
 public:
  explicit TableProjection(uint64_t input_bytes) : total_(input_bytes) {}
  // After a job of job_bytes took the table from `before` to `now` entries: the room to make,
  // or 0 after the first job and the last.
  size_t after(uint64_t job_bytes, size_t now, size_t before) {
    read_ += job_bytes;
    if (job_bytes == 0) return 0;
    const double left = read_ < total_ ? static_cast<double>(total_ - read_) : 0;
    const double rate = static_cast<double>(now - before) / job_bytes;
    double more = rate * left;
    if (rate < rate_) {
      const double r = rate / rate_;
      more = std::min(more, rate * job_bytes * r / (1 - r));
    }
    rate_ = rate;
    if (left == 0 || read_ == job_bytes) return 0;
    return static_cast<size_t>(std::min({now + more, 8.0 * now, double(uint64_t(1) << 28)}));
  }

 private:
  uint64_t total_, read_ = 0;
  double rate_ = 0;  // entries per byte made by the job before
};

// An unsorted input: jobs are cut (CutJob), and their lines go into one call tree (NodeTable)
// in input order. With threads, the reading thread cuts jobs ahead while another thread builds
// the tree, which cuts the next job itself when it would otherwise wait for it: the result is
// the same as on one thread.
ReadCounts read_unsorted(Input& input, TextSource& src, Progress& progress, bool threads, Dialect dialect, Profile& p) {
  // A plain file is mapped: jobs are pieces of the mapping, and frame texts stay where they are
  // (the profile keeps the mapping), instead of copies of both in memory of our own.
  std::string_view mapped;
  if (src.encoding() == TextEncoding::Utf8 && input.maps_whole()) {
    mapped = input.whole();
    if (mapped.substr(0, 3) == "\xEF\xBB\xBF") mapped.remove_prefix(3);  // a UTF-8 byte-order mark
  }
  size_t mapped_at = 0;
  // The next piece of input: about Input::kChunk of whole lines.
  auto next = [&](std::string_view& chunk) {
    if (mapped.empty()) return src.next(chunk);
    if (mapped_at == mapped.size()) return false;
    size_t end = std::min(mapped.size(), mapped_at + Input::kChunk);
    const void* nl = end < mapped.size() ? std::memchr(mapped.data() + end, '\n', mapped.size() - end) : nullptr;
    end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - mapped.data()) + 1 : mapped.size();
    chunk = mapped.substr(mapped_at, end - mapped_at);
    mapped_at = end;
    return true;
  };
  auto consumed = [&] { return mapped.empty() ? src.consumed() : mapped_at; };
  FrameTable frames(mapped);
  ReadCounts counts;
  // The tree: of a mapped file, checked against whole lines (LineTree); of a stream, whose lines
  // are gone, frame by frame (NodeTable).
  auto build = [&](auto& tree) {
  // A LineTree's nodes get their frames in a second stage (LineTree::add_frames).
  constexpr bool frames_later = std::is_same_v<std::decay_t<decltype(tree)>, LineTree>;
  const bool alone = !mapped.empty();  // LineTree takes each line's frames whole
  const uint64_t total = mapped.empty() ? input.size_on_disk() : mapped.size();
  TableProjection node_room(total), frame_room(total);
  // The tree's stage: a job's lines into the tree (and, in a NodeTable, their frames).
  auto add = [&](const CutJob& cut, std::string_view text, std::vector<uint32_t>& made) {
    const size_t nodes_before = tree.size(), frames_before = frames.size();
    if constexpr (frames_later) tree.add(cut, text, made);
    else tree.add(cut, text);
    if (const size_t room = node_room.after(text.size(), tree.size(), nodes_before)) tree.expect(room);
    if constexpr (!frames_later)
      if (const size_t room = frame_room.after(text.size(), frames.size(), frames_before)) frames.expect(room);
  };
  // A LineTree's second stage: the frames of the nodes a job made.
  auto add_frames = [&](const CutJob& cut, std::string_view text, const std::vector<uint32_t>& made) {
    if constexpr (frames_later) {
      const size_t frames_before = frames.size();
      tree.add_frames(cut, text, made, frames);
      if (const size_t room = frame_room.after(text.size(), frames.size(), frames_before)) frames.expect(room);
    }
  };
  std::vector<JobLines> jobs;
  auto done = [&](const CutJob& c) {
    counts.stacks += c.stacks;
    counts.bad += c.bad;
    counts.differential += c.differential;
    counts.comment_lines += c.comment_lines;
    for (const std::string& line : c.comments)
      if (counts.comments.size() < kKeptComments) counts.comments.push_back(line);
    jobs.push_back(JobLines{c.lines_read, c.first_bad});
  };
  if (!threads) {
    CutJob cut;
    std::vector<uint32_t> made;
    std::string_view chunk;
    while (next(chunk)) {
      cut.cut(chunk, dialect, alone);
      add(cut, chunk, made);
      add_frames(cut, chunk, made);
      done(cut);
      progress.update(consumed());
    }
  } else {
    struct Job {
      std::string_view text;  // in the mapping, or in `copy`
      std::string copy;
      CutJob cut;
      std::vector<uint32_t> made;  // LineTree::add's
      int state = 0;  // 0 read, 1 being cut, 2 cut (under mu)
    };
    // One being read, one being cut, one in the tree (and for a LineTree one having its frames
    // looked up).
    constexpr int kJobs = frames_later ? 4 : 3;
    std::vector<std::unique_ptr<Job>> pool;
    std::deque<Job*> free_jobs, queue;  // queue: read, in input order, not yet in the tree
    std::deque<Job*> built;  // out of the tree, in input order, their frames not yet looked up
    for (int i = 0; i < kJobs; ++i) {
      pool.push_back(std::make_unique<Job>());
      free_jobs.push_back(pool.back().get());
    }
    std::mutex mu;
    std::condition_variable cv;
    bool closed = false, tree_idle = false, tree_done = false, stop = false;
    bool framing = false;  // a thread is looking up the frames of a job out of the tree
    std::exception_ptr failure;
    auto fail = [&] {  // under mu
      if (!failure) failure = std::current_exception();
      stop = true;
    };
    // Cuts j if nobody has started to (the caller holds `lock`, which is released meanwhile).
    auto try_cut = [&](Job* j, std::unique_lock<std::mutex>& lock) {
      if (j->state != 0) return;
      j->state = 1;
      const bool skip = stop;
      lock.unlock();
      try {
        if (!skip) j->cut.cut(j->text, dialect, alone);
      } catch (...) {
        lock.lock();
        fail();
        lock.unlock();
      }
      lock.lock();
      j->state = 2;
      cv.notify_all();
    };
    // Whether a job's frames can be looked up now: one job at a time, in input order, by any
    // thread (under mu).
    auto frames_due = [&] { return !built.empty() && !framing; };
    // The frames of the oldest job out of the tree, which then goes back to the pool (the caller
    // holds `lock`, which is released meanwhile; frames_due()).
    auto frames_of_built = [&](std::unique_lock<std::mutex>& lock) {
      Job* j = built.front();
      built.pop_front();
      framing = true;
      const bool skip = stop;
      lock.unlock();
      try {
        if (!skip) add_frames(j->cut, j->text, j->made);
      } catch (...) {
        lock.lock();
        fail();
        lock.unlock();
      }
      lock.lock();
      framing = false;
      free_jobs.push_back(j);
      cv.notify_all();
    };
    auto uncut = [&] { return std::find_if(queue.begin(), queue.end(), [](Job* j) { return j->state == 0; }); };
    std::thread builder([&] {
      std::unique_lock<std::mutex> lock(mu);
      while (true) {
        tree_idle = true;
        cv.wait(lock, [&] { return !queue.empty() || closed; });
        tree_idle = false;
        if (queue.empty()) break;
        Job* j = queue.front();
        queue.pop_front();
        try_cut(j, lock);
        // While another thread cuts it: the frames of a job out of the tree, or a later job to cut.
        while (j->state != 2) {
          if (frames_due()) {
            frames_of_built(lock);
          } else if (auto later = uncut(); later != queue.end()) {
            try_cut(*later, lock);
          } else {
            cv.wait(lock, [&] { return j->state == 2 || frames_due() || uncut() != queue.end(); });
          }
        }
        if (!stop) {
          lock.unlock();
          try {
            add(j->cut, j->text, j->made);
            done(j->cut);
          } catch (...) {
            lock.lock();
            fail();
            lock.unlock();
          }
          lock.lock();
        }
        (frames_later && !stop ? built : free_jobs).push_back(j);
        cv.notify_all();
      }
      tree_done = true;
      cv.notify_all();
    });
    try {
      std::string_view chunk;
      std::unique_lock<std::mutex> lock(mu);
      while (!stop) {
        // A free buffer; while there is none, look up the frames of a job out of the tree, or
        // else cut the newest job nobody has started on.
        while (free_jobs.empty() && !stop) {
          auto idle = std::find_if(queue.rbegin(), queue.rend(), [](Job* j) { return j->state == 0; });
          if (frames_due())
            frames_of_built(lock);
          else if (idle != queue.rend())
            try_cut(*idle, lock);
          else
            cv.wait(lock, [&] { return !free_jobs.empty() || frames_due() || stop; });
        }
        if (stop) break;
        Job* j = free_jobs.front();
        free_jobs.pop_front();
        lock.unlock();
        bool more = next(chunk);
        if (more && mapped.empty()) {
          j->copy.assign(chunk);  // valid until the next chunk only
          chunk = j->copy;
        }
        j->text = chunk;
        progress.update(consumed());
        lock.lock();
        if (!more) {
          free_jobs.push_back(j);
          break;
        }
        j->state = 0;
        queue.push_back(j);
        cv.notify_all();
        if (!tree_idle) try_cut(j, lock);  // an idle tree thread takes it itself
      }
      closed = true;
      cv.notify_all();
      // The frames of the jobs still in the tree, as they come out of it.
      while (!stop && !(tree_done && built.empty() && !framing)) {
        if (frames_due()) frames_of_built(lock);
        else cv.wait(lock, [&] { return frames_due() || (tree_done && built.empty() && !framing) || stop; });
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      fail();
      closed = true;
      cv.notify_all();
    }
    builder.join();
    if (failure) std::rethrow_exception(failure);
  }
  progress.finish();
  counts.first_bad = first_bad_line(jobs);
  frames.drop_index();
  frames.give_texts(p.symbols.strings);  // the profile's names are these texts (or parts of them)
  if (!mapped.empty()) p.symbols.strings.adopt(input.keep_whole());
  FoldedFrames names(frames, dialect);
  stack_table::write_tree(names, tree, p);
  };
  if (mapped.empty()) {
    NodeTable tree(frames);
    build(tree);
  } else {
    LineTree tree(mapped);
    build(tree);
  }
  return counts;
}

}  // namespace

namespace {

// Comment lines as the profile's facts: "# key: value" as key and value, others as comments.
// Austin's "# mode:" says what its counts are: microseconds of wall or CPU time, or bytes.
void keep_comments(const ReadCounts& counts, Profile& p) {
  for (const std::string& c : counts.comments) {
    std::string_view t = c;
    t.remove_prefix(t[0] == '#' ? 1 : 2);
    while (!t.empty() && is_space(t.front())) t.remove_prefix(1);
    size_t colon = t.find(": ");
    bool keyed = colon != std::string_view::npos && colon > 0 && t.substr(0, colon).find(' ') == std::string_view::npos;
    std::string key = keyed ? std::string(t.substr(0, colon)) : "comment";
    std::string value(keyed ? trim_end(t.substr(colon + 2)) : t);
    if (keyed && key == "mode" && !p.columns.empty()) {
      if (value == "wall" || value == "cpu") p.columns[0].unit = "us";
      else if (value == "memory") p.columns[0].unit = "bytes";
    }
    p.facts.emplace_back(std::move(key), std::move(value));
  }
  if (counts.comment_lines > counts.comments.size())
    p.facts.emplace_back("comment lines", std::to_string(counts.comment_lines));
}

// Whether most stack lines of the head carry two counts (difffolded.pl's `stack before after`).
bool head_is_differential(std::string_view head) {
  std::string decoded;
  head = head_as_utf8(head, decoded);
  size_t pos = 0, at, two = 0, one = 0;
  double count;
  while (pos < head.size() && one + two < 20) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) break;
    std::string_view line = trim_end(head.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.empty() || is_comment_line(line) || !split_count(line, at, count)) continue;
    if (split_count(line.substr(0, at - 1), at, count)) ++two;
    else ++one;
  }
  return two > 0 && two >= one;
}

// A three-column folded file, `stack before after` (difffolded.pl's output, or `flamefold diff
// -o x.folded`): the two sides are read as two folded inputs and made one differential profile.
// A line with one count has it on both sides (unchanged).
Profile read_differential_folded(Input& input, const ReadOptions& options) {
  TextSource src(input);
  std::string before, after;
  std::string_view chunk;
  uint64_t lines = 0, bad = 0, first_bad = 0;
  while (src.next(chunk)) {
    size_t pos = 0;
    while (pos < chunk.size()) {
      size_t nl = chunk.find('\n', pos);
      if (nl == std::string_view::npos) nl = chunk.size();
      std::string_view line = trim_end(chunk.substr(pos, nl - pos));
      pos = nl + 1;
      ++lines;
      if (line.empty() || is_comment_line(line)) continue;
      size_t second_at, first_at;
      double count;
      if (!split_count(line, second_at, count)) {
        if (!first_bad) first_bad = lines;
        ++bad;
        continue;
      }
      std::string_view after_count = line.substr(second_at), rest = line.substr(0, second_at - 1);
      std::string_view stack = rest, before_count = after_count;
      if (split_count(rest, first_at, count)) {
        stack = rest.substr(0, first_at - 1);
        before_count = rest.substr(first_at);
      }
      auto add = [&](std::string& side, std::string_view n) {
        if (n.find_first_not_of("0.") == std::string_view::npos) return;  // a zero count: not on this side
        side.append(stack).push_back(' ');
        side.append(n).push_back('\n');
      };
      add(before, before_count);
      add(after, after_count);
    }
  }
  auto side = [&](const char* which, std::string text) {
    Input in = Input::from_memory(input.path() + " (" + which + ")", std::move(text));
    ReadOptions o = options;
    o.format = "folded";
    Profile p = read_folded(in, o);
    p.inputs = {input.path()};
    return p;
  };
  Profile d = make_diff(side("before", std::move(before)), side("after", std::move(after)), DiffOptions{});
  d.source_format = "folded (differential)";
  if (bad)
    d.count("lines without a trailing count (skipped; first at line " + std::to_string(first_bad) + ")", bad);
  return d;
}

}  // namespace

Profile read_folded(Input& input, const ReadOptions& options) {
  if (head_is_differential(input.head())) return read_differential_folded(input, options);
  Profile p;
  p.source_format = "folded";
  p.inputs.push_back(input.path());
  // The tree's arrays are built in one go, and the writer's after them: memory freed on the way
  // is reused rather than faulted in afresh.
  heap_reuse_freed_memory_for_input(input.size_on_disk());
  const Dialect dialect = detect_dialect(input.head());
  TextSource src(input);
  Progress progress(options.progress, "reading " + input.path(), input.size_on_disk());

  const unsigned workers = parallel_feed::workers_for(input, options);
  // Sorted input (stackcollapse-* output) is split between workers, whose few distinct frames
  // and listed stacks merge cheaply. Unsorted input (samplers' output) goes into one tree as it
  // comes: merging per-worker tables of many distinct frames cost what the second thread saved.
  ReadCounts counts = head_is_sorted(input.head(), dialect) ? read_sorted(src, progress, workers, dialect, p)
                                                            : read_unsorted(input, src, progress, workers > 1, dialect, p);
  if (dialect.kind == Dialect::CPython) p.source_format = "folded (CPython sampling profiler)";
  if (dialect.kind == Dialect::Austin) p.source_format = "folded (Austin)";
  if (dialect.kind == Dialect::PySpy) p.source_format = "folded (py-spy)";
  keep_comments(counts, p);
  if (src.encoding() != TextEncoding::Utf8)
    p.facts.emplace_back("encoding", src.encoding() == TextEncoding::Utf16LE ? "UTF-16 LE" : "UTF-16 BE");
  p.facts.emplace_back("stack lines", std::to_string(counts.stacks));
  if (counts.differential)
    p.facts.emplace_back("differential lines", std::to_string(counts.differential) + " (two counts; the second is used)");
  if (counts.bad)
    p.count("lines without a trailing count (skipped; first at line " + std::to_string(counts.first_bad) + ")",
            counts.bad);
  if (src.decode_errors()) p.count("invalid UTF-16 (replaced by U+FFFD)", src.decode_errors());
  return p;
}

}  // namespace flamefold
