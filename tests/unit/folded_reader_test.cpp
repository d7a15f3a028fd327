// The folded-stacks reader (and, through it, the folded writer's byte order).
#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "flamefold/diff.h"
#include "flamefold/readers/text/folded.h"
#include "flamefold/writers/folded.h"
#include "test_support.h"

using namespace flamefold;

namespace {

Profile read_text(const std::string& text) {
  Input in = Input::from_memory("test.folded", text);
  return read_folded(in, ReadOptions{});
}

std::string folded(const Profile& p) {
  std::string path = test::tmp_path("out.folded");
  {
    OutputFile out(path);
    write_folded(p, p.default_column, out, WriteOptions{});
    out.commit();
  }
  return test::read_file(path);
}

std::string utf16(const std::string& utf8, bool big_endian) {
  // Enough of a UTF-8 decoder for the test strings.
  std::u32string cps;
  for (size_t i = 0; i < utf8.size();) {
    unsigned char c = static_cast<unsigned char>(utf8[i]);
    int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    char32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
    for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(utf8[i + k]) & 0x3F);
    cps.push_back(cp);
    i += n;
  }
  std::string out = big_endian ? "\xFE\xFF" : "\xFF\xFE";
  auto unit = [&](uint16_t u) {
    char hi = static_cast<char>(u >> 8), lo = static_cast<char>(u & 0xFF);
    out += big_endian ? std::string{hi, lo} : std::string{lo, hi};
  };
  for (char32_t cp : cps) {
    if (cp >= 0x10000) {
      cp -= 0x10000;
      unit(static_cast<uint16_t>(0xD800 + (cp >> 10)));
      unit(static_cast<uint16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      unit(static_cast<uint16_t>(cp));
    }
  }
  return out;
}

uint64_t counter_containing(const Profile& p, const std::string& what) {
  for (const Counter& c : p.counters)
    if (c.what.find(what) != std::string::npos) return c.count;
  return 0;
}

std::string fact(const Profile& p, const std::string& key) {
  for (const auto& [k, v] : p.facts)
    if (k == key) return v;
  return "<none>";
}

}  // namespace

TEST(FoldedReader, IntegerAndFractionalCountsAndSpacesInFrames) {
  Profile p = read_text("main;do work;a b 3\nmain;do work 0.5\nmain;x 2.\nmain;do work;a b 4\n");
  EXPECT_DOUBLE_EQ(p.total(0), 9.5);
  EXPECT_EQ(folded(p), "main;do work 0.5\nmain;do work;a b 7\nmain;x 2\n");
  EXPECT_EQ(fact(p, "stack lines"), "4");
  EXPECT_TRUE(p.counters.empty());
}

TEST(FoldedReader, CrLfBlankLinesAndBadLines) {
  std::string lf = "a;b 1\n\n   \nnot a stack line\na;c 2\n;; 5\nonly;frames\na;b; 3\n";
  std::string crlf;
  for (char c : lf) {
    if (c == '\n') crlf.push_back('\r');
    crlf.push_back(c);
  }
  Profile p = read_text(lf);
  // "a;b;" is "a;b" (trailing empty frames dropped, like Perl's split); ";;" is the root.
  EXPECT_EQ(folded(p), "a;b 4\na;c 2\n");
  EXPECT_EQ(counter_containing(p, "first at line 4"), 2u);
  EXPECT_DOUBLE_EQ(p.total(0), 11);
  Profile q = read_text(crlf);
  EXPECT_EQ(folded(q), folded(p));
  EXPECT_EQ(counter_containing(q, "first at line 4"), 2u);
}

TEST(FoldedReader, ThreeColumnLinesMakeADifferentialProfile) {
  // difffolded.pl's `stack before after`: both sides kept; a zero count is absent on its side,
  // a line with one count is unchanged; the file reads back to the same lines.
  Profile p = read_text("a;b 10 12\na;c 5 0\nd 0 3\na;e 2\n");
  ASSERT_TRUE(is_differential(p));
  EXPECT_EQ(p.source_format, "folded (differential)");
  EXPECT_EQ(folded(p), "a;b 10 12\na;c 5 0\na;e 2 2\nd 0 3\n");
  const int after = p.default_column, before = before_column(p, after);
  EXPECT_EQ(p.total(after), 17);
  EXPECT_EQ(p.total(before), 17);
  // A file whose lines mostly have one count stays an ordinary profile (the second count of a
  // stray two-count line is its weight, as flamegraph.pl draws it).
  Profile q = read_text("a;b 1\na;c 2\na;d 4 5\n");
  EXPECT_FALSE(is_differential(q));
  EXPECT_EQ(folded(q), "a;b 1\na;c 2\na;d 5\n");
  EXPECT_EQ(fact(q, "differential lines"), "1 (two counts; the second is used)");
}

