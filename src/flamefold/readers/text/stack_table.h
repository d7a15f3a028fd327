// Readers' internal helper: distinct stacks (sequences of frame ids) with their summed
// weight, and building the call tree from them in canonical order (children by name, then
// category, file and line; see write_tree), so a profile never depends on the order its
// samples came in.
#pragma once
#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <vector>

#include "flamefold/hash.h"
#include "flamefold/profile.h"
#include "flamefold/two_threads.h"
#include "flamefold/prefetch.h"

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
      // n == 0: the empty stack, whose pointers may be null (memcmp must not see them).
      if (s.hash == h && s.len_plus_one == n + 1 &&
          (n == 0 || std::memcmp(arena_.data() + s.begin, frames, n * sizeof(FrameId)) == 0)) {
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
  size_t frames() const { return arena_.size(); }  // over all stacks

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
  size_t frames() const { return arena_.size(); }  // over all stacks

 private:
  struct Entry {
    uint64_t begin;
    uint32_t n;
    double weight;
  };
  std::vector<Entry> entries_;
  std::vector<FrameId> arena_;
};

// The call tree of the distinct stacks, before it is put in canonical order: nodes are
// numbered as the stacks create them. Stacks come in any order; each one reuses the nodes of
// the frames it shares with the stack before it and looks the rest up.
class Trie {
 public:
  // `grouped`: stacks come mostly in tree order (a sorted folded file), so a new frame is
  // nearly always under a parent created by the same stack or the one before: its siblings
  // are scanned (an index only for parents with many). Otherwise (stacks in hash or input
  // order) every level is looked up in a table placed by a hash of the whole prefix, so the
  // probes of one stack do not wait for each other: their cache misses overlap.
  explicit Trie(bool grouped, size_t expected_nodes = 0) : grouped_(grouped) {
    parent.push_back(kNone);
    frame.push_back(kNone);
    self.push_back(0);
    if (grouped_) {
      first_child_.push_back(kNone);
      next_sibling_.push_back(kNone);
    } else {
      hash_.push_back(0x243f6a8885a308d3ULL);
      size_t slots = 1024;
      while (slots < expected_nodes * 2) slots <<= 1;
      slots_.assign(slots, Slot{});
      mask_ = slots - 1;
    }
  }

  size_t size() const { return parent.size(); }

  // Adds a stack (root first) with its weight: a repeat adds to the same node.
  void add(const FrameId* f, uint32_t n, double weight) {
    uint32_t common = 0;
    while (common < n && common < prev_.size() && f[common] == prev_[common]) ++common;
    prev_.assign(f, f + n);
    path_.resize(common);
    NodeId node = common ? path_[common - 1] : 0;
    if (grouped_) {
      bool fresh = false;  // node was made by this stack: it has no other children yet
      for (uint32_t k = common; k < n; ++k) {
        node = fresh ? new_node(node, f[k], 0) : scan_child(node, f[k], fresh);
        path_.push_back(node);
      }
    } else {
      hashes_.resize(n);
      uint64_t h = hash_[node];
      for (uint32_t k = common; k < n; ++k) {
        h = step(h, f[k]);
        hashes_[k] = h;
        flamefold::prefetch(&slots_[h & mask_]);
      }
      bool fresh = false;
      for (uint32_t k = common; k < n; ++k) {
        node = hashed_child(node, f[k], hashes_[k], fresh);
        path_.push_back(node);
      }
    }
    self[node] += weight;
  }

  // Adds every stack of `other` (a trie of the same kind), its frames renumbered through
  // `map`: each node's weight adds to the node of the same path here.
  void merge(const Trie& other, const std::vector<FrameId>& map) {
    std::vector<NodeId> here(other.size());
    here[0] = 0;
    prev_.clear();  // add()'s shortcut would not know these nodes
    path_.clear();
    for (NodeId n = 1; n < other.size(); ++n) {  // parents before children
      bool fresh = false;
      NodeId p = here[other.parent[n]];
      FrameId f = map[other.frame[n]];
      here[n] = grouped_ ? scan_child(p, f, fresh) : hashed_child(p, f, step(hash_[p], f), fresh);
    }
    for (NodeId n = 0; n < other.size(); ++n) self[here[n]] += other.self[n];
  }

  // Drops what only lookups need; parent, frame and self stay.
  void finish() {
    std::vector<FrameId>().swap(prev_);
    std::vector<NodeId>().swap(path_);
    std::vector<uint64_t>().swap(hashes_);
    std::vector<NodeId>().swap(first_child_);
    std::vector<NodeId>().swap(next_sibling_);
    std::vector<uint8_t>().swap(wide_);
    wide_children_ = U64Map(16);
    std::vector<uint64_t>().swap(hash_);
    std::vector<Slot>().swap(slots_);
  }

