// The payload of a flamefold HTML page, inflated (base64 of gzip in #ff-data; layout in
// src/flamefold/writers/html.cpp): tests look for strings in it.
#pragma once
#include <zlib.h>

#include <string>
#include <string_view>

namespace test {

inline std::string html_payload(const std::string& html) {
  const std::string open = "id=\"ff-data\">";
  size_t a = html.find(open);
  if (a == std::string::npos) return {};
  a += open.size();
  size_t b = html.find("</script>", a);
  std::string bin;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : std::string_view(html).substr(a, b - a)) {
    int v = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
          : c == '+' ? 62 : c == '/' ? 63 : -1;
    if (v < 0) continue;
    acc = acc << 6 | uint32_t(v);
    if ((bits += 6) >= 8) bin.push_back(char((acc >> (bits -= 8)) & 0xff));
  }
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return {};
  std::string out;
  char buf[1 << 16];
  z.next_in = reinterpret_cast<Bytef*>(bin.data());
  z.avail_in = static_cast<uInt>(bin.size());
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  } while (rc == Z_OK);
  inflateEnd(&z);
  return rc == Z_STREAM_END ? out : std::string();
}

}  // namespace test
