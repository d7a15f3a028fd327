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
    return frame(strings.intern(name), file.empty() ? 0 : strings.intern(file), line, category);
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
  std::vector<uint64_t> frame_keys_;  // open addressing over frames_ (index + 1)
  std::vector<uint32_t> frame_slots_;
  size_t frame_mask_ = 0;
  void grow_frames();
};

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
