#include "flamefold/profile.h"
#include "flamefold/prefetch.h"

#include <atomic>
#include <exception>
#include <thread>

namespace flamefold {

bool category::is_group(std::string_view c) {
  return c == kProcess || c == kThread || c == kRank || c == "device" || c == kLabel;
}

Symbols::Symbols() {
  categories_.push_back(strings.intern(""));
  frame_slots_.assign(1024, 0);
  frame_mask_ = frame_slots_.size() - 1;
}

static uint64_t frame_key(StrId name, StrId file, uint32_t line, CategoryId cat) {
  return mix64((uint64_t(name) << 32 | file) ^ mix64(uint64_t(line) << 16 | cat));
}

// A slot holds id + 1 in its low half and the top half of the frame's key in its high half, so
// probing reads the frame itself only when the keys agree.
static uint64_t frame_slot(FrameId id, uint64_t key) { return (key & 0xFFFFFFFF00000000ULL) | (uint64_t(id) + 1); }

void Symbols::reserve(size_t frames, size_t strings_too) {
  strings.reserve(strings_too);
  frames_.reserve(frames);
  frame_keys_.reserve(frames);
  size_t slots = frame_slots_.size();
  while (frames * 2 > slots) slots *= 2;
  if (slots != frame_slots_.size()) rehash_frames(slots);
}

void Symbols::grow_frames() { rehash_frames(frame_slots_.size() * 2); }

void Symbols::rehash_frames(size_t slots) {
  std::vector<uint64_t>(slots, 0).swap(frame_slots_);
  frame_mask_ = frame_slots_.size() - 1;
  for (FrameId id = 0; id < frame_keys_.size(); ++id) {
    size_t i = frame_keys_[id] & frame_mask_;
    while (frame_slots_[i]) i = (i + 1) & frame_mask_;
    frame_slots_[i] = frame_slot(id, frame_keys_[id]);
  }
}

void Symbols::index_appended_frames() {
  for (FrameId id = static_cast<FrameId>(frame_keys_.size()); id < frames_.size(); ++id) {
    const Frame& f = frames_[id];
    const uint64_t key = frame_key(f.name, f.file, f.line, f.category);
    frame_keys_.push_back(key);
    if (frame_keys_.size() * 2 > frame_slots_.size()) {
      grow_frames();
      continue;  // placed it
    }
    size_t i = key & frame_mask_;
    while (frame_slots_[i]) i = (i + 1) & frame_mask_;
    frame_slots_[i] = frame_slot(id, key);
  }
}

FrameId Symbols::frame(StrId name, StrId file, uint32_t line, CategoryId cat) {
  if (frame_keys_.size() < frames_.size()) index_appended_frames();
  uint64_t key = frame_key(name, file, line, cat);
  size_t i = key & frame_mask_;
  while (uint64_t slot = frame_slots_[i]) {
    if ((slot ^ key) >> 32 == 0) {
      FrameId id = static_cast<FrameId>(slot - 1);
      const Frame& f = frames_[id];
      if (f.name == name && f.file == file && f.line == line && f.category == cat) return id;
    }
    i = (i + 1) & frame_mask_;
  }
  FrameId id = static_cast<FrameId>(frames_.size());
  frames_.push_back(Frame{name, file, line, cat});
  frame_keys_.push_back(key);
  frame_slots_[i] = frame_slot(id, key);
  if (frames_.size() * 2 > frame_slots_.size()) grow_frames();
  return id;
}

void Symbols::prefetch_frame(StrId name, StrId file, uint32_t line, CategoryId cat) const {
  flamefold::prefetch(&frame_slots_[frame_key(name, file, line, cat) & frame_mask_]);
}

CategoryId Symbols::category(std::string_view name) {
  if (name.empty()) return 0;  // interned by the constructor
  StrId s = strings.intern(name);
  for (size_t i = 0; i < categories_.size(); ++i)
    if (categories_[i] == s) return static_cast<CategoryId>(i);
  categories_.push_back(s);
  return static_cast<CategoryId>(categories_.size() - 1);
}

Profile::Profile() {
  parent.push_back(kNone);
  frame.push_back(kNone);
  first_child.push_back(kNone);
  next_sibling.push_back(kNone);
}

NodeId Profile::append_new_child(NodeId p, FrameId f) {
  NodeId n = static_cast<NodeId>(parent.size());
  parent.push_back(p);
  frame.push_back(f);
  first_child.push_back(kNone);
  next_sibling.push_back(first_child[p]);
  first_child[p] = n;
  for (WeightColumn& c : columns) c.self.push_back(0);
  if (is_wide(p)) wide_children_.set(uint64_t(p) << 32 | f, n);
  return n;
}

void Profile::make_wide(NodeId p) {
  if (wide_.size() <= p) wide_.resize(parent.size(), 0);
  wide_[p] = 1;
  for (NodeId c = first_child[p]; c != kNone; c = next_sibling[c])
    wide_children_.find_or_insert(uint64_t(p) << 32 | frame[c], c);  // the newest of duplicates wins
}

NodeId Profile::child(NodeId p, FrameId f) {
  if (!is_wide(p)) {
    int seen = 0;
    for (NodeId c = first_child[p]; c != kNone; c = next_sibling[c]) {
      if (frame[c] == f) return c;
      if (++seen == kScanChildren) break;
    }
    if (seen < kScanChildren) return append_new_child(p, f);
    make_wide(p);  // index its children once, then look them up
  }
  const NodeId fresh = static_cast<NodeId>(parent.size());
  const NodeId n = wide_children_.find_or_insert(uint64_t(p) << 32 | f, fresh);
  return n != fresh ? n : append_new_child(p, f);  // which sets the same entry again
}

NodeId Profile::find_child(NodeId p, FrameId f) const {
  if (is_wide(p)) {
    NodeId n = wide_children_.find(uint64_t(p) << 32 | f);
    return n == U64Map::kMissing ? kNone : n;
  }
  for (NodeId c = first_child[p]; c != kNone; c = next_sibling[c])
    if (frame[c] == f) return c;
  return kNone;
}

NodeId Profile::path(NodeId from, std::span<const FrameId> frames) {
  for (FrameId f : frames) from = child(from, f);
  return from;
}

int Profile::add_column(std::string name, std::string unit) {
  columns.push_back(WeightColumn{std::move(name), std::move(unit), std::vector<double>(node_count(), 0)});
  return static_cast<int>(columns.size() - 1);
}

int Profile::column(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name == name) return static_cast<int>(i);
  return -1;
}

std::vector<double> Profile::totals(int c) const {
  std::vector<double> t = columns[c].self;
  for (size_t n = t.size(); n-- > 1;) t[parent[n]] += t[n];
  return t;
}

double Profile::total(int c) const {
  double s = 0;
  for (double w : columns[c].self) s += w;
  return s;
}

uint32_t Profile::depth(NodeId n) const {
  uint32_t d = 0;
  while (n != 0) {
    n = parent[n];
    ++d;
  }
  return d;
}

void add_to_counters(std::vector<Counter>& counters, std::string_view what, uint64_t n) {
  for (Counter& c : counters)
    if (c.what == what) {
      c.count += n;
      return;
    }
  counters.push_back(Counter{std::string(what), n});
}

void Profile::count(std::string_view what, uint64_t n) { add_to_counters(counters, what, n); }

}  // namespace flamefold
