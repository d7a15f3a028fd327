// The one model every writer reads (see docs/DESIGN.md):
//   Symbols  — interned strings, the frame table (name, file, line, category) and categories;
//   Profile  — a call tree in flat arrays with one or more weight columns, each with its unit.
//
// Threads, processes and ranks are ordinary frames whose category is "process", "thread"
// or "rank" at the top of the tree ("group frames"). That keeps per-thread weights exact:
// a viewer filters threads by choosing group subtrees and merges them when asked.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flamefold/device_ops.h"
#include "flamefold/hash.h"
#include "flamefold/strings.h"

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
inline constexpr std::string_view kKernel = "kernel";
inline constexpr std::string_view kMemcpy = "memcpy";
inline constexpr std::string_view kMemset = "memset";
bool is_group(std::string_view category);  // process, thread, rank, device
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
  void frames(size_t n, TextOf&& text_of, FrameId* ids);
  // Room for this many frames and strings in all, without growing.
  void reserve(size_t frames, size_t strings);

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
  std::vector<uint64_t> frame_keys_;  // per frame, for growing the table
  std::vector<uint64_t> frame_slots_;  // the key's top half, id + 1; 0 = empty
  size_t frame_mask_ = 0;
  void grow_frames();
  void rehash_frames(size_t slots);
  void prefetch_frame(StrId name, StrId file, uint32_t line, CategoryId category) const;
};

template <typename TextOf>
void Symbols::frames(size_t n, TextOf&& text_of, FrameId* ids) {
  // Three stages, kAhead frames apart: hash the texts and request their string slots; intern
  // the strings (in order: category, file, name, as one frame() call after another does) and
  // request the frame slot; make the frame.
  constexpr size_t kAhead = 8, kRing = 2 * kAhead;
  struct Pending {
    FrameText text;
    uint64_t file_hash;
    StrId name, file;
    CategoryId category;
  } ring[kRing];
  if (n > 1) reserve(frames_.size() + n, strings.size() + n);  // at least a name each, mostly new
  for (size_t i = 0; i < n + 2 * kAhead; ++i) {
    if (i >= 2 * kAhead) {
      const Pending& p = ring[i % kRing];  // frame i - 2 * kAhead
      ids[i - 2 * kAhead] = frame(p.name, p.file, p.text.line, p.category);
    }
    if (i >= kAhead && i - kAhead < n) {
      Pending& p = ring[(i - kAhead) % kRing];
      p.category = category(p.text.category);
      p.file = p.text.file.empty() ? 0
               : p.text.stored  ? strings.intern_stored(p.text.file, p.file_hash)
                                : strings.intern(p.text.file, p.file_hash);
      p.name = p.text.stored ? strings.intern_stored(p.text.name, p.text.name_hash)
                             : strings.intern(p.text.name, p.text.name_hash);
      prefetch_frame(p.name, p.file, p.text.line, p.category);
    }
    if (i < n) {
      Pending& p = ring[i % kRing];
      p.text = text_of(i);
      if (!p.text.name_hash) p.text.name_hash = hash_bytes(p.text.name);
      strings.prefetch(p.text.name_hash);
      if (!p.text.file.empty()) {
        p.file_hash = hash_bytes(p.text.file);
        strings.prefetch(p.file_hash);
      }
    }
  }
}

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
