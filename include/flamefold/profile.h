// The one model every writer reads (see docs/DESIGN.md):
//   Symbols  — interned strings, the frame table (name, file, line, category) and categories;
//   Profile  — a call tree in flat arrays with one or more weight columns, each with its unit.
//
// Threads, processes and ranks are ordinary frames whose category is "process", "thread"
// or "rank" at the top of the tree ("group frames"). That keeps per-thread weights exact:
// a viewer filters threads by choosing group subtrees and merges them when asked.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "flamefold/device_ops.h"
#include "flamefold/hash.h"
#include "flamefold/strings.h"
#include "flamefold/two_threads.h"

namespace flamefold {

using FrameId = uint32_t;
using NodeId = uint32_t;
using CategoryId = uint16_t;
inline constexpr uint32_t kNone = UINT32_MAX;

// Category names the rest of the code relies on.
namespace category {
inline constexpr std::string_view kNone = "";
inline constexpr std::string_view kProcess = "process";
inline constexpr std::string_view kThread = "thread";
inline constexpr std::string_view kRank = "rank";
inline constexpr std::string_view kLabel = "label";  // a pprof sample label other than those: "key=value"
inline constexpr std::string_view kKernel = "kernel";
inline constexpr std::string_view kMemcpy = "memcpy";
inline constexpr std::string_view kMemset = "memset";
bool is_group(std::string_view category);  // process, thread, rank, device, label
}  // namespace category

struct Frame {
  StrId name = 0;
  StrId file = 0;  // 0 = unknown
  uint32_t line = 0;  // 0 = unknown
  CategoryId category = 0;
};

class Symbols {
 public:
  Symbols();
  StringTable strings;

  FrameId frame(StrId name, StrId file = 0, uint32_t line = 0, CategoryId category = 0);
  FrameId frame(std::string_view name, std::string_view file = {}, uint32_t line = 0,
                CategoryId category = 0) {
    // The file before the name: the order GCC evaluated the two calls in when they were
    // arguments of one call, so string ids stay as they were.
    StrId f = file.empty() ? 0 : strings.intern(file);
    return frame(strings.intern(name), f, line, category);
  }
  // A frame by its texts: what frame(name, file, line, category(category)) makes.
  struct FrameText {
    std::string_view name, file;
    uint32_t line = 0;
    std::string_view category;
    uint64_t name_hash = 0;  // hash_bytes(name) when the caller has it; 0: computed here
    bool stored = false;     // name and file lie in text `strings` adopted: not copied
  };
  // Makes or finds n frames, text_of(i) -> FrameText naming the i-th, into ids[i]: the same
  // frames, strings and categories, with the same ids, as calling category() and frame() for
  // each in turn; but the table probes of the next frames are in flight meanwhile (a cache
  // miss each, which was most of the time of making a million new frames one by one).
  template <typename TextOf>
  void frames(size_t n, TextOf&& text_of, FrameId* ids) {
    frames(n, text_of, ids, [](size_t) {});
  }
  // The same, with prefetch(i) called well before text_of(i), to request what it will read.
  template <typename TextOf, typename Prefetch>
  void frames(size_t n, TextOf&& text_of, FrameId* ids, Prefetch&& prefetch);
  // Room for this many frames and strings in all, without growing.
  void reserve(size_t frames, size_t strings);
  // Makes n frames the table does not have, text_of(i) -> FrameText naming the i-th, into
  // ids[i]. For frames known to be distinct, each with a name no other string has (or an empty
  // one), no file and no category, and the names inside text `strings` adopted: then nothing
  // needs looking up, and they are appended; the lookup tables catch up at the next frame() or
  // intern(). (A million distinct frames otherwise cost a probe of each table per frame.)
  // prefetch(i) is called well before text_of(i), to request what it will read.
  template <typename TextOf, typename Prefetch>
  void append_distinct(size_t n, TextOf&& text_of, FrameId* ids, Prefetch&& prefetch);
  // Room for this many more frames made by append_distinct() in all, and their names, when they
  // come in several calls (each call otherwise makes room for its own).
  void expect_appended(size_t n) {
    frames_.reserve(frames_.size() + n);
    strings.reserve_appended(strings.size() + n);
  }

