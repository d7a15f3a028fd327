// Reading the HTML viewer's payload back in tests: the base64 + gzip data of a written page and
// its layout (documented at the top of src/flamefold/writers/html.cpp).
#pragma once
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace html_payload {

inline std::string base64_decode(std::string_view in) {
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

// One gzip member, the whole of `in` (bytes after its end fail the test).
inline std::string gunzip(const std::string& in) {
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
  EXPECT_EQ(rc, Z_STREAM_END);
  EXPECT_EQ(z.avail_in, 0u) << "bytes after the member";
  inflateEnd(&z);
  return out;
}

// The text of the page's data element.
inline std::string_view data_of(const std::string& html) {
  const std::string open = "id=\"ff-data\">";
  size_t a = html.find(open);
  EXPECT_NE(a, std::string::npos);
  a += open.size();
  return std::string_view(html).substr(a, html.find("</script>", a) - a);
}

inline std::string payload_of(const std::string& html) {
  // Big payloads are several gzip members, each in base64 of its own, separated by '.'.
  std::string out;
  std::string_view data = data_of(html);
  for (size_t at = 0; at <= data.size();) {
    size_t dot = std::min(data.find('.', at), data.size());
    out += gunzip(base64_decode(data.substr(at, dot - at)));
    at = dot + 1;
  }
  return out;
}

// How many gzip members the page's payload is in.
inline size_t payload_members(const std::string& html) {
  std::string_view data = data_of(html);
  return 1 + static_cast<size_t>(std::count(data.begin(), data.end(), '.'));
}

// A decoder for the payload (the layout documented in src/flamefold/writers/html.cpp).
struct Decoded {
  std::string header;
  std::vector<std::string> strings;
  std::vector<uint64_t> string_shared;  // front-coded: UTF-16 units shared with the string before
  std::vector<std::string> frame_name, frame_file;
  std::vector<uint64_t> frame_name_written;  // the name column as written: differences of string ids
  std::vector<uint64_t> frame_line, frame_cat;
  std::vector<uint64_t> depth, frame;  // per node, depth-first; frame of node 0 unused
  std::vector<std::vector<double>> self;
  std::map<uint64_t, std::string> sections;  // by tag (PayloadSection)
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
  int64_t zigzag() {
    uint64_t v = varint();
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  std::string text() { return bytes(varint()); }
  std::string bytes(size_t n) {
    std::string r = s.substr(p, n);
    p += n;
    return r;
  }
};

// UTF-16 length of valid UTF-8.
inline size_t utf16_length(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if ((c & 0xc0) != 0x80) n += c >= 0xf0 ? 2 : 1;
  }
  return n;
}

inline Decoded decode(const std::string& payload, size_t columns) {
  Decoded d;
  ByteReader r{payload};
  EXPECT_EQ(r.bytes(4), "FFD1");
  d.header = r.bytes(r.varint());
  // Big payloads are front-coded: each string is a prefix of the one before (its length in
  // UTF-16 units first), then its own units.
  const bool front_coded = d.header.find("\"front_coded\":true") != std::string::npos;
  size_t strings = r.varint();
  std::vector<uint64_t> shared(strings, 0), lengths(strings);
  for (size_t i = 0; i < strings; ++i) {
    if (front_coded) shared[i] = r.varint();
    lengths[i] = r.varint();
  }
  std::string blob = r.bytes(r.varint());
  // The first `units` UTF-16 units of UTF-8 text s, from byte `at` on: their byte count.
  auto bytes_of = [](const std::string& s, size_t at, uint64_t units) {
    size_t start = at, u = 0;
    while (u < units) {
      auto c = static_cast<unsigned char>(s.at(at));
      size_t len = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
      u += len == 4 ? 2 : 1;
      at += len;
    }
    return at - start;
  };
  size_t at = 0;
  for (size_t i = 0; i < strings; ++i) {
    std::string prefix;
    if (shared[i]) prefix = d.strings.at(i - 1).substr(0, bytes_of(d.strings.at(i - 1), 0, shared[i]));
    EXPECT_EQ(utf16_length(prefix), shared[i]);
    const size_t n = bytes_of(blob, at, lengths[i]);
    d.strings.push_back(prefix + blob.substr(at, n));
    at += n;
  }
  EXPECT_EQ(at, blob.size());
  d.string_shared = shared;
  size_t frames = r.varint();
  // Name ids as differences from the frame before (frames come sorted by name).
  for (size_t f = 0, id = 0; f < frames; ++f) {
    d.frame_name_written.push_back(r.varint());
    d.frame_name.push_back(d.strings.at(id += d.frame_name_written.back()));
  }
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
  // Optional sections to the end.
  while (r.p < payload.size()) {
    uint64_t tag = r.varint();
    d.sections[tag] = r.bytes(r.varint());
  }
  EXPECT_EQ(r.p, payload.size());
  return d;
}

}  // namespace html_payload
