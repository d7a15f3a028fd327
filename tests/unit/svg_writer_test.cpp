// The SVG writer: flamegraph.pl's layout and options, colours, hostile names, edge cases.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "flamefold/output.h"
#include "flamefold/profile.h"
#include "flamefold/writers/svg.h"
#include "test_support.h"

using namespace flamefold;

namespace {

// Adds one stack ("a;b;c") with a weight to a column.
void add_stack(Profile& p, int column, const std::string& stack, double weight) {
  std::vector<FrameId> frames;
  size_t pos = 0;
  while (pos <= stack.size()) {
    size_t semi = stack.find(';', pos);
    if (semi == std::string::npos) semi = stack.size();
    frames.push_back(p.symbols.frame(std::string_view(stack).substr(pos, semi - pos)));
    pos = semi + 1;
  }
  p.add(p.path(0, frames), column, weight);
}

Profile make_profile(const std::vector<std::pair<std::string, double>>& stacks) {
  Profile p;
  int c = p.add_column("samples", "samples");
  for (const auto& [s, w] : stacks) add_stack(p, c, s, w);
  return p;
}

std::string render(const Profile& p, const WriteOptions& o = {}, int column = 0) {
  std::string path = test::tmp_path("out.svg");
  {
    OutputFile out(path);
    write_svg(p, column, out, o);
    out.commit();
  }
  return test::read_file(path);
}

struct DrawnFrame {
  std::string title;  // as written (escaped)
  double x = 0, y = 0, width = 0;
  svg::Rgb fill;
  std::string text;
};

std::vector<DrawnFrame> frames_of(const std::string& svg) {
  static const std::regex re(
      R"re(<g><title>(.*?)</title><rect x="([^"]+)" y="([^"]+)" width="([^"]+)" height="[^"]+" fill="rgb\((\d+),(\d+),(\d+)\)" rx="2" ry="2"/><text x="[^"]+" y="[^"]+">(.*?)</text></g>)re");
  std::vector<DrawnFrame> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    DrawnFrame f;
    f.title = m[1];
    f.x = std::stod(m[2]);
    f.y = std::stod(m[3]);
    f.width = std::stod(m[4]);
    f.fill = svg::Rgb{std::stoi(m[5]), std::stoi(m[6]), std::stoi(m[7])};
    f.text = m[8];
    out.push_back(f);
  }
  return out;
}

// The frame whose title starts with "name (".
const DrawnFrame* find_frame(const std::vector<DrawnFrame>& frames, const std::string& name) {
  for (const DrawnFrame& f : frames)
    if (f.title.rfind(name + " (", 0) == 0) return &f;
  return nullptr;
}

size_t count_of(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = haystack.find(needle); pos != std::string::npos; pos = haystack.find(needle, pos + 1)) ++n;
  return n;
}

}  // namespace