  const Frame& operator[](FrameId id) const { return frames_[id]; }
  std::string_view name(FrameId id) const { return strings[frames_[id].name]; }
  std::string_view file(FrameId id) const { return strings[frames_[id].file]; }
  size_t frame_count() const { return frames_.size(); }

  CategoryId category(std::string_view name);  // interns; 0 is the empty category
  std::string_view category_name(CategoryId id) const { return strings[categories_[id]]; }
  size_t category_count() const { return categories_.size(); }
  bool is_group(FrameId id) const { return category::is_group(category_name(frames_[id].category)); }

 private:
  std::vector<Frame> frames_;
  std::vector<StrId> categories_;
  // The lookup table, for the first frame_keys_.size() frames (the others were appended).
  std::vector<uint64_t> frame_keys_;
  std::vector<uint64_t> frame_slots_;  // the key's top half, id + 1; 0 = empty
  size_t frame_mask_ = 0;
  void grow_frames();
  void rehash_frames(size_t slots);
  void index_appended_frames();
  void prefetch_frame(StrId name, StrId file, uint32_t line, CategoryId category) const;
};

template <typename TextOf, typename Prefetch>
void Symbols::append_distinct(size_t n, TextOf&& text_of, FrameId* ids, Prefetch&& prefetch) {
  if (frames_.capacity() < frames_.size() + n) expect_appended(n);
  constexpr size_t kAhead = 32;
  for (size_t i = 0; i < n && i < kAhead; ++i) prefetch(i);
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) prefetch(i + kAhead);
    FrameText t = text_of(i);
    if (!t.file.empty() || !t.category.empty() || !t.stored)
      throw std::logic_error("Symbols::append_distinct: a frame with a file or a category, or a name not in adopted text");
    ids[i] = static_cast<FrameId>(frames_.size());
    frames_.push_back(Frame{t.name.empty() ? 0 : strings.append_unique_stored(t.name), 0, t.line, 0});
  }
}

template <typename TextOf, typename Prefetch>
void Symbols::frames(size_t n, TextOf&& text_of, FrameId* ids, Prefetch&& prefetch) {
  if (n > 1) reserve(frames_.size() + n, strings.size() + n);  // at least a name each, mostly new
  // Two stages over blocks of frames: their strings (category, file, name: the order one
  // frame() call after another interns them in), then the frames. A big batch runs the string
  // stage a few blocks ahead on a second thread: the two touch disjoint tables.
  struct Made {
    StrId name, file;
    uint32_t line;
    CategoryId category;
  };
  constexpr size_t kBlock = 4096, kRing = 8, kAhead = 8;
  std::vector<Made> made(std::min(n, kBlock * kRing));
  std::vector<FrameText> texts(std::min(n, kBlock));
  std::vector<uint64_t> file_hashes(texts.size());
  auto strings_stage = [&](size_t block) {
    const size_t from = block * kBlock, to = std::min(n, from + kBlock);
    Made* out = made.data() + (block % kRing) * kBlock - from;
    // The block's texts first, in a loop of independent reads (their cache misses overlap),
    // then the strings, each string's table slot requested kAhead frames ahead.
    for (size_t i = from; i < to && i < from + 4 * kAhead; ++i) prefetch(i);
    for (size_t i = from; i < to; ++i) {
      if (i + 4 * kAhead < to) prefetch(i + 4 * kAhead);
      FrameText& t = texts[i - from];
      t = text_of(i);
      if (!t.name_hash) t.name_hash = hash_bytes(t.name);
      if (!t.file.empty()) file_hashes[i - from] = hash_bytes(t.file);
    }
    auto request = [&](size_t k) {
      strings.prefetch(texts[k].name_hash);
      if (!texts[k].file.empty()) strings.prefetch(file_hashes[k]);
    };
    for (size_t k = 0; k < to - from && k < 4 * kAhead; ++k) request(k);
    for (size_t k = 0; k < to - from; ++k) {
      if (k + 4 * kAhead < to - from) request(k + 4 * kAhead);
      const FrameText& t = texts[k];
      Made& m = out[from + k];
      m.category = category(t.category);
      m.file = t.file.empty() ? 0
               : t.stored     ? strings.intern_stored(t.file, file_hashes[k])
                              : strings.intern(t.file, file_hashes[k]);
      m.name = t.stored ? strings.intern_stored(t.name, t.name_hash) : strings.intern(t.name, t.name_hash);
      m.line = t.line;
    }
  };
  auto frames_stage = [&](size_t block) {
    const size_t from = block * kBlock, to = std::min(n, from + kBlock);
    const Made* in = made.data() + (block % kRing) * kBlock - from;
    for (size_t i = from; i < to && i < from + kAhead; ++i) prefetch_frame(in[i].name, in[i].file, in[i].line, in[i].category);
    for (size_t i = from; i < to; ++i) {
      if (i + kAhead < to) {
        const Made& m = in[i + kAhead];
        prefetch_frame(m.name, m.file, m.line, m.category);
      }
      ids[i] = frame(in[i].name, in[i].file, in[i].line, in[i].category);
    }
  };
  in_two_stages((n + kBlock - 1) / kBlock, kRing, n >= 16 * kBlock, strings_stage, frames_stage);
}

