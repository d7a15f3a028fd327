// Building the call tree of sampled stacks in canonical order (readers/stack_table.h, the folded
// reader's tree of unsorted input) against a plain reference: every frame ranked by (name,
// category, file, line), the distinct stacks sorted by those ranks and inserted one by one.
// The profiles must be equal array for array, down to frame and string numbers.
#include <algorithm>
#include <cmath>
#include <memory>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "flamefold/input.h"
#include "flamefold/output.h"
#include "flamefold/options.h"
#include "flamefold/profile.h"
#include "flamefold/readers/text/folded.h"
#include "flamefold/readers/text/stack_table.h"
#include "flamefold/writers/folded.h"
#include "test_support.h"

using namespace flamefold;

namespace {

struct FrameSpec {
  std::string name, file;
  uint32_t line = 0;
  std::string category;
  auto key() const { return std::tie(name, category, file, line); }
  bool operator<(const FrameSpec& o) const { return key() < o.key(); }
  bool operator==(const FrameSpec& o) const { return key() == o.key(); }
};
using Stack = std::vector<FrameSpec>;
using Sample = std::pair<Stack, double>;

// The reference: distinct stacks (weights summed in input order) sorted by frame order, each
// inserted with Profile::child, frames made as first met.
Profile reference(const std::vector<Sample>& samples) {
  std::vector<Stack> order;
  std::map<Stack, double> weight;
  for (const auto& [stack, w] : samples) {
    auto [it, fresh] = weight.try_emplace(stack, 0.0);
    it->second += w;
    if (fresh) order.push_back(stack);
  }
  Profile p;
  int c = p.add_column("samples", "samples");
  std::map<FrameSpec, FrameId> made;
  for (const auto& [stack, w] : weight) {  // std::map: stacks in (name, category, file, line) order
    NodeId n = 0;
    for (const FrameSpec& f : stack) {
      auto it = made.find(f);
      if (it == made.end()) {
        CategoryId cat = p.symbols.category(f.category);
        it = made.emplace(f, p.symbols.frame(f.name, f.file, f.line, cat)).first;
      }
      n = p.child(n, it->second);
    }
    p.add(n, c, w);
  }
  return p;
}

void expect_same(const Profile& a, const Profile& b) {
  ASSERT_EQ(a.node_count(), b.node_count());
  EXPECT_EQ(a.parent, b.parent);
  EXPECT_EQ(a.frame, b.frame);
  EXPECT_EQ(a.first_child, b.first_child);
  EXPECT_EQ(a.next_sibling, b.next_sibling);
  ASSERT_EQ(a.columns.size(), b.columns.size());
  for (size_t c = 0; c < a.columns.size(); ++c) EXPECT_EQ(a.columns[c].self, b.columns[c].self);
  ASSERT_EQ(a.symbols.frame_count(), b.symbols.frame_count());
  for (FrameId f = 0; f < a.symbols.frame_count(); ++f) {
    const Frame &x = a.symbols[f], &y = b.symbols[f];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.file, y.file);
    EXPECT_EQ(x.line, y.line);
    EXPECT_EQ(x.category, y.category);
  }
  ASSERT_EQ(a.symbols.strings.size(), b.symbols.strings.size());
  for (StrId s = 0; s < a.symbols.strings.size(); ++s) EXPECT_EQ(a.symbols.strings[s], b.symbols.strings[s]);
  ASSERT_EQ(a.symbols.category_count(), b.symbols.category_count());
  for (CategoryId c = 0; c < a.symbols.category_count(); ++c)
    EXPECT_EQ(a.symbols.category_name(c), b.symbols.category_name(c));
}