  std::vector<NodeId> parent;
  std::vector<FrameId> frame;
  std::vector<double> self;

 private:
  static uint64_t step(uint64_t h, FrameId f) { return mix64(h + (uint64_t(f) + 1) * 0x9e3779b97f4a7c15ULL); }

  NodeId new_node(NodeId p, FrameId f, uint64_t h) {
    NodeId n = static_cast<NodeId>(parent.size());
    parent.push_back(p);
    frame.push_back(f);
    self.push_back(0);
    if (grouped_) {
      first_child_.push_back(kNone);
      next_sibling_.push_back(first_child_[p]);
      first_child_[p] = n;
      if (p < wide_.size() && wide_[p]) wide_children_.set(uint64_t(p) << 32 | f, n);
    } else {
      hash_.push_back(h);
    }
    return n;
  }

  NodeId scan_child(NodeId p, FrameId f, bool& fresh) {
    if (p < wide_.size() && wide_[p]) {
      NodeId c = wide_children_.find(uint64_t(p) << 32 | f);
      if (c != U64Map::kMissing) return c;
    } else {
      int seen = 0;
      for (NodeId c = first_child_[p]; c != kNone; c = next_sibling_[c], ++seen)
        if (frame[c] == f) return c;
      if (seen >= kScanChildren) {  // index this parent's children from now on
        if (wide_.size() <= p) wide_.resize(parent.size(), 0);
        wide_[p] = 1;
        for (NodeId c = first_child_[p]; c != kNone; c = next_sibling_[c]) wide_children_.set(uint64_t(p) << 32 | frame[c], c);
      }
    }
    fresh = true;
    return new_node(p, f, 0);
  }

  // The child of p with frame f, whose prefix hashes to h; made when absent (`fresh` then, and
  // deeper levels of the stack skip the comparisons: nothing can be under a new node yet).
  NodeId hashed_child(NodeId p, FrameId f, uint64_t h, bool& fresh) {
    size_t i = h & mask_;
    if (!fresh)
      for (; slots_[i].node; i = (i + 1) & mask_)
        if (slots_[i].parent == p && slots_[i].frame == f) return slots_[i].node;
    fresh = true;
    if ((parent.size() + 1) * 10 > slots_.size() * 7) {
      grow();
      i = h & mask_;
    }
    while (slots_[i].node) i = (i + 1) & mask_;
    NodeId n = new_node(p, f, h);
    slots_[i] = Slot{p, f, n};
    return n;
  }

  void grow() {
    std::vector<Slot>(slots_.size() * 2).swap(slots_);
    mask_ = slots_.size() - 1;
    for (NodeId n = 1; n < parent.size(); ++n) {
      size_t i = hash_[n] & mask_;
      while (slots_[i].node) i = (i + 1) & mask_;
      slots_[i] = Slot{parent[n], frame[n], n};
    }
  }

  static constexpr int kScanChildren = 8;
  struct Slot {
    NodeId parent = 0;
    FrameId frame = 0;
    NodeId node = 0;  // 0: empty (the root is nobody's child)
  };
  bool grouped_;
  std::vector<FrameId> prev_;
  std::vector<NodeId> path_;
  std::vector<uint64_t> hashes_;
  // grouped: sibling lists, and an index of the children of wide parents
  std::vector<NodeId> first_child_, next_sibling_;
  std::vector<uint8_t> wide_;
  U64Map wide_children_{64};
  // hashed: per node the hash of its prefix, and the table
  std::vector<uint64_t> hash_;
  std::vector<Slot> slots_;
  size_t mask_ = 0;
};

// The first 8 bytes of a name as a big-endian integer (zero-padded): names with smaller keys
// sort first; names with equal keys need comparing.
inline uint64_t name_key(std::string_view name) {
  uint64_t b = name.size() >= 8 ? 0 : load_tail(name.data(), name.size());
  if (name.size() >= 8) std::memcpy(&b, name.data(), 8);
  return __builtin_bswap64(b);
}