TEST(SvgWriter, OneGroupPerFrameWithWidthsProportionalToWeight) {
  Profile p = make_profile({{"a;b", 3}, {"a;c", 1}, {"d", 4}});
  std::string svg = render(p);
  auto frames = frames_of(svg);
  ASSERT_EQ(frames.size(), 5u);  // all, a, b, c, d
  EXPECT_EQ(count_of(svg, "<g><title>"), 5u);
  const double per = 1180.0 / 8;  // (1200 - 2 * 10 px padding) / 8 samples
  struct Want {
    const char* name;
    double x, width;
  };
  for (Want w : {Want{"all", 10, 1180}, Want{"a", 10, 4 * per}, Want{"b", 10, 3 * per},
                 Want{"c", 10 + 3 * per, per}, Want{"d", 10 + 4 * per, 4 * per}}) {
    const DrawnFrame* f = find_frame(frames, w.name);
    ASSERT_NE(f, nullptr) << w.name;
    EXPECT_NEAR(f->x, w.x, 0.006) << w.name;
    EXPECT_NEAR(f->width, w.width, 0.011) << w.name;
  }
  EXPECT_EQ(find_frame(frames, "all")->title, "all (8 samples, 100%)");
  EXPECT_EQ(find_frame(frames, "b")->title, "b (3 samples, 37.50%)");
  EXPECT_NE(svg.find("<text id=\"title\" x=\"600\" y=\"24\">Flame Graph</text>"), std::string::npos);
  // Depth 2 at 16 px a frame: height = 3 * 16 + 36 (title pad) + 34 (details pad).
  EXPECT_NE(svg.find("width=\"1200\" height=\"118\""), std::string::npos);
  EXPECT_NE(svg.find("<text id=\"unzoom\""), std::string::npos);
  EXPECT_NE(svg.find(">Reset Zoom</text>"), std::string::npos);
  EXPECT_NE(svg.find(">Search</text>"), std::string::npos);
  EXPECT_NE(svg.find("<text id=\"matched\""), std::string::npos);
  EXPECT_NE(svg.find("function search("), std::string::npos);
  EXPECT_NE(svg.find("function zoom("), std::string::npos);
}

TEST(SvgWriter, ParentSelfWeightComesBeforeItsChildren) {
  // flamegraph.pl sorts lines, so "a 2" precedes "a;b 1": a's own samples are on the left.
  Profile p = make_profile({{"a", 2}, {"a;b", 2}});
  auto frames = frames_of(render(p));
  const DrawnFrame* a = find_frame(frames, "a");
  const DrawnFrame* b = find_frame(frames, "b");
  ASSERT_TRUE(a && b);
  EXPECT_NEAR(b->x, a->x + a->width / 2, 0.011);
  EXPECT_NEAR(b->width, a->width / 2, 0.011);
}

TEST(SvgWriter, MinwidthOmitsNarrowFramesButKeepsTheirWeightInTheParent) {
  Profile p = make_profile({{"big;x", 10000}, {"small;tiny", 1}});
  WriteOptions o;
  // small is 1180 / 10001 = 0.118 px wide: drawn at the default 0.1 px, omitted at 0.2 px.
  auto def = frames_of(render(p, o));
  EXPECT_NE(find_frame(def, "small"), nullptr);
  EXPECT_NE(find_frame(def, "tiny"), nullptr);
  o.minwidth = 0.2;
  std::string svg = render(p, o);
  auto pruned = frames_of(svg);
  EXPECT_EQ(find_frame(pruned, "small"), nullptr);
  EXPECT_EQ(find_frame(pruned, "tiny"), nullptr);
  EXPECT_EQ(pruned.size(), 3u);
  EXPECT_EQ(find_frame(pruned, "all")->title, "all (10,001 samples, 100%)");
  // big keeps its true share: the omitted frame's weight is still under the root.
  EXPECT_EQ(find_frame(pruned, "big")->title, "big (10,000 samples, 99.99%)");
  EXPECT_NEAR(find_frame(pruned, "big")->width, 1180.0 * 10000 / 10001, 0.011);
  // A frame narrower than minwidth takes its whole subtree with it, and the image is no taller
  // than the frames drawn.
  o.minwidth = 1200;
  auto only_root = frames_of(render(p, o));
  EXPECT_EQ(only_root.size(), 1u);
  // flamegraph.pl's "--minwidth 0.5%": a share of the total instead of pixels.
  o.minwidth = 0.1;
  o.minwidth_percent = 0.01;  // 1.0001 samples: small (1 sample) goes
  auto by_share = frames_of(render(p, o));
  EXPECT_EQ(find_frame(by_share, "small"), nullptr);
  EXPECT_NE(find_frame(by_share, "x"), nullptr);
  o.minwidth_percent = 0.009;  // 0.9 samples: small stays
  EXPECT_NE(find_frame(frames_of(render(p, o)), "small"), nullptr);
  auto r = test::flamefold("flamegraph " + test::write_file("m.folded", "a 1\n") + " -o " + test::tmp_path("m.svg") + " --minwidth 5x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--minwidth"), std::string::npos) << r.err;
}