// Random samples over a small vocabulary: ties (one name and category in several files and
// lines, among siblings), a wide root, repeats with fractional weights, and a few deep stacks.
std::vector<Sample> random_samples(uint32_t seed, size_t count, size_t wide_root) {
  std::mt19937 rng(seed);
  std::vector<FrameSpec> vocab;
  for (int i = 0; i < 40; ++i) {
    FrameSpec f{"fn" + std::to_string(i % 13), "", 0, ""};
    if (i % 3 == 1) {
      f.file = "file" + std::to_string(i % 4) + ".py";
      f.line = 1 + static_cast<uint32_t>(i % 5);
    }
    if (i % 7 == 0) f.category = i % 2 ? "python_function" : "cpu_op";
    vocab.push_back(f);
  }
  vocab.push_back(FrameSpec{"", "", 0, ""});  // an empty name
  vocab.push_back(FrameSpec{"fn1", "", 0, ""});  // a name that is a prefix of others
  // Ties on the name: told apart by category, then file, then line.
  for (const FrameSpec& t : {FrameSpec{"tie", "t.py", 3, ""}, FrameSpec{"tie", "t.py", 1, ""}, FrameSpec{"tie", "s.py", 2, ""},
                             FrameSpec{"tie", "t.py", 2, "cpu_op"}, FrameSpec{"tie", "", 0, ""}, FrameSpec{"tie", "t.py", 2, ""}})
    vocab.push_back(t);
  std::vector<Sample> out;
  for (size_t i = 0; i < count; ++i) {
    Stack s;
    size_t depth = rng() % 9;
    for (size_t d = 0; d < depth; ++d) s.push_back(vocab[rng() % vocab.size()]);
    out.emplace_back(s, (rng() % 4 == 0) ? 0.1 * (1 + rng() % 7) : double(1 + rng() % 50));
  }
  for (size_t i = 0; i < wide_root; ++i) out.emplace_back(Stack{FrameSpec{"root" + std::to_string(i), "", 0, ""}}, 1.0);
  for (size_t depth : {3000, 5000}) {
    Stack s;
    for (size_t d = 0; d < depth; ++d) s.push_back(vocab[d % vocab.size()]);
    out.emplace_back(s, 2.5);
  }
  out.emplace_back(Stack{}, 4.0);  // weight on the root itself
  return out;
}

// The samples as a reader would hold them: frames interned in a Symbols, stacks of ids.
template <typename Stacks>
void fill(const std::vector<Sample>& samples, Symbols& sym, Stacks& stacks) {
  std::vector<FrameId> ids;
  for (const auto& [stack, w] : samples) {
    ids.clear();
    for (const FrameSpec& f : stack) ids.push_back(sym.frame(f.name, f.file, f.line, sym.category(f.category)));
    if constexpr (std::is_same_v<Stacks, stack_table::StackTable>)
      stacks.add(ids.data(), static_cast<uint32_t>(ids.size()), stack_table::hash_frames(ids.data(), ids.size()), w);
    else
      stacks.add(ids.data(), static_cast<uint32_t>(ids.size()), w);
  }
}

// The samples' stacks put into a Trie and written: hashed (grouped = false: the stacks of a
// StackTable, in hash order) or grouped (those of a StackList, in input order).
Profile written_trie(const std::vector<Sample>& samples, bool grouped) {
  Symbols sym;
  stack_table::Trie trie(grouped);
  auto add = [&](FrameId* f, uint32_t n, double w) { trie.add(f, n, w); };
  if (grouped) {
    stack_table::StackList list;
    fill(samples, sym, list);
    list.rewrite(add);
  } else {
    stack_table::StackTable table;
    fill(samples, sym, table);
    table.rewrite(add);
  }
  Profile got;
  stack_table::write_tree(stack_table::SymbolFrames(sym), trie, got);
  return got;
}

}  // namespace

// A table (ranked: few frames), the hashed tree of its stacks (in hash order) and the grouped
// tree of listed stacks (input order): all give the reference profile.
TEST(TreeBuild, TableAndListGiveTheReferenceProfile) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    std::vector<Sample> samples = random_samples(seed, 3000, seed == 2 ? 5000 : 20);
    Profile want = reference(samples);
    {
      Symbols sym;
      stack_table::StackTable table;
      fill(samples, sym, table);
      Profile got;
      stack_table::build_profile(stack_table::SymbolFrames(sym), table, got);
      expect_same(got, want);
    }
    expect_same(written_trie(samples, false), want);  // the hashed trie, which build_profile takes when frames are many
    expect_same(written_trie(samples, true), want);
  }
}