// Frames as a reader's Symbols table holds them.
class SymbolFrames {
 public:
  explicit SymbolFrames(const Symbols& s) : s_(s) {}
  size_t size() const { return s_.frame_count(); }
  // Sibling order: name, then category, then file and line.
  bool less(FrameId a, FrameId b) const {
    const Frame &x = s_[a], &y = s_[b];
    if (x.name != y.name) return s_.strings[x.name] < s_.strings[y.name];
    if (x.category != y.category) return s_.category_name(x.category) < s_.category_name(y.category);
    if (x.file != y.file) return s_.strings[x.file] < s_.strings[y.file];
    return x.line < y.line;
  }
  void prefetch(FrameId f) const { flamefold::prefetch(&s_[f]); }
  uint64_t key(FrameId f) const { return name_key(s_.name(f)); }
  Symbols::FrameText text(FrameId f) const {
    const Frame& fr = s_[f];
    return Symbols::FrameText{s_.strings[fr.name], s_.strings[fr.file], fr.line, s_.category_name(fr.category)};
  }

 private:
  const Symbols& s_;
};

// Whether out's frames can be appended without interning (make_frames_part): the reader's
// frames have names all different and in text `out` adopted, and out has none yet. Asked once,
// before the first part is made.
template <typename Frames>
bool appends_distinct(const Frames& frames, const Profile& out) {
  if constexpr (requires { frames.distinct_names(); })
    return frames.distinct_names() && out.symbols.frame_count() == 0 && out.symbols.strings.size() == 1;
  return false;
}

// Makes out's frames for met[from, to) (frames of the tree's nodes, in the order the depth-first
// walk first meets them), in that order: ids[k] is the frame made for met[k].
template <typename Frames>
void make_frames_part(const Frames& frames, const FrameId* met, size_t from, size_t to, bool distinct, FrameId* ids,
                      Profile& out) {
  auto text = [&](size_t i) { return frames.text(met[from + i]); };
  auto prefetch = [&](size_t i) { frames.prefetch(met[from + i]); };
  if (distinct) out.symbols.append_distinct(to - from, text, ids + from, prefetch);
  else out.symbols.frames(to - from, text, ids + from, prefetch);
}

// Renumbers nodes [first_node, ...) from the numbers frames were met in to the frames made
// (ids, make_frames_part's), unless those are the same.
inline void renumber_frames(const std::vector<FrameId>& ids, Profile& out, size_t first_node) {
  bool same = true;  // a frame per distinct frame of the stacks, numbered as met: nothing to renumber
  for (size_t i = 0; i < ids.size() && same; ++i) same = ids[i] == i;
  if (!same)
    for (size_t i = first_node; i < out.node_count(); ++i) out.frame[i] = ids[out.frame[i]];
}

// Makes out's frames for the frames the tree's nodes hold, numbered in the order `met` lists
// them (where the depth-first walk first meets them), and renumbers nodes [first_node, ...) from
// those numbers to the frames made.
template <typename Frames>
void make_frames(const Frames& frames, const std::vector<FrameId>& met, Profile& out, size_t first_node) {
  std::vector<FrameId> ids(met.size());
  make_frames_part(frames, met.data(), 0, met.size(), appends_distinct(frames, out), ids.data(), out);
  renumber_frames(ids, out, first_node);
}

