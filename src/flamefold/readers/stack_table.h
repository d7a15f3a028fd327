// Readers' internal helper: distinct stacks (sequences of frame ids) with their summed
// weight, and building the call tree from them in canonical order (children by name), so
// a profile never depends on the order its samples came in.
#pragma once
#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "flamefold/hash.h"
#include "flamefold/profile.h"

namespace flamefold::stack_table {

// Distinct stacks (root first) and their summed weight: what stackcollapse-perf.pl keeps in
// its hash. Much smaller than a call tree while reading, and
// sorted once at the end to build the tree in canonical order.
class StackTable {
 public:
  StackTable() { slots_.assign(1024, Slot{}); mask_ = slots_.size() - 1; }

  void add(const FrameId* frames, uint32_t n, uint64_t h, double weight) {
    size_t i = h & mask_;
    while (true) {
      Slot& s = slots_[i];
      if (s.len_plus_one == 0) break;
      if (s.hash == h && s.len_plus_one == n + 1 &&
          std::memcmp(arena_.data() + s.begin, frames, n * sizeof(FrameId)) == 0) {
        s.weight += weight;
        return;
      }
      i = (i + 1) & mask_;
    }
    Slot& s = slots_[i];
    s.hash = h;
    s.begin = arena_.size();
    s.len_plus_one = n + 1;
    s.weight = weight;
    arena_.insert(arena_.end(), frames, frames + n);
    ++size_;
    if (size_ * 2 > slots_.size()) grow();
  }

  // Hands every stack to f(frames, n, weight) with its frames writable, and drops the hash
  // table: the table cannot be used afterwards, the frames stay until release().
  template <typename F>
  void rewrite(F&& f) {
    for (const Slot& s : slots_)
      if (s.len_plus_one) f(arena_.data() + s.begin, s.len_plus_one - 1, s.weight);
    std::vector<Slot>().swap(slots_);
    size_ = 0;
  }
  size_t size() const { return size_; }


 private:
  struct Slot {
    uint64_t hash = 0;
    uint64_t begin = 0;
    uint32_t len_plus_one = 0;  // 0 = empty slot
    double weight = 0;
  };
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (!s.len_plus_one) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].len_plus_one) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
  std::vector<FrameId> arena_;
};

inline uint64_t hash_frames(const FrameId* f, size_t n) {
  return hash_bytes(std::string_view(reinterpret_cast<const char*>(f), n * sizeof(FrameId)));
}

// Stacks in arrival order, duplicates allowed: what a reader keeps while its input arrives
// sorted. Equal stacks then sit side by side (merged as they come, or when the tree is built),
// so no hashing is needed.
class StackList {
 public:
  void add(const FrameId* frames, uint32_t n, double weight) {
    entries_.push_back(Entry{arena_.size(), n, weight});
    arena_.insert(arena_.end(), frames, frames + n);
  }
  // Adds weight to the stack added last (a repeat of it).
  void add_to_last(double weight) { entries_.back().weight += weight; }
  // Appends every stack of `from` with its frames mapped through `map`, emptying `from`.
  void append(StackList& from, const std::vector<FrameId>& map) {
    size_t base = arena_.size();
    arena_.reserve(base + from.arena_.size());
    for (FrameId f : from.arena_) arena_.push_back(map[f]);
    for (const Entry& e : from.entries_) entries_.push_back(Entry{base + e.begin, e.n, e.weight});
    from = StackList();
  }
  // Moves every stack into a hash table (the input turned out not to be sorted).
  void move_into(StackTable& table) {
    for (const Entry& e : entries_)
      table.add(arena_.data() + e.begin, e.n, hash_frames(arena_.data() + e.begin, e.n), e.weight);
    *this = StackList();
  }
  // Hands every stack to f(frames, n, weight) in arrival order with its frames writable.
  template <typename F>
  void rewrite(F&& f) {
    for (const Entry& e : entries_) f(arena_.data() + e.begin, e.n, e.weight);
    std::vector<Entry>().swap(entries_);
  }
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    uint64_t begin;
    uint32_t n;
    double weight;
  };
  std::vector<Entry> entries_;
  std::vector<FrameId> arena_;
};