// A tree big enough for write_tree to sort, number and place its nodes on two threads (from
// 2^18 nodes): each stack an earlier one plus a few frames, some of them tied by name. The same
// profile as the reference.
TEST(TreeBuild, BigTreeWrittenOnTwoThreadsIsTheReference) {
  std::mt19937 rng(12);
  std::vector<FrameSpec> vocab;
  for (int i = 0; i < 5000; ++i)
    vocab.push_back(FrameSpec{"fn" + std::to_string(i % 3000), i % 3 ? "a.py" : "", static_cast<uint32_t>(i % 7), ""});
  std::vector<Stack> paths{{}};
  std::vector<Sample> samples;
  for (int i = 0; i < 90000; ++i) {
    Stack path = paths[rng() % paths.size()];
    for (int k = 1 + rng() % 8; k > 0; --k) path.push_back(vocab[rng() % vocab.size()]);
    if (path.size() > 30) path.resize(6);
    paths.push_back(path);
    samples.emplace_back(path, double(1 + rng() % 9));
  }
  Profile want = reference(samples);
  ASSERT_GT(want.node_count(), size_t(1) << 18);
  expect_same(written_trie(samples, true), want);
}

// The ranking path for sorted input with few frames gives the same profile, whatever order the
// list holds its stacks in.
TEST(TreeBuild, RankedListGivesTheReferenceProfile) {
  std::vector<Sample> samples = random_samples(4, 3000, 30);
  std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) { return a.first < b.first; });
  for (bool shuffled : {false, true}) {
    if (shuffled) std::shuffle(samples.begin(), samples.end(), std::mt19937(9));
    Profile want = reference(samples);
    Symbols sym;
    stack_table::StackList list;
    fill(samples, sym, list);
    Profile got;
    stack_table::build_from_ranks(stack_table::SymbolFrames(sym), list, got);
    expect_same(got, want);
  }
}

// Tries merged from two halves of the samples give the tree of all of them (integer weights:
// merging adds each half's sums).
TEST(TreeBuild, MergedTriesAreTheTreeOfAllStacks) {
  std::vector<Sample> samples = random_samples(5, 2000, 10);
  for (auto& s : samples) s.second = std::floor(s.second * 10);
  Profile want = reference(samples);
  for (bool grouped : {false, true}) {
    Symbols sym;
    stack_table::Trie a(grouped), b(grouped);
    std::vector<FrameId> ids;
    for (size_t i = 0; i < samples.size(); ++i) {
      ids.clear();
      for (const FrameSpec& f : samples[i].first) ids.push_back(sym.frame(f.name, f.file, f.line, sym.category(f.category)));
      (i % 2 ? b : a).add(ids.data(), static_cast<uint32_t>(ids.size()), samples[i].second);
    }
    std::vector<FrameId> same(sym.frame_count());
    for (FrameId f = 0; f < same.size(); ++f) same[f] = f;
    a.merge(b, same);
    Profile got;
    stack_table::write_tree(stack_table::SymbolFrames(sym), a, got);
    expect_same(got, want);
  }
}

TEST(TreeBuild, NeedsANewProfile) {
  Symbols sym;
  stack_table::Trie trie(false);
  Profile used;
  used.add_column("samples", "samples");
  EXPECT_THROW(stack_table::write_tree(stack_table::SymbolFrames(sym), trie, used), std::logic_error);
}

