#include "flamefold/varint.h"
#include "flamefold/profile_binary.h"

#include <zstd.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "flamefold/errors.h"

namespace flamefold {

namespace {

constexpr std::string_view kMagic = "FFPB";
constexpr uint8_t kVersion = 1;
constexpr uint8_t kCompressed = 1;

void put_signed(std::string& out, int64_t v) {
  put_varint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}
void put_str(std::string& out, std::string_view s) {
  put_varint(out, s.size());
  out.append(s);
}

// Whether every value is an integer a varint carries exactly (most columns: ns, counts).
bool integral(const std::vector<double>& v) {
  for (double x : v)
    if (!(x == std::trunc(x) && std::fabs(x) < 9.0e15)) return false;
  return true;
}

// Whether each parent's children are listed newest first, as appending them in node order
// leaves them (then the links need not be stored).
bool appended_order(const Profile& p) {
  std::vector<NodeId> last(p.node_count(), kNone);  // the newest child seen so far, per parent
  for (NodeId n = 1; n < p.node_count(); ++n) {
    if (p.next_sibling[n] != last[p.parent[n]]) return false;
    last[p.parent[n]] = n;
  }
  for (NodeId n = 0; n < p.node_count(); ++n)
    if (p.first_child[n] != last[n]) return false;
  return true;
}

class Decoder {
 public:
  Decoder(std::string_view bytes, const std::string& name, size_t offset) : b_(bytes), name_(name), offset_(offset) {}
  [[noreturn]] void fail(const std::string& problem) const {
    throw InputError(name_, "byte " + std::to_string(offset_ + at_), "not a flamefold profile encoding: " + problem);
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= b_.size()) fail("it ends inside a number");
      uint8_t c = static_cast<uint8_t>(b_[at_++]);
      v |= uint64_t(c & 0x7f) << shift;
      if (!(c & 0x80)) return v;
    }
    fail("a number longer than 64 bits");
  }
  int64_t signed_varint() {
    uint64_t z = varint();
    return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
  }
  // A count of items that take at least `min_bytes` each of what is left (so a corrupt count
  // cannot ask for more memory than the data could fill).
  size_t count(size_t min_bytes) {
    uint64_t n = varint();
    if (n > (b_.size() - at_) / min_bytes) fail("a count larger than the data");
    return static_cast<size_t>(n);
  }
  uint32_t index(uint64_t limit, const char* what) {
    uint64_t v = varint();
    if (v >= limit) fail(std::string(what) + " out of range");
    return static_cast<uint32_t>(v);
  }
  std::string_view bytes(size_t n) {
    if (n > b_.size() - at_) fail("it ends inside a string");
    std::string_view s = b_.substr(at_, n);
    at_ += n;
    return s;
  }
  std::string_view str() { return bytes(static_cast<size_t>(varint())); }
  uint8_t byte() {
    if (at_ >= b_.size()) fail("it ends early");
    return static_cast<uint8_t>(b_[at_++]);
  }
  bool done() const { return at_ == b_.size(); }

 private:
  std::string_view b_;
  const std::string& name_;
  size_t offset_, at_ = 0;
};

}  // namespace