TEST(SvgWriter, InvertedPutsTheRootOnTop) {
  Profile p = make_profile({{"a;b", 1}});
  auto flame = frames_of(render(p));
  EXPECT_LT(find_frame(flame, "b")->y, find_frame(flame, "a")->y);
  EXPECT_LT(find_frame(flame, "a")->y, find_frame(flame, "all")->y);
  WriteOptions o;
  o.inverted = true;
  std::string svg = render(p, o);
  auto icicle = frames_of(svg);
  EXPECT_GT(find_frame(icicle, "b")->y, find_frame(icicle, "a")->y);
  EXPECT_GT(find_frame(icicle, "a")->y, find_frame(icicle, "all")->y);
  EXPECT_EQ(find_frame(icicle, "all")->y, 36);  // right under the title
  EXPECT_NE(svg.find(">Icicle Graph</text>"), std::string::npos);
  EXPECT_NE(svg.find("data-inverted=\"1\""), std::string::npos);
  o.title = "Mine";
  EXPECT_NE(render(p, o).find(">Mine</text>"), std::string::npos);
}

TEST(SvgWriter, ReverseMergesStacksFromTheLeaf) {
  Profile p = make_profile({{"main;parse;alloc", 2}, {"main;eval;alloc", 3}, {"main;eval", 1}});
  WriteOptions o;
  o.reverse = true;
  auto frames = frames_of(render(p, o));
  // alloc is now one frame at depth 1 with all 5 of its samples; eval (1 own sample) another.
  const DrawnFrame* all = find_frame(frames, "all");
  ASSERT_NE(all, nullptr);
  std::map<std::string, int> count_by_name;
  for (const DrawnFrame& f : frames) count_by_name[f.title.substr(0, f.title.find(" ("))]++;
  EXPECT_EQ(count_by_name["alloc"], 1);
  EXPECT_EQ(find_frame(frames, "alloc")->title, "alloc (5 samples, 83.33%)");
  EXPECT_EQ(find_frame(frames, "alloc")->y, all->y - 16);
  EXPECT_EQ(count_by_name["main"], 3);  // under alloc;parse, alloc;eval and eval
}