namespace {

std::string as_folded(const std::vector<Sample>& samples, bool cpython) {
  std::string text;
  for (const auto& [stack, w] : samples) {
    std::string line;
    for (size_t k = 0; k < stack.size(); ++k) {
      const FrameSpec& f = stack[k];
      if (k) line += ';';
      line += cpython && f.line ? f.file + ":" + f.name + ":" + std::to_string(f.line) : f.name;
    }
    char count[32];
    std::snprintf(count, sizeof count, "%.17g", w);
    text += line + " " + count + "\n";
  }
  return text;
}

std::string folded_text_of(const Profile& p) {
  std::string path = test::tmp_path("out.folded");
  {
    OutputFile out(path);
    write_folded(p, p.default_column, out, WriteOptions{});
    out.commit();
  }
  return test::read_file(path);
}

Profile read_folded_text(const std::string& text, unsigned threads, bool from_file) {
  ReadOptions o;
  o.threads_to_use = threads;
  if (!from_file) {
    Input in = Input::from_memory("t.folded", text);
    return read_folded(in, o);
  }
  // A file of its own: the profile of a mapped file keeps the mapping, and with it the file's
  // pages (writing the file again would change the profile's names).
  static int files = 0;
  Input in = Input::open(test::write_file("t" + std::to_string(files++) + ".folded", text));
  return read_folded(in, o);
}

// Folded samples (frames named by their text) with CPython's "file:function:line" frames
// under "tid:N" threads when `cpython`.
std::vector<Sample> folded_samples(uint32_t seed, size_t count, bool cpython) {
  std::vector<Sample> s = random_samples(seed, count, 40);
  std::vector<Sample> out;
  std::mt19937 rng(seed);
  for (auto& [stack, w] : s) {
    Stack t;
    if (cpython) t.push_back(FrameSpec{"tid:" + std::to_string(1 + rng() % 3), "", 0, "thread"});
    for (FrameSpec f : stack) {
      if (!cpython || f.line == 0) f = FrameSpec{f.name, "", 0, ""};  // the text is the name
      else f.category.clear();
      if (f.name.empty() && cpython) continue;
      t.push_back(f);
    }
    while (!t.empty() && t.back().name.empty()) t.pop_back();  // "a;" is the stack "a"
    // (No empty stacks: after a line that starts with an empty frame the reader puts an empty
    // stack's weight on that frame, as it always has, not on the root.)
    if (t.empty()) continue;
    if (!cpython && !t.empty() && t[0].name.substr(0, 4) == "tid:") continue;
    out.emplace_back(t, w);
  }
  return out;
}

}  // namespace

// The folded reader: sorted, shuffled, mapped or in memory, one thread or two, the profile is
// the reference's, including CPython's frames with files and lines and a thread category.
TEST(TreeBuild, FoldedReaderGivesTheReferenceProfileInAnyLineOrder) {
  for (bool cpython : {false, true}) {
    SCOPED_TRACE(cpython ? "cpython" : "plain");
    std::vector<Sample> samples = folded_samples(6, 4000, cpython);
    Profile want = reference(samples);
    std::vector<Sample> sorted = samples;
    std::sort(sorted.begin(), sorted.end(), [&](const Sample& a, const Sample& b) {
      return as_folded({a}, cpython) < as_folded({b}, cpython);
    });
    std::vector<Sample> shuffled = samples;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(3));
    for (const auto* in : {&samples, &sorted, &shuffled})
      for (bool from_file : {false, true}) {
        // The reference sums a stack's weights in input order: so must the reader.
        Profile want_here = reference(*in);
        expect_same(read_folded_text(as_folded(*in, cpython), 1, from_file), want_here);
      }
    // Integer weights: every order gives the very same profile.
    for (auto* in : {&sorted, &shuffled})
      for (auto& s : *in) s.second = std::floor(s.second);
    expect_same(read_folded_text(as_folded(sorted, cpython), 1, true), read_folded_text(as_folded(shuffled, cpython), 1, true));
    EXPECT_GT(want.node_count(), 1000u);
  }
}

