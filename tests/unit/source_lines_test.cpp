// Source lines under --source-root: how a frame's file resolves, that nothing outside the roots
// is read (.. components, absolute paths, symbolic links), the snippets and the payload section
// with its bounds, and the option on the command line.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "flamefold/errors.h"
#include "flamefold/source_lines.h"
#include "flamefold/writers/html_sections.h"
#include "html_payload.h"
#include "test_support.h"

using namespace flamefold;
namespace fs = std::filesystem;

namespace {

// ROOT/ (the source root) beside OUTSIDE/ (never to be read):
//   ROOT/pkg/mod.py        ten numbered lines
//   ROOT/pkg/sub/deep.py   three lines, CRLF
//   ROOT/link_out.py  ->   OUTSIDE/secret.py
//   ROOT/dir.py/           a directory
//   OUTSIDE/secret.py
struct Tree {
  std::string root, outside;
};
Tree make_tree() {
  Tree t;
  std::string base = test::tmp_path("tree");
  fs::remove_all(base);
  t.root = base + "/root";
  t.outside = base + "/outside";
  fs::create_directories(t.root + "/pkg/sub");
  fs::create_directories(t.root + "/dir.py");
  fs::create_directories(t.outside);
  std::ofstream mod(t.root + "/pkg/mod.py");
  for (int i = 1; i <= 10; ++i) mod << "line " << i << "\n";
  mod.close();
  std::ofstream(t.root + "/pkg/sub/deep.py") << "a = 1\r\nb = 2\r\nc = 3\r\n";
  std::ofstream(t.outside + "/secret.py") << "SECRET\n";
  fs::create_symlink(t.outside + "/secret.py", t.root + "/link_out.py");
  return t;
}

}  // namespace

TEST(SourceRoots, ResolvesAsGivenUnderARootAndByTrailingComponents) {
  Tree t = make_tree();
  SourceRoots roots({t.root});
  std::string real_mod = fs::canonical(t.root + "/pkg/mod.py").string();
  EXPECT_EQ(roots.resolve(t.root + "/pkg/mod.py"), real_mod);                 // absolute, inside
  EXPECT_EQ(roots.resolve("pkg/mod.py"), real_mod);                           // relative to the root
  EXPECT_EQ(roots.resolve("./pkg//mod.py"), real_mod);
  EXPECT_EQ(roots.resolve("/home/ci/checkout/pkg/mod.py"), real_mod);         // recorded elsewhere
  EXPECT_EQ(roots.resolve("C:\\build\\pkg\\sub\\deep.py"), fs::canonical(t.root + "/pkg/sub/deep.py").string());
  EXPECT_EQ(roots.resolve("mod.py"), std::nullopt);                           // not at the root itself
  EXPECT_EQ(roots.resolve("pkg/missing.py"), std::nullopt);
  EXPECT_EQ(roots.resolve(""), std::nullopt);
  EXPECT_EQ(roots.resolve("<frozen importlib._bootstrap>"), std::nullopt);
  EXPECT_EQ(roots.resolve("dir.py"), std::nullopt);                           // not a regular file
  EXPECT_EQ(roots.resolve("pkg"), std::nullopt);
}

TEST(SourceRoots, NeverReadsOutsideTheRoots) {
  Tree t = make_tree();
  SourceRoots roots({t.root});
  // .. components are not followed at all, however they would land.
  EXPECT_EQ(roots.resolve("../outside/secret.py"), std::nullopt);
  EXPECT_EQ(roots.resolve("pkg/../../outside/secret.py"), std::nullopt);
  EXPECT_EQ(roots.resolve(t.root + "/../outside/secret.py"), std::nullopt);
  EXPECT_EQ(roots.resolve("pkg/../pkg/mod.py"), std::nullopt);
  // An absolute path outside every root, and a symbolic link out of the root.
  EXPECT_EQ(roots.resolve(t.outside + "/secret.py"), std::nullopt);
  EXPECT_EQ(roots.resolve("link_out.py"), std::nullopt);
  EXPECT_EQ(roots.resolve("/etc/passwd"), std::nullopt);
  // A root that is itself reached through .. is fine: only its real path counts.
  SourceRoots dotted({t.root + "/pkg/.."});
  EXPECT_NE(dotted.resolve("pkg/mod.py"), std::nullopt);
  // A sibling whose name starts like the root is not inside it.
  fs::create_directories(t.root + "x");
  std::ofstream(t.root + "x/evil.py") << "x\n";
  EXPECT_EQ(roots.resolve(t.root + "x/evil.py"), std::nullopt);
}

TEST(SourceRoots, MissingRootIsAUsageError) {
  EXPECT_THROW(SourceRoots({test::tmp_path("no-such-dir")}), UsageError);
  std::string file = test::write_file("a-file", "x");
  EXPECT_THROW(SourceRoots({file}), UsageError);
}