TEST(SvgWriter, PalettesFollowFlamegraphPlHueRules) {
  auto in = [](int v, int lo, int hi) { return v >= lo && v <= hi; };
  std::vector<std::string> names = {"", "a", "main", "do_syscall_64_[k]", "java/lang/Thread.run",
                                    "Lcom/x/Y;::z_[j]", "std::vector<int>::push_back", "foo.js:1", "x",
                                    "libc.so.6`memcpy", "\xff\xfe", "zzzzzzzzzzzzzzzzzzzzzz"};
  for (const std::string& n : names) {
    svg::Rgb c;
    c = svg::frame_colour("hot", n);
    EXPECT_TRUE(in(c.r, 205, 255) && in(c.g, 0, 230) && in(c.b, 0, 55)) << n;
    c = svg::frame_colour("mem", n);
    EXPECT_TRUE(c.r == 0 && in(c.g, 190, 240) && in(c.b, 0, 210)) << n;
    c = svg::frame_colour("io", n);
    EXPECT_TRUE(in(c.r, 80, 140) && c.g == c.r && in(c.b, 190, 245)) << n;
    c = svg::frame_colour("red", n);
    EXPECT_TRUE(in(c.r, 200, 255) && in(c.g, 50, 130) && c.b == c.g) << n;
    c = svg::frame_colour("green", n);
    EXPECT_TRUE(in(c.g, 200, 255) && in(c.r, 50, 110) && c.b == c.r) << n;
    c = svg::frame_colour("blue", n);
    EXPECT_TRUE(in(c.b, 205, 255) && in(c.r, 80, 140) && c.g == c.r) << n;
    c = svg::frame_colour("yellow", n);
    EXPECT_TRUE(in(c.r, 175, 230) && c.g == c.r && in(c.b, 50, 70)) << n;
    c = svg::frame_colour("purple", n);
    EXPECT_TRUE(in(c.r, 190, 255) && c.b == c.r && in(c.g, 80, 140)) << n;
    c = svg::frame_colour("aqua", n);
    EXPECT_TRUE(in(c.r, 50, 110) && in(c.g, 165, 220) && c.b == c.g) << n;
    c = svg::frame_colour("orange", n);
    EXPECT_TRUE(in(c.r, 190, 255) && in(c.g, 90, 155) && c.b == 0) << n;
  }
  // flamegraph.pl's namehash: "" -> 1, so hot gives its brightest colour; "a" -> 1 - (7/9)/2.
  EXPECT_DOUBLE_EQ(svg::name_hash(""), 1.0);
  EXPECT_NEAR(svg::name_hash("a"), 1 - (7.0 / 9) / 2, 1e-12);
  EXPECT_EQ(svg::frame_colour("hot", ""), (svg::Rgb{255, 230, 55}));
  // Only the first three characters after a module prefix count.
  EXPECT_EQ(svg::name_hash("libc.so.6`memcpy"), svg::name_hash("memcpy"));
  EXPECT_EQ(svg::name_hash("abcdef"), svg::name_hash("abcxyz"));

  auto hue_of = [&](const char* palette, const char* name) {
    svg::Rgb c = svg::frame_colour(palette, name);
    for (const char* h : {"green", "aqua", "yellow", "orange", "red"})
      if (svg::frame_colour(h, name) == c) return std::string(h);
    return std::string("?");
  };
  // java: annotations first, then package paths, C++ and kernel.
  EXPECT_EQ(hue_of("java", "Lfoo/Bar;::baz_[j]"), "green");
  EXPECT_EQ(hue_of("java", "inlined_[i]"), "aqua");
  EXPECT_EQ(hue_of("java", "java/lang/Thread.run"), "green");
  EXPECT_EQ(hue_of("java", "Lorg/apache/Foo.bar"), "green");
  EXPECT_EQ(hue_of("java", "Foo:::bar"), "green");
  EXPECT_EQ(hue_of("java", "JavaThread::run"), "yellow");
  EXPECT_EQ(hue_of("java", "do_syscall_64_[k]"), "orange");
  EXPECT_EQ(hue_of("java", "start_thread"), "red");
  // js: JIT frames with a path are source, without are built-ins.
  EXPECT_EQ(hue_of("js", "LazyCompile:*run /app/x.js:10_[j]"), "green");
  EXPECT_EQ(hue_of("js", "Builtin:Call_[j]"), "aqua");
  EXPECT_EQ(hue_of("js", "v8::internal::Run"), "yellow");
  EXPECT_EQ(hue_of("js", "/app/server.js"), "green");
  EXPECT_EQ(hue_of("js", "Stub:CEntry"), "aqua");
  EXPECT_EQ(hue_of("js", " "), "green");
  EXPECT_EQ(hue_of("js", "sys_write_[k]"), "orange");
  EXPECT_EQ(hue_of("js", "write"), "red");
  // perl
  EXPECT_EQ(hue_of("perl", "Foo::bar"), "yellow");
  EXPECT_EQ(hue_of("perl", "Perl_runops_standard"), "green");
  EXPECT_EQ(hue_of("perl", "script.pl"), "green");
  EXPECT_EQ(hue_of("perl", "sys_read_[k]"), "orange");
  EXPECT_EQ(hue_of("perl", "read"), "red");
  EXPECT_THROW(svg::frame_colour("rainbow", "a"), std::exception);

  // The chosen palette is what the frames are filled with, and it picks the background.
  Profile p = make_profile({{"a;b", 1}});
  WriteOptions o;
  o.palette = "blue";
  std::string svg = render(p, o);
  auto frames = frames_of(svg);
  ASSERT_EQ(frames.size(), 3u);
  for (const DrawnFrame& f : frames) EXPECT_EQ(f.fill, svg::frame_colour("blue", f.title == "all (1 samples, 100%)" ? "" : f.title.substr(0, 1)));
  EXPECT_NE(svg.find("stop-color=\"#f8f8f8\""), std::string::npos);  // grey for single-hue palettes
  o.palette = "rainbow";
  EXPECT_THROW(render(p, o), std::exception);
}