// Above the size where reading uses threads, unsorted input (its head too) gives the same
// profile on two threads as on one and as the reference, fractional weights summed in order.
TEST(TreeBuild, UnsortedFoldedReadOnTwoThreadsIsTheOneThreadRead) {
  std::vector<Sample> samples = folded_samples(8, 60000, false);
  std::vector<Sample> big;
  for (size_t bytes = as_folded(samples, false).size(), total = 0; total < (9 << 20); total += bytes)
    big.insert(big.end(), samples.begin(), samples.end());
  std::shuffle(big.begin(), big.end(), std::mt19937(4));
  std::string text = as_folded(big, false);
  ASSERT_GT(text.size(), size_t(8 << 20));
  Profile one = read_folded_text(text, 1, true), two = read_folded_text(text, 2, true);
  expect_same(two, one);
  expect_same(one, reference(big));
}

// An unsorted mapped file whose jobs keep making new frames and nodes (each line an earlier
// path plus functions new or called elsewhere before, as samplers write distinct stacks): the
// tree's and the frame table's lookup tables are sized again between jobs, and every frame is
// still found (as many frames as distinct names), on one thread and on two.
TEST(TreeBuild, UnsortedFoldedWithNewFramesInEveryJobIsTheReference) {
  std::mt19937 rng(9);
  std::vector<Stack> paths{{}};
  std::vector<Sample> samples;
  size_t made = 0, bytes = 0;
  while (bytes < (20 << 20)) {
    Stack path = paths[rng() % paths.size()];
    for (int k = 1 + rng() % 6; k > 0; --k) {  // a new function, or one called elsewhere before
      const size_t fn = rng() % 2 && made ? rng() % made : made++;
      path.push_back(FrameSpec{"mod.fn_" + std::to_string(fn) + "(f.py)"});
    }
    if (path.size() > 40) path.resize(12);
    paths.push_back(path);
    for (const FrameSpec& f : path) bytes += f.name.size() + 1;
    samples.emplace_back(path, 1 + rng() % 50);
  }
  const std::string text = as_folded(samples, false);
  ASSERT_GT(text.size(), size_t(19 << 20));
  Profile want = reference(samples);
  for (unsigned threads : {1u, 2u}) {
    Profile got = read_folded_text(text, threads, true);
    expect_same(got, want);
    EXPECT_EQ(got.symbols.frame_count(), want.symbols.frame_count());
  }
  EXPECT_GT(want.symbols.frame_count(), 50000u);
}

// A frame longer than the frame table's inline length (16 MB) in a mapped unsorted file.
TEST(TreeBuild, LongFrameInUnsortedMappedInput) {
  std::string big(17 << 20, 'x');
  std::string text = "c 1\nb 2\na;" + big + " 3\na;" + big + ";d 4\nb 5\n";
  Profile p = read_folded_text(text, 1, true);
  EXPECT_EQ(p.node_count(), 6u);  // root, c, b, a, a;big, a;big;d
  bool found = false;
  for (FrameId f = 0; f < p.symbols.frame_count(); ++f) found |= p.symbols.name(f) == big;
  EXPECT_TRUE(found);
  std::string folded = folded_text_of(p);
  EXPECT_NE(folded.find("a;" + big + " 3\n"), std::string::npos);
  EXPECT_NE(folded.find("a;" + big + ";d 4\n"), std::string::npos);
  EXPECT_NE(folded.find("b 7\n"), std::string::npos);
}

// Symbols::frames (a big batch: strings on a second thread) makes the same frames, strings and
// categories, with the same numbers, as category() and frame() called one after another.
TEST(TreeBuild, FrameBatchEqualsOneByOne) {
  std::mt19937 rng(12);
  std::vector<std::tuple<std::string, std::string, uint32_t, std::string>> texts;
  for (int i = 0; i < 100000; ++i) {
    int k = static_cast<int>(rng() % 30000);
    texts.emplace_back(k % 5 ? "name" + std::to_string(k) : "", k % 3 ? "" : "f" + std::to_string(k % 97) + ".py",
                       k % 11, k % 17 == 0 ? "cat" + std::to_string(k % 4) : "");
  }
  Symbols one, batch;
  std::vector<FrameId> want;
  for (const auto& [name, file, line, cat] : texts) want.push_back(one.frame(name, file, line, one.category(cat)));
  std::vector<FrameId> got(texts.size());
  batch.frames(texts.size(), [&](size_t i) {
    const auto& [name, file, line, cat] = texts[i];
    return Symbols::FrameText{name, file, line, cat};
  }, got.data());
  EXPECT_EQ(got, want);
  ASSERT_EQ(batch.strings.size(), one.strings.size());
  for (StrId s = 0; s < one.strings.size(); ++s) EXPECT_EQ(batch.strings[s], one.strings[s]);
  ASSERT_EQ(batch.category_count(), one.category_count());
  // Lookups afterwards find the same frames.
  EXPECT_EQ(batch.frame("name7", "", 7, 0), one.frame("name7", "", 7, 0));
}

