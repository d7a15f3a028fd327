// The HTML writer: one self-contained file, the payload decodes back to the profile, hostile
// names never reach the markup, and fixtures for the browser tests (tests/browser).
#include <zlib.h>

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
#include "test_support.h"

namespace {

using flamefold::NodeId;
using flamefold::Profile;

std::string write_to_string(const Profile& p, const flamefold::WriteOptions& o, const std::string& name) {
  std::string path = test::tmp_path(name);
  flamefold::OutputFile out(path);
  flamefold::write_html(p, out, o);
  out.commit();
  return test::read_file(path);
}

std::string base64_decode(std::string_view in) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v = val(c);
    if (v < 0) continue;
    acc = acc << 6 | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

std::string gunzip(const std::string& in) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out;
  char buf[65536];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  } while (rc == Z_OK);
  inflateEnd(&z);
  EXPECT_EQ(rc, Z_STREAM_END);
  return out;
}

std::string payload_of(const std::string& html) {
  const std::string open = "id=\"ff-data\">";
  size_t a = html.find(open);
  EXPECT_NE(a, std::string::npos);
  a += open.size();
  size_t b = html.find("</script>", a);
  return gunzip(base64_decode(std::string_view(html).substr(a, b - a)));
}

// A decoder for the payload (the layout documented in src/flamefold/writers/html.cpp).
struct Decoded {
  std::string header;
  std::vector<std::string> strings;
  std::vector<std::string> frame_name, frame_file;
  std::vector<uint64_t> frame_line, frame_cat;
  std::vector<uint64_t> depth, frame;  // per node, depth-first; frame of node 0 unused
  std::vector<std::vector<double>> self;
};

struct ByteReader {
  const std::string& s;
  size_t p = 0;
  uint64_t varint() {
    uint64_t x = 0;
    int shift = 0;
    for (;;) {
      auto c = static_cast<unsigned char>(s.at(p++));
      x |= uint64_t(c & 0x7f) << shift;
      if (!(c & 0x80)) return x;
      shift += 7;
    }
  }
  std::string bytes(size_t n) {
    std::string r = s.substr(p, n);
    p += n;
    return r;
  }
};

// UTF-16 length of valid UTF-8.
size_t utf16_length(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if ((c & 0xc0) != 0x80) n += c >= 0xf0 ? 2 : 1;
  }
  return n;
}

Decoded decode(const std::string& payload, size_t columns) {
  Decoded d;
  ByteReader r{payload};
  EXPECT_EQ(r.bytes(4), "FFD1");
  d.header = r.bytes(r.varint());
  size_t strings = r.varint();
  std::vector<uint64_t> lengths(strings);
  for (auto& l : lengths) l = r.varint();
  std::string blob = r.bytes(r.varint());
  size_t at = 0;
  for (size_t i = 0; i < strings; ++i) {
    // Lengths are UTF-16 units: walk code points.
    size_t start = at, units = 0;
    while (units < lengths[i]) {
      auto c = static_cast<unsigned char>(blob.at(at));
      size_t len = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
      units += len == 4 ? 2 : 1;
      at += len;
    }
    d.strings.push_back(blob.substr(start, at - start));
    EXPECT_EQ(utf16_length(d.strings.back()), lengths[i]);
  }
  EXPECT_EQ(at, blob.size());
  size_t frames = r.varint();
  for (size_t f = 0; f < frames; ++f) d.frame_name.push_back(d.strings.at(r.varint()));
  for (size_t f = 0; f < frames; ++f) d.frame_file.push_back(d.strings.at(r.varint()));
  for (size_t f = 0; f < frames; ++f) d.frame_line.push_back(r.varint());
  for (size_t f = 0; f < frames; ++f) d.frame_cat.push_back(r.varint());
  size_t n = r.varint();
  d.depth.assign(n, 0);
  d.frame.assign(n, 0);
  for (size_t i = 1; i < n; ++i) d.depth[i] = d.depth[i - 1] + 1 - r.varint();
  for (size_t i = 1; i < n; ++i) d.frame[i] = r.varint();
  for (size_t c = 0; c < columns; ++c) {
    int kind = static_cast<unsigned char>(r.bytes(1)[0]);
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) {
      if (kind == 0) {
        v[i] = static_cast<double>(r.varint());
      } else {
        std::string b = r.bytes(8);
        std::memcpy(&v[i], b.data(), 8);
      }
    }
    d.self.push_back(std::move(v));
  }
  EXPECT_EQ(r.p, payload.size());
  return d;
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
  const char* stems[] = {"torch.forward_", "torch.forward", "a", "", "\xc3\xa9t\xc3\xa9_", "torch.forward_1", "zz"};
  for (int i = 0; i < 70000; ++i) {
    std::string name = std::string(stems[rng() % 7]) + std::to_string(rng() % 30000);
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
}