TEST(SourceRoots, SnippetsAroundTheLine) {
  Tree t = make_tree();
  SourceRoots roots({t.root});
  std::string mod = *roots.resolve("pkg/mod.py");
  std::optional<SourceSnippet> s = roots.snippet(mod, 5, 3);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->first_line, 2u);
  EXPECT_EQ(s->lines, (std::vector<std::string>{"line 2", "line 3", "line 4", "line 5", "line 6", "line 7", "line 8"}));
  s = roots.snippet(mod, 1, 3);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->first_line, 1u);
  EXPECT_EQ(s->lines.size(), 4u);
  s = roots.snippet(mod, 10, 3);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->lines.back(), "line 10");
  EXPECT_EQ(s->lines.size(), 4u);
  EXPECT_FALSE(roots.snippet(mod, 11, 3));  // past the end: the frame's line is not there
  EXPECT_FALSE(roots.snippet(mod, 0, 3));
  s = roots.snippet(*roots.resolve("pkg/sub/deep.py"), 2, 3);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->lines, (std::vector<std::string>{"a = 1", "b = 2", "c = 3"}));
  // A very long line is cut.
  std::ofstream(t.root + "/pkg/long.py") << std::string(5000, 'x') << "\n";
  s = roots.snippet(*roots.resolve("pkg/long.py"), 1, 3);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->lines[0].size(), SourceRoots::kMaxLineBytes);
}

namespace {

// Frames f0..: file pkg/mod.py at lines 2, 5, 5 (two frames, one snippet), one unresolvable
// file, one frame without a location; weights make the order f1 > f0 > f2.
struct SourcesFixture {
  Profile p;
  std::vector<uint32_t> index;
  std::vector<uint8_t> used;
  SourcesFixture() {
    p.add_column("cpu", "ns");
    FrameId a = p.symbols.frame("a", "pkg/mod.py", 2);
    FrameId b = p.symbols.frame("b", "/elsewhere/pkg/mod.py", 5);
    FrameId c = p.symbols.frame("c", "pkg/mod.py", 5);
    FrameId d = p.symbols.frame("d", "gone/missing.py", 7);
    FrameId e = p.symbols.frame("e");
    p.add(p.child(0, a), 0, 5);
    p.add(p.child(0, b), 0, 50);
    p.add(p.child(0, c), 0, 1);
    p.add(p.child(0, d), 0, 100);
    p.add(p.child(0, e), 0, 1000);
    used.assign(p.symbols.frame_count(), 1);
    for (uint32_t f = 0; f < p.symbols.frame_count(); ++f) index.push_back(100 + f);
  }
};

}  // namespace

TEST(SourcesSection, HeaviestFirstSharedSnippetsAndCounts) {
  Tree t = make_tree();
  SourcesFixture fx;
  std::string json = html_sections::sources(fx.p, 0, fx.index, fx.used, {t.root});
  // b (50) first: its snippet is number 0; a (5): 1; c (1) shares b's.
  EXPECT_NE(json.find("\"located\":4,\"resolved\":3,\"embedded\":3,\"cut\":0"), std::string::npos) << json;
  EXPECT_NE(json.find("\"snippets\":[[2,\"line 2\\nline 3\\nline 4\\nline 5\\nline 6\\nline 7\\nline 8\"],"
                      "[1,\"line 1\\nline 2\\nline 3\\nline 4\\nline 5\"]]"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"frames\":[[101,0],[100,1],[102,0]]"), std::string::npos) << json;
}

TEST(SourcesSection, BoundedBySizeAndCount) {
  Tree t = make_tree();
  SourcesFixture fx;
  // Room for the first snippet only (48 bytes): the second is cut, and so is every later one.
  std::string json = html_sections::sources(fx.p, 0, fx.index, fx.used, {t.root}, 60);
  EXPECT_NE(json.find("\"embedded\":2,\"cut\":1"), std::string::npos) << json;  // c shares b's snippet
  EXPECT_NE(json.find("\"frames\":[[101,0],[102,0]]"), std::string::npos) << json;
  json = html_sections::sources(fx.p, 0, fx.index, fx.used, {t.root}, 1 << 20, 1);
  EXPECT_NE(json.find("\"embedded\":2,\"cut\":1"), std::string::npos) << json;
}

TEST(SourcesSection, CommandLine) {
  Tree t = make_tree();
  std::string in = test::write_file("src.folded", "tid:1;pkg/mod.py:work:5 3\ntid:1;../outside/secret.py:steal:1 4\n");
  std::string html = test::tmp_path("src.html");
  test::RunResult r = test::flamefold("flamegraph " + in + " --source-root " + t.root + " -o " + html);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string payload = html_payload::payload_of(test::read_file(html));
  EXPECT_NE(payload.find("\"located\":2,\"resolved\":1,\"embedded\":1,\"cut\":0"), std::string::npos) << payload;
  EXPECT_NE(payload.find("line 2\\nline 3\\nline 4\\nline 5"), std::string::npos);
  EXPECT_EQ(payload.find("SECRET"), std::string::npos);
  // A missing root: one line, exit 2, no output file.
  std::string bad = test::tmp_path("bad.html");
  r = test::flamefold("flamegraph " + in + " --source-root " + t.root + "/nope -o " + bad);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--source-root " + t.root + "/nope: not a directory"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(bad));
  // Not HTML: said, and the output is as without the option.
  std::string svg = test::tmp_path("src.svg"), svg2 = test::tmp_path("plain.svg");
  r = test::flamefold("flamegraph " + in + " --source-root " + t.root + " -o " + svg);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("only adds to HTML"), std::string::npos) << r.err;
  ASSERT_EQ(test::flamefold("flamegraph " + in + " -o " + svg2).exit_code, 0);
  EXPECT_EQ(test::read_file(svg), test::read_file(svg2));
  // diff takes it too.
  std::string d = test::tmp_path("diff.html");
  r = test::flamefold("diff " + in + " " + in + " --source-root " + t.root + " -o " + d);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}