TEST(SvgWriter, CountnameComesFromTheColumnUnitOrTheOption) {
  Profile p;
  int ns = p.add_column("cpu", "ns");
  add_stack(p, ns, "a", 1234567);
  auto frames = frames_of(render(p));
  EXPECT_EQ(find_frame(frames, "a")->title, "a (1,234,567 ns, 100.00%)");
  WriteOptions o;
  o.countname = "bytes & <things>";
  frames = frames_of(render(p, o));
  EXPECT_EQ(find_frame(frames, "all")->title, "all (1,234,567 bytes &amp; &lt;things&gt;, 100%)");
}

TEST(SvgWriter, SameInputGivesIdenticalBytes) {
  auto build = [] {
    Profile p = make_profile({});
    // Insertion order differs from name order: the output must not depend on it.
    for (int i = 200; i-- > 0;) add_stack(p, 0, "root;f" + std::to_string(i * 7919 % 200) + ";g" + std::to_string(i % 13), 1 + i % 5);
    return p;
  };
  Profile a = build(), b = build();
  std::string first = render(a), second = render(b);
  EXPECT_EQ(first, second);
  EXPECT_EQ(first, render(a));
  // Siblings are laid out by name.
  auto frames = frames_of(first);
  const DrawnFrame* f0 = find_frame(frames, "f0");
  const DrawnFrame* f1 = find_frame(frames, "f1");
  ASSERT_TRUE(f0 && f1);
  EXPECT_LT(f0->x, f1->x);
}