TEST(FoldedReader, Utf16WithByteOrderMarkIsDecoded) {
  std::string text = "main;caf\xC3\xA9;\xE6\xBC\xA2\xE5\xAD\x97 3\nmain;\xF0\x9F\x98\x80 2\nmain;plain 1\n";
  std::string expected = folded(read_text(text));
  ASSERT_NE(expected.find("\xF0\x9F\x98\x80"), std::string::npos);
  for (bool be : {false, true}) {
    Profile p = read_text(utf16(text, be));
    EXPECT_EQ(folded(p), expected) << (be ? "BE" : "LE");
    EXPECT_EQ(fact(p, "encoding"), be ? "UTF-16 BE" : "UTF-16 LE");
    EXPECT_TRUE(looks_like_folded(utf16(text, be)));
  }
  // With a UTF-8 byte-order mark.
  EXPECT_EQ(folded(read_text("\xEF\xBB\xBF" + text)), expected);
  EXPECT_EQ(sniff_format(utf16(text, false), "x.txt"), Format::Folded);
}

TEST(FoldedReader, Utf16AcrossChunkBoundaries) {
  // Big enough for several 4 MB chunks, with characters that need surrogate pairs.
  std::string text;
  for (int i = 0; text.size() < (9u << 20); ++i)
    text += "t\xF0\x9F\x98\x80;f" + std::to_string(i % 97) + ";\xC3\xA9" + std::to_string(i % 13) + " 1\n";
  std::string expected = folded(read_text(text));
  Profile p = read_text(utf16(text, false));
  EXPECT_EQ(folded(p), expected);
  EXPECT_TRUE(p.counters.empty());
}

TEST(FoldedReader, CPythonDialectHasThreadsFilesAndLines) {
  std::string text =
      "tid:4242;runpy.py:_run_module_as_main:198;train.py:main:40;train.py:step:12 7\n"
      "tid:4242;runpy.py:_run_module_as_main:198;train.py:main:40;<built-in method time.sleep> 2\n"
      "tid:77;threading.py:run:1012 1\n";
  Profile p = read_text(text);
  EXPECT_EQ(p.source_format, "folded (CPython sampling profiler)");
  int threads = 0;
  for (NodeId c = p.first_child[0]; c != kNone; c = p.next_sibling[c]) {
    EXPECT_EQ(p.symbols.category_name(p.symbols[p.frame[c]].category), "thread");
    ++threads;
  }
  EXPECT_EQ(threads, 2);
  bool found_step = false, found_builtin = false;
  for (FrameId f = 0; f < p.symbols.frame_count(); ++f) {
    if (p.symbols.name(f) == "step") {
      found_step = true;
      EXPECT_EQ(p.symbols.file(f), "train.py");
      EXPECT_EQ(p.symbols[f].line, 12u);
    }
    if (p.symbols.name(f) == "<built-in method time.sleep>") {
      found_builtin = true;
      EXPECT_EQ(p.symbols[f].file, 0u);
    }
  }
  EXPECT_TRUE(found_step);
  EXPECT_TRUE(found_builtin);
  // Round trip: the writer gives the same lines back, sorted.
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    lines.push_back(text.substr(pos, nl + 1 - pos));
    pos = nl + 1;
  }
  std::sort(lines.begin(), lines.end());
  std::string sorted;
  for (const std::string& l : lines) sorted += l;
  EXPECT_EQ(folded(p), sorted);
}

TEST(FoldedReader, WriterOrderIsPerlSortOfTheStacks) {
  // Frames with bytes on both sides of ';' (0x3B): ' ', '!', ':', '<', 'a', 0xC3 ...
  std::vector<std::string> frames = {"a", "a b", "a!", "a:", "a<", "ab", "b", "\xC3\xA9", "", "A", "a;"};
  std::mt19937 rng(7);
  std::map<std::string, int> stacks;
  for (int i = 0; i < 400; ++i) {
    std::string s;
    int depth = 1 + static_cast<int>(rng() % 4);
    for (int d = 0; d < depth; ++d) {
      std::string f = frames[rng() % (frames.size() - 1)];  // not "a;": it would split
      if (d == 0 && f.empty()) f = "root";
      if (d) s += ';';
      s += f;
    }
    while (!s.empty() && s.back() == ';') s.pop_back();
    if (s.empty()) continue;
    stacks[s] += 1 + static_cast<int>(rng() % 5);
  }
  std::vector<std::pair<std::string, int>> shuffled(stacks.begin(), stacks.end());
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  std::string input;
  for (const auto& [s, n] : shuffled) input += s + " " + std::to_string(n) + "\n";
  std::string expected;
  for (const auto& [s, n] : stacks) expected += s + " " + std::to_string(n) + "\n";  // std::map: bytewise
  EXPECT_EQ(folded(read_text(input)), expected);
}

