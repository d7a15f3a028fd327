// The HTML writer: one self-contained file, the payload decodes back to the profile, hostile
// names never reach the markup, and fixtures for the browser tests (tests/browser).
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "flamefold/output.h"
#include "flamefold/profile.h"
#include "flamefold/web_assets.h"
#include "flamefold/writers/html.h"
#include "html_payload.h"
#include "test_support.h"

namespace {

using flamefold::NodeId;
using flamefold::Profile;
using namespace html_payload;

std::string write_to_string(const Profile& p, const flamefold::WriteOptions& o, const std::string& name) {
  std::string path = test::tmp_path(name);
  flamefold::OutputFile out(path);
  flamefold::write_html(p, out, o);
  out.commit();
  return test::read_file(path);
}

// "a;b;c" stacks (by decoded names) -> self weight in column c.
std::map<std::string, double> stacks_of(const Decoded& d, size_t c) {
  std::map<std::string, double> m;
  std::vector<std::string> path;
  for (size_t i = 0; i < d.depth.size(); ++i) {
    path.resize(d.depth[i]);
    if (i) path.push_back(d.frame_name[d.frame[i]]);
    std::string key;
    for (const auto& s : path) key += (key.empty() ? "" : ";") + s;
    if (d.self[c][i] != 0) m[key] += d.self[c][i];
  }
  return m;
}

// A profile with two processes, threads under them, two time columns and a calls column.
Profile threads_and_two_columns() {
  Profile p;
  p.source_format = "test fixture";
  p.inputs = {"fixture.json"};
  p.facts = {{"events", "12"}, {"ranks", "1"}};
  p.counters.push_back({"events with a negative duration (skipped)", 3});
  int cpu = p.add_column("cpu", "ns");
  int gpu = p.add_column("gpu", "ns");
  int calls = p.add_column("calls", "count");
  p.default_column = cpu;
  auto& s = p.symbols;
  auto process = s.category("process"), thread = s.category("thread");
  auto op = s.category("cpu_op"), py = s.category("python_function"), kernel = s.category("kernel");
  NodeId p1 = p.child(0, s.frame("python 100", {}, 0, process));
  NodeId t1 = p.child(p1, s.frame("thread 1 (main)", {}, 0, thread));
  NodeId t2 = p.child(p1, s.frame("thread 2 (loader)", {}, 0, thread));
  NodeId train = p.child(t1, s.frame("train", "train.py", 10, py));
  NodeId step = p.child(train, s.frame("step", "train.py", 42, py));
  NodeId mm = p.child(step, s.frame("aten::mm", {}, 0, op));
  NodeId k = p.child(mm, s.frame("sgemm_128x64", {}, 0, kernel));
  p.add(mm, cpu, 4e6);
  p.add(mm, calls, 20);
  p.add(k, gpu, 30e6);
  p.add(step, cpu, 1e6);
  p.add(train, cpu, 0.5e6);
  NodeId load = p.child(t2, s.frame("load", "data.py", 7, py));
  NodeId step2 = p.child(load, s.frame("step", "train.py", 42, py));
  p.add(step2, cpu, 2e6);
  NodeId rd = p.child(load, s.frame("read", "data.py", 30, py));
  p.add(rd, cpu, 6e6);
  NodeId p2 = p.child(0, s.frame("python 200", {}, 0, process));
  NodeId t3 = p.child(p2, s.frame("thread 3 (main)", {}, 0, thread));
  NodeId train3 = p.child(t3, s.frame("train", "train.py", 10, py));
  NodeId step3 = p.child(train3, s.frame("step", "train.py", 42, py));
  NodeId mm3 = p.child(step3, s.frame("aten::mm", {}, 0, op));
  NodeId k3 = p.child(mm3, s.frame("sgemm_128x64", {}, 0, kernel));
  p.add(mm3, cpu, 3e6);
  p.add(mm3, calls, 10);
  p.add(k3, gpu, 10e6);
  return p;
}

TEST(HtmlWriter, IsOneSelfContainedFile) {
  Profile p = threads_and_two_columns();
  std::string html = write_to_string(p, {}, "flame.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Nothing is fetched: no external scripts, styles, images or URLs.
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
  // The viewer and its style are inline, every template marker replaced.
  EXPECT_NE(html.find("DecompressionStream"), std::string::npos);
  EXPECT_NE(html.find("prefers-color-scheme"), std::string::npos);
  EXPECT_EQ(html.find("FF:"), std::string::npos);
}

TEST(HtmlWriter, ViewerSourceCannotCloseItsScriptElement) {
  std::string_view js = flamefold::web_asset("viewer.js");
  ASSERT_FALSE(js.empty());
  EXPECT_EQ(js.find("</script"), std::string_view::npos);
  EXPECT_EQ(js.find("<!--"), std::string_view::npos);
  EXPECT_EQ(js.find("innerHTML"), std::string_view::npos);
  EXPECT_EQ(js.find("insertAdjacentHTML"), std::string_view::npos);
  EXPECT_EQ(js.find("document.write"), std::string_view::npos);
}

TEST(HtmlWriter, PayloadDecodesToTheSameStacksAndWeights) {
  Profile p = threads_and_two_columns();
  std::string html = write_to_string(p, {}, "flame.html");
  Decoded d = decode(payload_of(html), p.columns.size());
  EXPECT_EQ(d.depth.size(), p.node_count());
  EXPECT_NE(d.header.find("\"default_column\":0"), std::string::npos);
  EXPECT_NE(d.header.find("{\"name\":\"gpu\",\"unit\":\"ns\"}"), std::string::npos);
  EXPECT_NE(d.header.find("\"source_format\":\"test fixture\""), std::string::npos);
  EXPECT_NE(d.header.find("[\"events with a negative duration (skipped)\",3]"), std::string::npos);
  auto cpu = stacks_of(d, 0), gpu = stacks_of(d, 1), calls = stacks_of(d, 2);
  EXPECT_EQ(cpu.at("python 100;thread 1 (main);train;step;aten::mm"), 4e6);
  EXPECT_EQ(cpu.at("python 100;thread 2 (loader);load;read"), 6e6);
  EXPECT_EQ(gpu.at("python 200;thread 3 (main);train;step;aten::mm;sgemm_128x64"), 10e6);
  EXPECT_EQ(calls.at("python 100;thread 1 (main);train;step;aten::mm"), 20);
  double sum = 0;
  for (auto& [k, v] : cpu) sum += v;
  EXPECT_EQ(sum, p.total(0));
  // Frames come in name order, and siblings in frame order (flamegraph.pl's alphabetical layout).
  for (size_t f = 1; f < d.frame_name.size(); ++f) EXPECT_LE(d.frame_name[f - 1], d.frame_name[f]);
  size_t train = 0;
  while (d.frame_name[train] != "train") ++train;
  EXPECT_EQ(d.frame_file[train], "train.py");
  EXPECT_EQ(d.frame_line[train], 10u);
}

TEST(HtmlWriter, FractionalWeightsAreKeptExactly) {
  Profile p;
  int c = p.add_column("samples", "samples");
  NodeId a = p.child(0, p.symbols.frame("a"));
  p.add(a, c, 0.25);
  p.add(p.child(a, p.symbols.frame("b")), c, 1e-9);
  Decoded d = decode(payload_of(write_to_string(p, {}, "f.html")), 1);
  auto m = stacks_of(d, 0);
  EXPECT_EQ(m.at("a"), 0.25);
  EXPECT_EQ(m.at("a;b"), 1e-9);
}

TEST(HtmlWriter, HostileNamesAndTitleNeverReachTheMarkup) {
  Profile p;
  int c = p.add_column("samples", "samples");
  const std::vector<std::string> hostile = {"</script><img src=x onerror=alert(1)>", "\"><svg onload=alert(1)>",
                                            "<!--", "a\u2028b\u2029c", "&amp;&lt;"};
  NodeId n = 0;
  for (const auto& h : hostile) {
    n = p.child(n, p.symbols.frame(h, h, 1));
    p.add(n, c, 1);
  }
  flamefold::WriteOptions o;
  o.title = "</title><script>alert(1)</script>";
  std::string html = write_to_string(p, o, "hostile.html");
  EXPECT_EQ(html.find("onerror"), std::string::npos);
  EXPECT_EQ(html.find("onload"), std::string::npos);
  EXPECT_EQ(html.find("alert(1)</script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;/title&gt;&lt;script&gt;"), std::string::npos);
  size_t scripts = 0;
  for (size_t at = html.find("</script"); at != std::string::npos; at = html.find("</script", at + 1)) ++scripts;
  EXPECT_EQ(scripts, 2u);  // the data element and the viewer, nothing else
  Decoded d = decode(payload_of(html), 1);
  auto m = stacks_of(d, 0);
  EXPECT_EQ(m.at(hostile[0]), 1);  // the names themselves survive, as data
  EXPECT_EQ(m.at(hostile[0] + ";" + hostile[1]), 1);
}

TEST(HtmlWriter, InvalidUtf8BecomesReplacementCharacters) {
  Profile p;
  int c = p.add_column("samples", "samples");
  p.add(p.child(0, p.symbols.frame(std::string("bad\xff\xc3(", 6))), c, 1);
  p.add(p.child(0, p.symbols.frame("emoji \xf0\x9f\x94\xa5")), c, 1);
  Decoded d = decode(payload_of(write_to_string(p, {}, "utf8.html")), 1);
  auto m = stacks_of(d, 0);
  EXPECT_EQ(m.count("bad\xef\xbf\xbd\xef\xbf\xbd("), 1u);
  EXPECT_EQ(m.count("emoji \xf0\x9f\x94\xa5"), 1u);  // 2 UTF-16 units, checked by decode()
}

TEST(HtmlWriter, OutputIsDeterministic) {
  Profile p = threads_and_two_columns();
  EXPECT_EQ(write_to_string(p, {}, "a.html"), write_to_string(p, {}, "b.html"));
}

TEST(HtmlWriter, DeepStackDoesNotRecurse) {
  Profile p;
  int c = p.add_column("samples", "samples");
  NodeId n = 0;
  for (int i = 0; i < 100000; ++i) n = p.child(n, p.symbols.frame("f" + std::to_string(i % 7)));
  p.add(n, c, 3);
  Decoded d = decode(payload_of(write_to_string(p, {}, "deep.html")), 1);
  EXPECT_EQ(d.depth.back(), 100000u);
  EXPECT_EQ(d.self[0].back(), 3);
}

// Writes the browser tests' profile with groups and two columns (tests/browser/viewer.test.js
// runs this with FLAMEFOLD_HTML_FIXTURE_DIR set; alone it checks the file was written).
TEST(HtmlBrowserFixture, ThreadsAndTwoColumns) {
  const char* dir = std::getenv("FLAMEFOLD_HTML_FIXTURE_DIR");
  std::string path = dir ? std::string(dir) + "/threads-two-columns.html" : test::tmp_path("threads-two-columns.html");
  flamefold::WriteOptions o;
  o.title = "two columns, two processes, three threads";
  {
    flamefold::OutputFile out(path);
    flamefold::write_html(threads_and_two_columns(), out, o);
    out.commit();
  }
  EXPECT_GT(test::read_file(path).size(), 1000u);
}

}  // namespace

// Enough frames for the writer's two-thread ordering: frames are numbered in (name, file, line,
// category) order, names compared byte by byte (long shared prefixes, names that are prefixes
// of others, multibyte UTF-8, an empty name).
TEST(HtmlWriter, ManyFramesAreNumberedInNameOrder) {
  Profile p;
  int c = p.add_column("samples", "samples");
  auto& s = p.symbols;
  flamefold::CategoryId cats[] = {0, s.category("python_function"), s.category("cpu_op")};
  std::mt19937 rng(3);
  // Names that differ only past their first 24 bytes (the sort's integer keys) too.
  const char* stems[] = {"torch.forward_", "torch.forward", "a", "", "\xc3\xa9t\xc3\xa9_", "torch.forward_1", "zz",
                         "torch.nn.modules.linear.Linear.forward_", "torch.nn.modules.linear.Linear.forward"};
  for (int i = 0; i < 70000; ++i) {
    std::string name = std::string(stems[rng() % 9]) + std::to_string(rng() % 30000);
    if (i % 5 == 0 && static_cast<unsigned char>(name[0]) < 0x80) name.resize(name.size() / 2);  // stays UTF-8
    std::string file = i % 3 ? "" : "f" + std::to_string(rng() % 4) + ".py";
    uint32_t line = file.empty() ? 0 : 1 + static_cast<uint32_t>(rng() % 3);
    p.add(p.child(0, s.frame(name, file, line, cats[rng() % 3])), c, 1);
  }
  Decoded d = decode(payload_of(write_to_string(p, {}, "many.html")), 1);
  // The header's category names, by index.
  std::vector<std::string> categories;
  size_t at = d.header.find("\"categories\":[") + 14;
  while (d.header[at] == '"') {
    size_t end = d.header.find('"', at + 1);
    categories.push_back(d.header.substr(at + 1, end - at - 1));
    at = end + 1 + (d.header[end + 1] == ',');
  }
  ASSERT_EQ(d.frame_name.size(), s.frame_count());
  auto key = [&](size_t f) { return std::tie(d.frame_name[f], d.frame_file[f], d.frame_line[f], categories.at(d.frame_cat[f])); };
  for (size_t f = 1; f < d.frame_name.size(); ++f) ASSERT_LT(key(f - 1), key(f)) << f;
  // In name order, each frame's name is the one before or the next string: the column holds
  // those differences (0 for a name shared with the frame before, else 1).
  size_t next = 0;
  for (size_t f = 1; f < d.frame_name_written.size(); ++f) {
    ASSERT_LE(d.frame_name_written[f], 1u) << f;
    ASSERT_EQ(d.frame_name_written[f] == 0, d.frame_name[f] == d.frame_name[f - 1]) << f;
    next += d.frame_name_written[f];
  }
  EXPECT_GT(next, 1000u);
}

// Frames whose names share their first 24 bytes (the sort's keys) are ordered by the rest, also
// where the sorted keys are split between two threads: every name here has the same key, so the
// split falls inside their run, which one thread must then order whole.
TEST(HtmlWriter, NamesAlikeInTheirKeysAreOrderedAcrossTheSortsHalves) {
  Profile p;
  int c = p.add_column("samples", "samples");
  std::mt19937 rng(11);
  for (int i = 0; i < 80000; ++i) {
    std::string name = "torch.nn.modules.linear.Linear.forward_" + std::to_string(rng() % 1000000);
    p.add(p.child(0, p.symbols.frame(name)), c, 1);
  }
  Decoded d = decode(payload_of(write_to_string(p, {}, "alike.html")), 1);
  ASSERT_EQ(d.frame_name.size(), p.symbols.frame_count());
  ASSERT_GT(d.frame_name.size(), 70000u);
  for (size_t f = 1; f < d.frame_name.size(); ++f) ASSERT_LT(d.frame_name[f - 1], d.frame_name[f]) << f;
}

// A payload past 16 MB is written as it is compressed, in gzip members of 4 MB, while the rest is
// built, its strings front-coded: the members decode to the whole payload, strings (invalid and
// multi-byte UTF-8 among them), frames, tree and both kinds of weight column intact.
TEST(HtmlWriter, BigPayloadIsWrittenInGzipMembersThatDecodeWhole) {
  Profile p;
  int samples = p.add_column("samples", "samples");
  int share = p.add_column("share", "ms");
  auto& s = p.symbols;
  const std::string pad(90, 'q');
  std::map<std::string, double> want_samples, want_share;
  for (int i = 0; i < 180000; ++i) {
    std::string mod = "mod_" + std::to_string(i % 11);
    // Neighbours in name order that differ inside a multi-byte character (é/è, two emoji):
    // the shared prefix of front coding stops before it.
    const char* accents[] = {"\xc3\xa9", "\xc3\xa8", "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x81", ""};
    std::string leaf = "leaf_" + std::to_string(i / 5) + accents[i % 5] + (i % 1000 == 0 ? "\xff\xfe" : "") + pad;
    NodeId m = p.child(0, s.frame(mod));
    NodeId l = p.child(m, s.frame(leaf));
    p.add(l, samples, 1 + i % 7);
    p.add(l, share, 0.25 * (i % 3));
    p.add(m, samples, 1);
    std::string clean = leaf;
    if (i % 1000 == 0) clean.replace(clean.find("\xff\xfe"), 2, "\xEF\xBF\xBD\xEF\xBF\xBD");
    want_samples[mod + ";" + clean] += 1 + i % 7;
    want_samples[mod] += 1;
    if (i % 3) want_share[mod + ";" + clean] += 0.25 * (i % 3);
  }
  std::string html = write_to_string(p, {}, "members.html");
  EXPECT_GE(html_payload::payload_members(html), 5u);
  std::string payload = payload_of(html);
  EXPECT_NE(payload.find("\"front_coded\":true"), std::string::npos);
  EXPECT_GT(payload.size(), size_t(16) << 20);
  Decoded d = decode(payload, p.columns.size());
  EXPECT_EQ(d.depth.size(), p.node_count());
  EXPECT_EQ(stacks_of(d, samples), want_samples);
  EXPECT_EQ(stacks_of(d, share), want_share);
  for (size_t f = 1; f < d.frame_name.size(); ++f) ASSERT_LT(d.frame_name[f - 1], d.frame_name[f]) << f;
}

// Front coding is split between two threads near the middle string, where a block starts; every
// name (each holds an invalid byte, cleaned) decodes whole. Every 32nd string shares nothing, so
// the page can make a name from its block alone; the others share what they can.
TEST(HtmlWriter, FrontCodedStringsSplitBetweenThreadsDecodeWhole) {
  Profile p;
  int samples = p.add_column("samples", "samples");
  const std::string shared(240, 'x');
  std::vector<std::string> want;
  for (int i = 0; i < 70000; ++i) {
    char digits[16];
    std::snprintf(digits, sizeof digits, "%06d", i);
    p.add(p.child(0, p.symbols.frame("p" + shared + "\xff" + digits)), samples, 1);
    want.push_back("p" + shared + "\xEF\xBF\xBD" + digits);
  }
  std::string payload = payload_of(write_to_string(p, {}, "split.html"));
  ASSERT_NE(payload.find("\"front_coded\":true,\"front_restart\":32"), std::string::npos);
  Decoded d = decode(payload, p.columns.size());
  std::vector<std::string> names(d.frame_name.begin() + (d.frame_name.size() - want.size()), d.frame_name.end());
  EXPECT_EQ(names, want);
  size_t sharing = 0;
  for (size_t i = 0; i < d.string_shared.size(); ++i) {
    if (i % 32 == 0) ASSERT_EQ(d.string_shared[i], 0u) << "string " << i << " starts a block";
    else if (d.string_shared[i] >= shared.size() + 2) ++sharing;  // "p", the x's, U+FFFD
  }
  EXPECT_GE(sharing, want.size() * 31 / 32 - 32);
}

namespace {

// `layers` leaves of two frames each (a module, then a numbered layer), weighted 1-5 samples,
// in `p`; their stacks in `want`.
void add_module_layers(Profile& p, int samples, int layers, std::map<std::string, double>& want) {
  for (int i = 0; i < layers; ++i) {
    std::string mod = "torch.nn.modules.module_" + std::to_string(i % 97);
    std::string leaf = "layer_" + std::to_string(i) + "(model/blocks/transformer_block.py:" + std::to_string(i % 900) + ")";
    NodeId l = p.child(p.child(0, p.symbols.frame(mod)), p.symbols.frame(leaf));
    p.add(l, samples, 1 + i % 5);
    want[mod + ";" + leaf] += 1 + i % 5;
  }
}

// The decoded page's stacks of two frames or more, by samples.
std::map<std::string, double> leaf_stacks(const std::string& payload, size_t columns, int samples) {
  std::map<std::string, double> got = stacks_of(decode(payload, columns), samples);
  for (auto it = got.begin(); it != got.end();) it = it->first.find(';') == std::string::npos ? got.erase(it) : std::next(it);
  return got;
}

}  // namespace

// A payload of 4 to 16 MB (the shape of a long sampling run: a few hundred thousand nodes) is
// also written in members while it is built, its strings front-coded, rather than compressed
// whole at level 6 afterwards; it decodes to the same stacks.
TEST(HtmlWriter, MidSizedPayloadIsWrittenInGzipMembers) {
  Profile p;
  int samples = p.add_column("samples", "samples");
  std::map<std::string, double> want;
  add_module_layers(p, samples, 100000, want);
  std::string html = write_to_string(p, {}, "mid.html");
  std::string payload = payload_of(html);
  EXPECT_GT(payload.size(), size_t(4) << 20);
  EXPECT_LT(payload.size(), size_t(16) << 20);
  EXPECT_GE(html_payload::payload_members(html), 2u);
  EXPECT_NE(payload.find("\"front_coded\":true"), std::string::npos);
  EXPECT_EQ(leaf_stacks(payload, p.columns.size(), samples), want);
}

// A payload built whole of 256 KB to 4 MB (a 1M-call Ascend DB's is 0.8 MB, mostly its flame
// chart) is compressed as two members at once, one per core; it decodes to the same stacks.
TEST(HtmlWriter, QuarterMegabytePayloadIsTwoMembersCompressedAtOnce) {
  Profile p;
  int samples = p.add_column("samples", "samples");
  std::map<std::string, double> want;
  add_module_layers(p, samples, 12000, want);
  std::string html = write_to_string(p, {}, "quarter.html");
  std::string payload = payload_of(html);
  EXPECT_GT(payload.size(), size_t(256) << 10);
  EXPECT_LT(payload.size(), size_t(4) << 20);
  EXPECT_EQ(html_payload::payload_members(html), 2u);
  EXPECT_EQ(payload.find("\"front_coded\":true"), std::string::npos);  // built whole, not in members
  EXPECT_EQ(leaf_stacks(payload, p.columns.size(), samples), want);
}

// Small payloads stay one gzip member, as before.
TEST(HtmlWriter, SmallPayloadIsOneGzipMember) {
  Profile p = threads_and_two_columns();
  EXPECT_EQ(html_payload::payload_members(write_to_string(p, {}, "one.html")), 1u);
}