// Builds the call tree from the distinct stacks: sorted by frame name (then category), then
// inserted in that order. Nodes and frames are thus numbered in a canonical order, the same
// whatever order samples came in and however the work was split.
// `stacks` is a StackTable or a StackList (whose duplicates end up side by side and merge).
template <typename Stacks>
void build_profile(const Symbols& all, Stacks& table, Profile& out) {
  const bool fresh = out.node_count() == 1;  // no children yet: append_new_child() is safe
  int column = out.add_column("samples", "samples");
  // Rank of each frame in (name, category) order: stacks then sort as integer sequences.
  std::vector<FrameId> by_name(all.frame_count());
  for (FrameId f = 0; f < by_name.size(); ++f) by_name[f] = f;
  std::sort(by_name.begin(), by_name.end(), [&](FrameId a, FrameId b) {
    std::string_view na = all.name(a), nb = all.name(b);
    if (na != nb) return na < nb;
    return all.category_name(all[a].category) < all.category_name(all[b].category);
  });
  std::vector<uint32_t> rank(by_name.size());
  for (uint32_t r = 0; r < by_name.size(); ++r) rank[by_name[r]] = r;

  struct Stack {
    const FrameId* ranks;
    uint32_t n;
    double weight;
  };
  std::vector<Stack> stacks;
  stacks.reserve(table.size());
  table.rewrite([&](FrameId* f, uint32_t n, double weight) {
    for (uint32_t k = 0; k < n; ++k) f[k] = rank[f[k]];
    stacks.push_back({f, n, weight});
  });
  auto by_ranks = [](const Stack& a, const Stack& b) {
    return std::lexicographical_compare(a.ranks, a.ranks + a.n, b.ranks, b.ranks + b.n);
  };
  // Folded files are usually sorted already: in first-seen order (the arena's order) the
  // stacks often need no lexicographic sort, which is far dearer than ordering by address.
  auto by_address = [](const Stack& a, const Stack& b) { return a.ranks < b.ranks; };
  if (!std::is_sorted(stacks.begin(), stacks.end(), by_address)) std::sort(stacks.begin(), stacks.end(), by_address);
  // Where they are not (byte order puts "f::g;" before "f;"), merge the ascending runs
  // bottom-up: n log(runs) comparisons instead of n log n. Equal stacks (a StackList's
  // repeats) end up side by side whatever their order, and add up in the same node.
  std::vector<size_t> runs{0};
  for (size_t i = 1; i < stacks.size(); ++i)
    if (by_ranks(stacks[i], stacks[i - 1])) runs.push_back(i);
  runs.push_back(stacks.size());
  while (runs.size() > 2) {
    std::vector<size_t> merged{0};
    for (size_t r = 0; r + 2 < runs.size(); r += 2) {
      std::inplace_merge(stacks.begin() + runs[r], stacks.begin() + runs[r + 1], stacks.begin() + runs[r + 2], by_ranks);
      merged.push_back(runs[r + 2]);
    }
    if (merged.back() != runs.back()) merged.push_back(runs.back());  // an odd run out
    runs.swap(merged);
  }

  // Exactly as many nodes as distinct prefixes: reserve them (no doubling slack).
  size_t nodes = 1;
  for (size_t i = 0; i < stacks.size(); ++i) {
    uint32_t common = 0;
    if (i)
      while (common < stacks[i].n && common < stacks[i - 1].n && stacks[i].ranks[common] == stacks[i - 1].ranks[common])
        ++common;
    nodes += stacks[i].n - common;
  }
  out.parent.reserve(nodes);
  out.frame.reserve(nodes);
  out.first_child.reserve(nodes);
  out.next_sibling.reserve(nodes);
  out.columns[column].self.reserve(nodes);

  // Insert in order, reusing the path shared with the previous stack.
  std::vector<FrameId> out_frame(by_name.size(), kNone);
  std::vector<NodeId> path;
  const Stack* prev = nullptr;
  for (const Stack& st : stacks) {
    uint32_t common = 0;
    if (prev)
      while (common < st.n && common < prev->n && st.ranks[common] == prev->ranks[common]) ++common;
    path.resize(common);
    NodeId n = common ? path.back() : 0;
    for (uint32_t k = common; k < st.n; ++k) {
      uint32_t r = st.ranks[k];
      if (out_frame[r] == kNone) {
        const Frame& fr = all[by_name[r]];
        out_frame[r] = out.symbols.frame(all.strings[fr.name], all.strings[fr.file], fr.line,
                                         out.symbols.category(all.category_name(fr.category)));
      }
      // Sorted distinct stacks: past the prefix shared with the previous stack every node is new.
      n = fresh ? out.append_new_child(n, out_frame[r]) : out.child(n, out_frame[r]);
      path.push_back(n);
    }
    out.add(n, column, st.weight);
    prev = &st;
  }
}

}  // namespace flamefold::stack_table