TEST(FoldedReader, SortedAndShuffledInputGiveTheSameProfile) {
  std::string sorted = "a;b;c 1\na;b;c;d 2\na;b;e 3\na;f 4\ng 5\ng;h;i 6\n";
  std::string shuffled = "g;h;i 6\na;b;e 3\na;b;c;d 2\ng 5\na;f 4\na;b;c 1\n";
  Profile a = read_text(sorted), b = read_text(shuffled);
  EXPECT_EQ(a.node_count(), b.node_count());
  EXPECT_EQ(a.node_count(), 10u);  // root + a b c d e f g h i
  EXPECT_EQ(folded(a), sorted);
  EXPECT_EQ(folded(b), sorted);
}

TEST(FoldedReader, Sniffing) {
  EXPECT_TRUE(looks_like_folded("a;b 1\na;c 2.5\n"));
  EXPECT_TRUE(looks_like_folded("single line 3"));
  EXPECT_FALSE(looks_like_folded("java 1 1.0: cycles:\n\t1 a (/x)\n\n"));
  EXPECT_FALSE(looks_like_folded("hello world\nfoo bar\n"));
  EXPECT_FALSE(looks_like_folded("a;b .5\n"));
}

TEST(FoldedReader, RepeatedStacksAddUpWhetherAdjacentOrNot) {
  // Sorted with repeats side by side (listed, merged as they come) ...
  EXPECT_EQ(folded(read_text("a;b 1\na;b 2\na;b;c 4\n")), "a;b 3\na;b;c 4\n");
  // ... a trailing ';' is the same stack ...
  EXPECT_EQ(folded(read_text("a;b 1\na;b; 2\n")), "a;b 3\n");
  // ... and a repeat after the input stopped being sorted (the listed stacks move to a table).
  Profile p = read_text("a;b 1\na;c 2\na;b 4\na;c;d 1\na;c 3\n");
  EXPECT_EQ(folded(p), "a;b 5\na;c 5\na;c;d 1\n");
  EXPECT_EQ(p.node_count(), 5u);  // root a b c d: repeats share their nodes
}

namespace {

// A folded file of about `bytes` bytes: stacks from a small random tree, some repeated, some
// bad lines, sorted or not (after a sorted start).
std::string generated_folded(size_t bytes, bool sorted, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> lines;
  size_t size = 0;
  while (size < bytes) {
    std::string line;
    int depth = 1 + static_cast<int>(rng() % 12);
    for (int d = 0; d < depth; ++d) {
      if (d) line += ';';
      line += "fn_" + std::to_string(rng() % (d < 3 ? 3 : 40)) + "_with_a_longer_name";
    }
    if (rng() % 1000 == 0)
      line += " no-count";  // a bad line
    else
      line += " " + std::to_string(1 + rng() % 50);
    size += line.size() + 1;
    lines.push_back(std::move(line));
  }
  // Unsorted input still starts with a sorted stretch longer than the sniffing head, so the
  // reader starts its worker threads and finds out later.
  std::sort(lines.begin(), sorted ? lines.end() : lines.begin() + 2000);
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  return text;
}

}  // namespace

TEST(FoldedReader, ParallelReadGivesTheSameProfileAsOneThread) {
  for (bool sorted : {true, false}) {
    // Above the size where the reader starts worker threads.
    std::string path = test::write_file(sorted ? "par_sorted.folded" : "par_shuffled.folded",
                                        generated_folded(12 << 20, sorted, sorted ? 7 : 11));
    auto read = [&](unsigned threads) {
      Input in = Input::open(path);
      ReadOptions o;
      o.threads_to_use = threads;
      return read_folded(in, o);
    };
    Profile one = read(1), two = read(2);
    SCOPED_TRACE(sorted ? "sorted" : "shuffled");
    EXPECT_EQ(folded(one), folded(two));
    EXPECT_EQ(one.node_count(), two.node_count());
    EXPECT_EQ(fact(one, "stack lines"), fact(two, "stack lines"));
    ASSERT_FALSE(one.counters.empty());
    ASSERT_FALSE(two.counters.empty());
    EXPECT_EQ(one.counters[0].what, two.counters[0].what);  // names the same first bad line
    EXPECT_EQ(one.counters[0].count, two.counters[0].count);
    EXPECT_GT(one.node_count(), 1000u);
  }
}