struct TimelineChart;  // timeline/chart.h

struct WeightColumn {
  std::string name;  // "samples", "cpu", "gpu", "npu", "kernels", "calls", ...
  std::string unit;  // "samples", "ns", "count"
  std::vector<double> self;  // per node
};

// Recoverable oddities seen while reading, reported in one summary line.
struct Counter {
  std::string what;
  uint64_t count = 0;
};
// Adds n to the counter named `what`, creating it (in first-seen order) when new.
void add_to_counters(std::vector<Counter>& counters, std::string_view what, uint64_t n);

class Profile {
 public:
  Profile();
  Symbols symbols;

  // The call tree. Node 0 is the root; it has no frame.
  std::vector<NodeId> parent;
  std::vector<FrameId> frame;
  std::vector<NodeId> first_child;
  std::vector<NodeId> next_sibling;
  std::vector<WeightColumn> columns;
  int default_column = 0;

  // Facts about where the profile came from, shown by `info` and the viewer.
  std::string source_format;
  std::vector<std::string> inputs;
  std::vector<std::pair<std::string, std::string>> facts;  // ("events", "1234") ...
  std::vector<Counter> counters;
  std::vector<DeviceOpStats> device_ops;  // traced formats: per kernel/memcpy/memset name (device_ops.h)
  // Traced formats, when ReadOptions::chart_events asked for it: the events in time order, for
  // the HTML viewer's flame chart (timeline/chart.h); other writers ignore it.
  std::shared_ptr<const TimelineChart> chart;

  size_t node_count() const { return parent.size(); }
  // Finds or creates. Most parents have a few children: their sibling list is scanned. A parent
  // with more than kScanChildren gets its children into an index (parent, frame) -> node, kept
  // up to date from then on; a profile-wide index would cost 16+ bytes per node (33-50 MB for
  // 1M nodes) for the few wide parents.
  NodeId child(NodeId parent_node, FrameId f);
  NodeId find_child(NodeId parent_node, FrameId f) const;  // kNone when absent
  // Appends a child the caller knows is new (no child of parent_node has frame f yet), without
  // looking: readers that build the tree in sorted order use it.
  NodeId append_new_child(NodeId parent_node, FrameId f);
  NodeId path(NodeId from, std::span<const FrameId> frames);  // child() along frames

  int add_column(std::string name, std::string unit);  // returns its index
  int column(std::string_view name) const;  // -1 when absent
  void add(NodeId node, int column_index, double weight) {
    columns[column_index].self[node] += weight;
  }
  // Inclusive weights of one column (children before parents: nodes are created after their parent).
  std::vector<double> totals(int column_index) const;
  double total(int column_index) const;  // sum of self over all nodes
  uint32_t depth(NodeId node) const;

  void count(std::string_view what, uint64_t n = 1);  // add to a counter

 private:
  static constexpr int kScanChildren = 8;
  bool is_wide(NodeId n) const { return n < wide_.size() && wide_[n]; }
  void make_wide(NodeId n);
  std::vector<uint8_t> wide_;  // per node: 1 when its children are in wide_children_
  U64Map wide_children_{64};   // (parent << 32 | frame) -> node, for wide parents only
};

}  // namespace flamefold