std::string encode_profile(const Profile& p, bool compress) {
  std::string out;
  // Strings: those the categories and frames use, numbered in order of first use.
  std::vector<uint32_t> string_index(p.symbols.strings.size(), kNone);
  std::vector<StrId> strings;
  auto use = [&](StrId s) {
    if (string_index[s] == kNone) {
      string_index[s] = static_cast<uint32_t>(strings.size());
      strings.push_back(s);
    }
    return string_index[s];
  };
  use(0);
  std::string table;
  put_varint(table, p.symbols.category_count() - 1);
  for (size_t c = 1; c < p.symbols.category_count(); ++c) {
    StrId s = p.symbols.strings.find(p.symbols.category_name(static_cast<CategoryId>(c)));
    put_varint(table, use(s));
  }
  put_varint(table, p.symbols.frame_count());
  for (FrameId f = 0; f < p.symbols.frame_count(); ++f) {
    const Frame& fr = p.symbols[f];
    put_varint(table, use(fr.name));
    put_varint(table, use(fr.file));
    put_varint(table, fr.line);
    put_varint(table, fr.category);
  }
  put_varint(out, strings.size());
  for (StrId s : strings) put_str(out, p.symbols.strings[s]);
  out += table;

  const size_t n = p.node_count();
  put_varint(out, n);
  for (NodeId i = 1; i < n; ++i) {
    put_varint(out, i - p.parent[i]);
    put_varint(out, p.frame[i]);
  }
  if (appended_order(p)) {
    out.push_back(0);
  } else {
    out.push_back(1);
    for (NodeId i = 0; i < n; ++i) put_varint(out, p.first_child[i] == kNone ? 0 : uint64_t(p.first_child[i]) + 1);
    for (NodeId i = 0; i < n; ++i) put_varint(out, p.next_sibling[i] == kNone ? 0 : uint64_t(p.next_sibling[i]) + 1);
  }
  put_varint(out, p.columns.size());
  for (const WeightColumn& c : p.columns) {
    put_str(out, c.name);
    put_str(out, c.unit);
    if (integral(c.self)) {
      out.push_back(0);
      for (double x : c.self) put_signed(out, static_cast<int64_t>(x));
    } else {
      out.push_back(1);
      size_t at = out.size();
      out.resize(at + c.self.size() * 8);
      std::memcpy(out.data() + at, c.self.data(), c.self.size() * 8);  // x86-64: little-endian
    }
  }
  put_varint(out, static_cast<uint64_t>(std::max(p.default_column, 0)));
  put_str(out, p.source_format);
  put_varint(out, p.inputs.size());
  for (const std::string& s : p.inputs) put_str(out, s);
  put_varint(out, p.facts.size());
  for (const auto& [k, v] : p.facts) {
    put_str(out, k);
    put_str(out, v);
  }
  put_varint(out, p.counters.size());
  for (const Counter& c : p.counters) {
    put_str(out, c.what);
    put_varint(out, c.count);
  }
  put_varint(out, p.device_ops.size());
  for (const DeviceOpStats& d : p.device_ops) {
    put_varint(out, d.frame);
    put_varint(out, d.count);
    put_signed(out, d.total_ns);
    put_signed(out, d.min_ns);
    put_signed(out, d.max_ns);
  }

  std::string head(kMagic);
  head.push_back(static_cast<char>(kVersion));
  if (!compress) {
    head.push_back(0);
    return head + out;
  }
  head.push_back(static_cast<char>(kCompressed));
  size_t at = head.size();
  head.resize(at + ZSTD_compressBound(out.size()));
  size_t z = ZSTD_compress(head.data() + at, head.size() - at, out.data(), out.size(), 3);
  if (ZSTD_isError(z)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(z));
  head.resize(at + z);
  return head;
}