// Writes `tree` (a Trie, or a reader's own with the same parent, frame and self arrays, nodes
// made after their parent, and finish()) into `out`, a new profile, in canonical order: the
// same whatever order the stacks came in and however the work was split. Children by (name,
// category, file, line), nodes numbered depth first, frames (and their strings) numbered where
// that walk first meets them. `frames` (SymbolFrames or a reader's own) names the frame ids the
// tree holds. Only siblings are ordered by name: sorting every frame by name first (as this
// once did) was half the time of reading a million distinct frames.
template <typename Frames, typename Tree>
void write_tree(const Frames& frames, Tree& tree, Profile& out) {
  if (out.node_count() != 1 || !out.columns.empty()) throw std::logic_error("stack_table::write_tree needs a new profile");
  const int column = out.add_column("samples", "samples");
  tree.finish();
  const size_t n = tree.size();

  // Children of every node (CSR): a counting sort by parent, then each run of siblings sorted
  // (on two threads when there are many).
  std::vector<uint32_t> start(n + 1, 0);
  for (size_t i = 1; i < n; ++i) ++start[tree.parent[i]];
  for (size_t i = 1; i <= n; ++i) start[i] += start[i - 1];
  std::vector<NodeId> children(n - 1);
  for (size_t i = n; i-- > 1;) children[--start[tree.parent[i]]] = static_cast<NodeId>(i);
  start[n] = static_cast<uint32_t>(children.size());
  // A run is sorted by the first 8 bytes of each child's name (as a big-endian integer, read
  // once per child), and only children whose names start alike by the whole frame order.
  auto sort_runs = [&](size_t from, size_t to) {  // the children of parents [from, to)
    struct Keyed {
      uint64_t key;
      NodeId node;
    };
    std::vector<Keyed> run;
    auto by_frame = [&](const Keyed& a, const Keyed& b) { return frames.less(tree.frame[a.node], tree.frame[b.node]); };
    for (size_t p = from; p < to; ++p) {
      if (start[p + 1] - start[p] < 2) continue;
      run.clear();
      for (uint32_t k = start[p]; k < start[p + 1]; ++k) run.push_back(Keyed{frames.key(tree.frame[children[k]]), children[k]});
      std::sort(run.begin(), run.end(), [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
      for (size_t i = 0; i < run.size();) {
        size_t j = i + 1;
        while (j < run.size() && run[j].key == run[i].key) ++j;
        if (j - i > 1) std::sort(run.begin() + i, run.begin() + j, by_frame);
        i = j;
      }
      for (size_t i = 0; i < run.size(); ++i) children[start[p] + i] = run[i].node;
    }
  };
  // A big tree's parents are split between two threads where half the children are.
  const bool two_threads = n >= (1 << 18);
  const size_t half =
      two_threads ? static_cast<size_t>(std::upper_bound(start.begin(), start.end() - 1, start[n] / 2) - start.begin()) : n;
  if (two_threads) on_two_threads([&] { sort_runs(0, half); }, [&] { sort_runs(half, n); });
  else sort_runs(0, n);

  // Depth-first numbers without a walk: a node's number is its parent's, plus one, plus the
  // sizes of the siblings before it. Subtree sizes come from one backward pass (children come
  // after parents); each child's offset from its parent from its run of siblings; numbers from
  // one forward pass (a parent's number is known before its children's). at[] holds a node's
  // size, then its offset, then its number. Each pass streams through the arrays instead of
  // going from node to node (a cache miss each), and all but the two one-line passes run on two
  // threads when the tree is big, each taking the parents (and nodes) of its half.
  std::vector<uint32_t> at(n, 1);
  for (size_t i = n; i-- > 1;) at[tree.parent[i]] += at[i];
  auto offsets = [&](size_t from, size_t to) {  // of the children of parents [from, to)
    for (size_t p = from; p < to; ++p) {
      uint32_t offset = 1;
      for (uint32_t k = start[p]; k < start[p + 1]; ++k) {
        const uint32_t size = at[children[k]];
        at[children[k]] = offset;
        offset += size;
      }
    }
  };
  at[0] = 0;
  out.parent.resize(n);
  out.frame.resize(n);
  out.first_child.resize(n);
  out.next_sibling.resize(n);
  std::vector<double>& self = out.columns[column].self;
  self.resize(n);
  // The links of the children of parents [from, to), and the frames and weights of nodes
  // [first, last), each where its number puts it.
  auto place = [&](size_t from, size_t to, size_t first, size_t last) {
    for (size_t p = from; p < to; ++p) {
      const NodeId here = at[p];
      NodeId older = kNone;
      for (uint32_t k = start[p]; k < start[p + 1]; ++k) {
        const NodeId c = at[children[k]];
        out.parent[c] = here;
        out.next_sibling[c] = older;  // newest first, as Profile::append_new_child links them
        older = c;
      }
      out.first_child[here] = older;
    }
    for (size_t i = first; i < last; ++i) {
      out.frame[at[i]] = tree.frame[i];
      self[at[i]] = tree.self[i];
    }
  };
  if (two_threads) on_two_threads([&] { offsets(0, half); }, [&] { offsets(half, n); });
  else offsets(0, n);
  for (size_t i = 1; i < n; ++i) at[i] += at[tree.parent[i]];
  if (two_threads) on_two_threads([&] { place(0, half, 0, n / 2); }, [&] { place(half, n, n / 2, n); });
  else place(0, n, 0, n);
  out.parent[0] = kNone;
  out.next_sibling[0] = kNone;
  std::vector<NodeId>().swap(children);
  std::vector<uint32_t>().swap(start);
  // The tree is written: its memory serves the frame and string tables instead.
  std::vector<uint32_t>().swap(at);
  std::vector<NodeId>().swap(tree.parent);
  std::vector<FrameId>().swap(tree.frame);
  std::vector<double>().swap(tree.self);
  // Frames in the order the walk meets them (`met`), each node's renumbered so (first stage),
  // and out's frames made for them (second stage), a block of nodes at a time; the first stage
  // on a second thread for a big tree.
  std::vector<FrameId> out_frame(frames.size(), kNone), met(frames.size()), ids(frames.size());
  size_t met_count = 0;
  constexpr size_t kBlock = size_t(1) << 16;
  const size_t blocks = (n - 1 + kBlock - 1) / kBlock;  // of nodes [1, n)
  std::vector<size_t> met_after(blocks);  // met_count after each block
  const bool distinct = appends_distinct(frames, out);
  // Room for them all at once (at most frames.size()): each part would otherwise make exactly
  // its own, a copy of the tables so far per block.
  if (distinct) out.symbols.expect_appended(frames.size());
  else out.symbols.reserve(out.symbols.frame_count() + frames.size(), out.symbols.strings.size() + frames.size());
  in_two_stages(
      blocks, 4, two_threads,
      [&](size_t b) {
        for (size_t i = 1 + b * kBlock, end = std::min(n, 1 + (b + 1) * kBlock); i < end; ++i) {
          FrameId& f = out.frame[i];
          if (out_frame[f] == kNone) {
            out_frame[f] = static_cast<FrameId>(met_count);
            met[met_count++] = f;
          }
          f = out_frame[f];
        }
        met_after[b] = met_count;
      },
      [&](size_t b) { make_frames_part(frames, met.data(), b ? met_after[b - 1] : 0, met_after[b], distinct, ids.data(), out); });
  std::vector<FrameId>().swap(out_frame);
  ids.resize(met_count);
  renumber_frames(ids, out, 1);
}

// The tree of distinct stacks with few distinct frames (a StackTable, or a StackList in the
// order a sorted folded file has them): every frame ranked by name (cheap when they are few),
// stacks ordered as sequences of ranks (a sorted file's mostly are already: byte order differs
// from name order only where a name is a prefix of another, "f1;" sorts before "f;", so only
// ascending runs are merged), then each node appended in canonical order, past the prefix
// shared with the stack before it.
template <typename Frames, typename Stacks>
void build_from_ranks(const Frames& frames, Stacks& list, Profile& out) {
  int column = out.add_column("samples", "samples");
  std::vector<FrameId> by_name(frames.size());
  for (FrameId f = 0; f < by_name.size(); ++f) by_name[f] = f;
  std::sort(by_name.begin(), by_name.end(), [&](FrameId a, FrameId b) { return frames.less(a, b); });
  std::vector<uint32_t> rank(by_name.size());
  for (uint32_t r = 0; r < by_name.size(); ++r) rank[by_name[r]] = r;

  struct Stack {
    const FrameId* ranks;
    uint32_t n;
    double weight;
  };
  std::vector<Stack> stacks;
  stacks.reserve(list.size());
  list.rewrite([&](FrameId* f, uint32_t n, double weight) {
    for (uint32_t k = 0; k < n; ++k) f[k] = rank[f[k]];
    stacks.push_back({f, n, weight});
  });
  auto by_ranks = [](const Stack& a, const Stack& b) {
    return std::lexicographical_compare(a.ranks, a.ranks + a.n, b.ranks, b.ranks + b.n);
  };
  // In first-seen order (the arena's), merge the ascending runs bottom-up: n log(runs)
  // comparisons. Equal stacks (repeats) end up side by side in the order they came.
  auto by_address = [](const Stack& a, const Stack& b) { return a.ranks < b.ranks; };
  if (!std::is_sorted(stacks.begin(), stacks.end(), by_address)) std::sort(stacks.begin(), stacks.end(), by_address);
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

  // Insert in order, reusing the path shared with the previous stack: past it every node is new.
  std::vector<FrameId> out_frame(by_name.size(), kNone), met;
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
        out_frame[r] = static_cast<FrameId>(met.size());
        met.push_back(by_name[r]);
      }
      n = out.append_new_child(n, out_frame[r]);
      path.push_back(n);
    }
    out.add(n, column, st.weight);
    prev = &st;
  }
  list = Stacks();
  make_frames(frames, met, out, 1);
}

// The call tree of distinct stacks (a StackTable, or a StackList whose repeats add up in one
// node in the order they came) in canonical order: see write_tree.
template <typename Frames, typename Stacks>
void build_profile(const Frames& frames, Stacks& stacks, Profile& out) {
  constexpr bool grouped = std::is_same_v<Stacks, StackList>;
  // Few distinct frames for the stacks' length (a real program's samples): ranking them all
  // costs less than ordering siblings afterwards.
  const size_t f = frames.size();
  if (out.node_count() == 1 && f * (std::bit_width(f) + 1) <= stacks.frames()) {
    build_from_ranks(frames, stacks, out);
    return;
  }
  Trie trie(grouped, grouped ? 0 : std::min(stacks.frames(), stacks.size() * 8));
  stacks.rewrite([&](FrameId* f, uint32_t n, double weight) { trie.add(f, n, weight); });
  stacks = Stacks();
  write_tree(frames, trie, out);
}

}  // namespace flamefold::stack_table