TEST(SvgWriter, EmptyProfileGivesAValidSvgSayingNoSamples) {
  Profile p = make_profile({});
  std::string svg = render(p);
  EXPECT_NE(svg.find("No samples"), std::string::npos);
  EXPECT_EQ(frames_of(svg).size(), 0u);
  std::string path = test::write_file("empty.svg", svg);
  auto r = test::run("python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); "
                     "print(r.tag, \"\".join(r.itertext()).count(\"No samples\"))' " + path);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{http://www.w3.org/2000/svg}svg 1\n");
}

TEST(SvgWriter, UsesTheChosenWeightColumn) {
  Profile p;
  int samples = p.add_column("samples", "samples");
  int gpu = p.add_column("gpu", "ns");
  add_stack(p, samples, "cpu_only", 10);
  add_stack(p, samples, "both", 10);
  add_stack(p, gpu, "both", 300);
  add_stack(p, gpu, "gpu_only", 100);
  auto by_samples = frames_of(render(p, {}, samples));
  EXPECT_NE(find_frame(by_samples, "cpu_only"), nullptr);
  EXPECT_EQ(find_frame(by_samples, "gpu_only"), nullptr);
  auto by_gpu = frames_of(render(p, {}, gpu));
  EXPECT_EQ(find_frame(by_gpu, "cpu_only"), nullptr);  // no weight in this column: not drawn
  ASSERT_NE(find_frame(by_gpu, "both"), nullptr);
  EXPECT_EQ(find_frame(by_gpu, "both")->title, "both (300 ns, 75.00%)");
  EXPECT_NEAR(find_frame(by_gpu, "both")->width, 1180 * 0.75, 0.011);
}

TEST(SvgWriter, FractionalWeights) {
  Profile p = make_profile({{"a", 0.5}, {"b", 1.25}, {"c", 0.001}});
  auto frames = frames_of(render(p));
  EXPECT_EQ(find_frame(frames, "a")->title, "a (0.5 samples, 28.56%)");
  EXPECT_EQ(find_frame(frames, "b")->title, "b (1.25 samples, 71.39%)");
  EXPECT_EQ(find_frame(frames, "all")->title, "all (1.751 samples, 100%)");
  EXPECT_NEAR(find_frame(frames, "b")->width / find_frame(frames, "a")->width, 2.5, 0.001);
}

TEST(SvgWriter, LongNamesAreCutToFitWithoutSplittingCharacters) {
  // 1180 px / 3 frames = 393 px = 55 characters of 7.08 px.
  std::string long_name = std::string(40, 'x') + std::string(30, 'y');
  std::string accents;
  for (int i = 0; i < 40; ++i) accents += "\xC3\xA9";  // é
  Profile p = make_profile({{long_name, 1}, {accents, 1}, {"short", 1}});
  auto frames = frames_of(render(p));
  const DrawnFrame* cut = find_frame(frames, long_name);
  ASSERT_NE(cut, nullptr);
  EXPECT_EQ(cut->text, std::string(40, 'x') + std::string(13, 'y') + "..");
  EXPECT_EQ(find_frame(frames, accents)->text, accents);  // 40 characters fit (80 bytes)
  EXPECT_EQ(find_frame(frames, "short")->text, "short");
  // Too narrow for 3 characters: no text.
  Profile q = make_profile({{"wide", 1000}, {"narrow", 1}});
  EXPECT_EQ(find_frame(frames_of(render(q)), "narrow")->text, "");
  // Annotations are not shown, but still choose the colour.
  Profile k = make_profile({{"sys_read_[k]", 1}});
  WriteOptions o;
  o.palette = "java";
  auto kf = frames_of(render(k, o));
  ASSERT_NE(find_frame(kf, "sys_read"), nullptr);
  EXPECT_EQ(find_frame(kf, "sys_read")->fill, svg::frame_colour("orange", "sys_read_[k]"));
}

TEST(SvgWriter, XmlTextIsEscapedAndValid) {
  std::string out;
  svg::append_xml_text(out, std::string("a&b<c>d\"e'f\x01g\xff h\xC3\xA9 \xED\xA0\x80 \xEF\xBF\xBF \xF0\x9F\x94\xA5"));
  EXPECT_EQ(out, "a&amp;b&lt;c&gt;d&quot;e&apos;f\xEF\xBF\xBDg\xEF\xBF\xBD h\xC3\xA9 \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD "
                 "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD \xF0\x9F\x94\xA5");
  out.clear();
  svg::append_xml_text(out, std::string("\xC3", 1));  // truncated sequence at the end
  EXPECT_EQ(out, "\xEF\xBF\xBD");
}

// Hostile frame names must stay text: parse the SVG with a real XML parser and check that the
// only elements are the ones the writer emits, there is one script (ours), and every name is
// found intact as the text of a <title>.
TEST(SvgWriter, HostileNamesCannotInjectMarkupOrScript) {
  const std::vector<std::string> hostile = {
      "</script><img src=x onerror=alert(1)>",
      "]]><script>alert(1)</script>",
      "<!-- comment --> & &lt &#60 \"quoted\" 'single'",  // no ';': it separates frames
      "<?xml-stylesheet href=\"evil\"?>",
      "ctrl\x01\x02\x1b[31m",
      "bad\xff\xfeutf8",
      "<svg onload=alert(1)>",
  };
  std::string folded;
  for (size_t i = 0; i < hostile.size(); ++i) folded += "main;" + hostile[i] + ";leaf" + std::to_string(i) + " " + std::to_string(10 + i) + "\n";
  std::string in = test::write_file("hostile.folded", folded);
  std::string svg_path = test::tmp_path("hostile.svg");
  for (const char* extra : {"", "--inverted --reverse --colors=java --title '</title><script>x</script>' --subtitle ']]>' "
                                "--notes '--><script>alert(1)</script>' --nametype '<b>'"}) {
    auto r = test::flamefold("flamegraph " + in + " -o " + svg_path + " " + extra);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string py = R"PY(
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
allowed = {"svg", "defs", "linearGradient", "stop", "style", "script", "rect", "text", "g", "title"}
bad = [e.tag for e in root.iter() if not e.tag.startswith(NS) or e.tag[len(NS):] not in allowed]
print("bad elements:", bad)
scripts = [e for e in root.iter(NS + "script")]
print("scripts:", len(scripts), "alert in script:", "alert" in (scripts[0].text or ""))
handlers = [(e.tag, a) for e in root.iter() for a in e.attrib if a.lower().startswith("on") and not (e is root and a == "onload")]
print("handlers:", handlers)
titles = [t.text for t in root.iter(NS + "title")]
with open(sys.argv[2], "rb") as f:
    names = f.read().decode("utf-8", "replace").split("\n")
for n in names:
    n = "".join("\ufffd" if ord(c) < 32 else c for c in n)
    print(sum(1 for t in titles if t.startswith(n + " (")), end=" ")
print()
)PY";
    std::string script = test::write_file("check.py", py);
    std::string names;
    for (const std::string& h : hostile) names += h + "\n";
    names.pop_back();
    std::string names_path = test::write_file("names.txt", names);
    auto check = test::run("python3 " + script + " " + svg_path + " " + names_path);
    ASSERT_EQ(check.exit_code, 0) << check.err;
    EXPECT_EQ(check.out,
              "bad elements: []\nscripts: 1 alert in script: False\nhandlers: []\n1 1 1 1 1 1 1 \n")
        << extra;
  }
}