Profile decode_profile(std::string_view bytes, const std::string& name) {
  if (bytes.size() < kMagic.size() + 2 || bytes.substr(0, kMagic.size()) != kMagic)
    throw InputError(name, "", "not a flamefold profile encoding (no FFPB header)");
  if (static_cast<uint8_t>(bytes[4]) != kVersion)
    throw InputError(name, "byte 4", "flamefold profile encoding version " + std::to_string(uint8_t(bytes[4])) +
                                         " (this build reads version " + std::to_string(kVersion) + ")");
  const uint8_t flags = static_cast<uint8_t>(bytes[5]);
  std::string_view body = bytes.substr(6);
  std::string inflated;
  if (flags & kCompressed) {
    unsigned long long size = ZSTD_getFrameContentSize(body.data(), body.size());
    // The encoder always records the size; a bound keeps a corrupt header from asking for terabytes.
    if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR || size > (uint64_t(1) << 40))
      throw InputError(name, "byte 6", "not a flamefold profile encoding: a broken zstd frame");
    inflated.resize(size);
    size_t got = ZSTD_decompress(inflated.data(), inflated.size(), body.data(), body.size());
    if (ZSTD_isError(got) || got != size)
      throw InputError(name, "byte 6", std::string("not a flamefold profile encoding: zstd: ") +
                                           (ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short content"));
    body = inflated;
  }
  Decoder d(body, name, (flags & kCompressed) ? 0 : 6);  // offsets into the decompressed body
  Profile p;
  Symbols& sy = p.symbols;
  std::vector<std::string_view> strings(d.count(1));
  for (std::string_view& s : strings) s = d.str();
  const size_t categories = d.count(1);
  for (size_t c = 0; c < categories; ++c) {
    std::string_view name_text = strings[d.index(strings.size(), "a category's string")];
    if (sy.category(name_text) != c + 1) d.fail("a category listed twice");
  }
  const size_t frames = d.count(4);
  std::vector<FrameId> frame_map(frames);
  sy.reserve(frames, strings.size());
  for (size_t f = 0; f < frames; ++f) {
    std::string_view fname = strings[d.index(strings.size(), "a frame's name")];
    std::string_view file = strings[d.index(strings.size(), "a frame's file")];
    uint64_t line = d.varint();
    if (line > std::numeric_limits<uint32_t>::max()) d.fail("a line number out of range");
    CategoryId cat = static_cast<CategoryId>(d.index(sy.category_count(), "a frame's category"));
    frame_map[f] = sy.frame(fname, file, static_cast<uint32_t>(line), cat);
  }
  const size_t n = d.count(2);
  if (n == 0) d.fail("no root node");
  p.parent.resize(n);
  p.frame.resize(n);
  for (NodeId i = 1; i < n; ++i) {
    uint64_t back = d.varint();
    if (back == 0 || back > i) d.fail("a node whose parent does not come before it");
    p.parent[i] = static_cast<NodeId>(i - back);
    p.frame[i] = frame_map[d.index(frames, "a node's frame")];
  }
  p.first_child.assign(n, kNone);
  p.next_sibling.assign(n, kNone);
  const uint8_t links = d.byte();
  if (links == 0) {
    for (NodeId i = 1; i < n; ++i) {
      p.next_sibling[i] = p.first_child[p.parent[i]];
      p.first_child[p.parent[i]] = i;
    }
  } else if (links == 1) {
    // Explicit lists: each must hold exactly its node's children, each child once.
    for (NodeId i = 0; i < n; ++i) p.first_child[i] = static_cast<NodeId>(d.index(n + 1, "a child link")) - 1;
    for (NodeId i = 0; i < n; ++i) p.next_sibling[i] = static_cast<NodeId>(d.index(n + 1, "a sibling link")) - 1;
    std::vector<uint8_t> seen(n, 0);
    size_t listed = 0;
    for (NodeId i = 0; i < n; ++i)
      for (NodeId c = p.first_child[i]; c != kNone; c = p.next_sibling[c]) {
        if (seen[c] || p.parent[c] != i || c == 0) d.fail("child lists that do not match the parents");
        seen[c] = 1;
        ++listed;
      }
    if (listed != n - 1 || p.next_sibling[0] != kNone) d.fail("child lists that do not match the parents");
  } else {
    d.fail("an unknown child-list form");
  }
  const size_t columns = d.count(2);
  for (size_t c = 0; c < columns; ++c) {
    std::string cname(d.str()), unit(d.str());
    if (p.column(cname) >= 0) d.fail("the weight column '" + cname + "' twice");
    int k = p.add_column(cname, unit);
    std::vector<double>& self = p.columns[k].self;
    uint8_t kind = d.byte();
    if (kind == 0) {
      for (double& x : self) x = static_cast<double>(d.signed_varint());
    } else if (kind == 1) {
      std::string_view raw = d.bytes(n * 8);
      std::memcpy(self.data(), raw.data(), raw.size());
    } else {
      d.fail("an unknown column kind");
    }
  }
  uint64_t def = d.varint();
  if (columns ? def >= columns : def != 0) d.fail("the default column out of range");
  p.default_column = static_cast<int>(def);
  p.source_format = std::string(d.str());
  p.inputs.resize(d.count(1));
  for (std::string& s : p.inputs) s = std::string(d.str());
  p.facts.resize(d.count(2));
  for (auto& [k, v] : p.facts) {
    k = std::string(d.str());
    v = std::string(d.str());
  }
  p.counters.resize(d.count(2));
  for (Counter& c : p.counters) {
    c.what = std::string(d.str());
    c.count = d.varint();
  }
  p.device_ops.resize(d.count(5));
  for (DeviceOpStats& o : p.device_ops) {
    o.frame = frame_map[d.index(frames, "a device op's frame")];
    o.count = d.varint();
    o.total_ns = d.signed_varint();
    o.min_ns = d.signed_varint();
    o.max_ns = d.signed_varint();
  }
  if (!d.done()) d.fail("bytes after the end");
  return p;
}

Profile copy_profile(const Profile& profile) {
  std::string bytes = encode_profile(profile, false);
  return decode_profile(bytes, "(copy)");
}

}  // namespace flamefold