// Frames appended without lookups: the tables catch up at the next lookup.
TEST(TreeBuild, AppendedFramesAreFoundLater) {
  std::string text;
  std::vector<std::pair<size_t, size_t>> at;  // name places in `text`
  for (int i = 0; i < 70000; ++i) {
    std::string name = i == 5 ? "" : "frame " + std::to_string(i);
    at.emplace_back(text.size(), name.size());
    text += name;
  }
  auto owner = std::make_shared<std::string>(text);
  Symbols sym;
  sym.strings.adopt(std::shared_ptr<const void>(owner, owner.get()));
  std::vector<FrameId> ids(at.size());
  sym.append_distinct(
      at.size(),
      [&](size_t i) { return Symbols::FrameText{std::string_view(*owner).substr(at[i].first, at[i].second), {}, 0, {}, 0, true}; },
      ids.data(), [](size_t) {});
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], i);
  EXPECT_EQ(sym[5].name, 0u);  // the empty name is string 0
  EXPECT_EQ(sym.strings.find("frame 69999"), sym[69999].name);
  EXPECT_EQ(sym.frame("frame 123"), 123u);
  EXPECT_EQ(sym.frame(""), 5u);
  EXPECT_EQ(sym.strings.intern("frame 42"), sym[42].name);
  FrameId fresh = sym.frame("a new one");
  EXPECT_EQ(fresh, 70000u);
  EXPECT_EQ(sym.frame("a new one"), fresh);
  EXPECT_EQ(sym.strings.find("not there"), UINT32_MAX);
  EXPECT_THROW(sym.append_distinct(
                   1, [](size_t) { return Symbols::FrameText{"x", "file", 1, {}, 0, true}; }, ids.data(), [](size_t) {}),
               std::logic_error);
}

// A line without frames right after a line whose first frame is empty (";a") has always been
// read as that empty frame, not as weight on the root: the same when the two lines fall in
// different jobs (4 MiB pieces of a mapped file), on one thread or two.
TEST(TreeBuild, EmptyStackAfterAnEmptyFirstFrameAcrossJobs) {
  std::string text = "z;y 1\nb;c 2\n";
  std::mt19937 rng(3);
  const size_t boundary = 4 << 20;
  while (text.size() < boundary - 200) text += "f" + std::to_string(rng() % 1000) + ";g" + std::to_string(rng() % 100000) + " 1\n";
  text += std::string(boundary - 4 - text.size() - 3, 'p') + " 1\n";
  text += ";a 1\n 5\n 2\nq 1\n 7\n";  // the first job ends with ";a 1\n": its line break is at the boundary
  ASSERT_EQ(text.find(";a 1\n") + 4, boundary);
  std::string big = text;  // and the same lines again after 8 MB, where reading uses threads
  while (big.size() < (9 << 20)) big += "f" + std::to_string(rng() % 1000) + ";h" + std::to_string(rng() % 100000) + " 1\n";
  big += ";a 1\n 5\n 2\nq 1\n 7\n";
  for (const std::string* t : {&text, &big})
    for (unsigned threads : {1u, 2u})
      for (bool from_file : {true, false}) {
        // The empty frame's line comes first: "" sorts before every other.
        std::string folded = folded_text_of(read_folded_text(*t, threads, from_file));
        EXPECT_EQ(folded.substr(0, folded.find('\n') + 1), t == &text ? " 7\n" : " 14\n") << threads << from_file;
      }
}