TEST(SvgWriter, CommandLineOptionsAndErrors) {
  std::string in = test::write_file("in.folded", "a;b 3\na;c 1\nd 4\n");
  std::string out = test::tmp_path("out.svg");
  auto r = test::flamefold("flamegraph " + in + " -o " + out +
                           " --title T1 --subtitle S1 --width 800 --height 20 --fontsize 10 --fonttype Courier"
                           " --countname widgets --bgcolors '#102030' --hash --nametype Func: --notes hello");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string svg = test::read_file(out);
  EXPECT_NE(svg.find(">T1</text>"), std::string::npos);
  EXPECT_NE(svg.find("<text id=\"subtitle\" x=\"400\" y=\"40\">S1</text>"), std::string::npos);
  EXPECT_NE(svg.find("width=\"800\""), std::string::npos);
  EXPECT_NE(svg.find("font-family:Courier; font-size:10px"), std::string::npos);
  EXPECT_NE(svg.find("stop-color=\"#102030\""), std::string::npos);
  EXPECT_NE(svg.find("<!-- NOTES: hello -->"), std::string::npos);
  EXPECT_NE(svg.find("data-nametype=\"Func:\""), std::string::npos);
  auto frames = frames_of(svg);
  ASSERT_EQ(frames.size(), 5u);
  EXPECT_EQ(find_frame(frames, "d")->title, "d (4 widgets, 50.00%)");
  EXPECT_NEAR(find_frame(frames, "d")->width, 390, 0.011);
  EXPECT_NEAR(find_frame(frames, "a")->y - find_frame(frames, "b")->y, 20, 1e-9);

  std::string bad = test::tmp_path("bad.svg");
  auto e = test::flamefold("flamegraph " + in + " -o " + bad + " --colors rainbow");
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_NE(e.err.find("unknown palette 'rainbow'"), std::string::npos) << e.err;
  EXPECT_FALSE(std::filesystem::exists(bad));
  e = test::flamefold("flamegraph " + in + " -o " + bad + " --bgcolors plaid");
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(bad));
}
