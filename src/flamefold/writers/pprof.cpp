// pprof writer: one pass over the call tree in depth-first order keeps the current path's
// location ids (and their encoded size) on a stack, so each sample's stack is written straight
// from it, leaf first; locations, functions, mappings and strings are numbered as the walk
// first meets them, which makes the bytes a function of the profile alone.
#include "flamefold/writers/pprof.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "flamefold/compress.h"
#include "flamefold/hash.h"
#include "flamefold/readers/proto/wire.h"

namespace flamefold {

namespace {

using proto::put_varint;
using proto::varint_size;

// A varint field whose number is below 16 (a one-byte tag), and its size.
inline uint8_t* put_field(uint8_t* p, uint32_t field, uint64_t v) {
  *p++ = static_cast<uint8_t>(field << 3);
  return put_varint(p, v);
}
inline size_t field_size(uint64_t v) { return 1 + varint_size(v); }

bool ends_with(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
  return true;
}

// A byte buffer written through a pointer: std::string's resize would zero what is about to
// be overwritten, and push_back per byte checks capacity per byte. Grown with realloc, which
// moves a big (mmapped) block by remapping its pages rather than copying them.
class Bytes {
 public:
  Bytes() = default;
  Bytes(Bytes&& o) noexcept : data_(o.data_), size_(o.size_), cap_(o.cap_) { o.data_ = nullptr; }
  Bytes& operator=(Bytes&&) = delete;
  ~Bytes() { std::free(data_); }

  uint8_t* room(size_t n) {
    if (size_ + n > cap_) grow(size_ + n);
    return data_ + size_;
  }
  void done(uint8_t* end) { size_ = static_cast<size_t>(end - data_); }
  void varint(uint64_t v) { done(put_varint(room(10), v)); }
  void tag(uint32_t field, proto::WireType w) { varint(uint64_t(field) << 3 | w); }
  void append(std::string_view s) {
    if (s.empty()) return;  // (a default string_view's data is null: no memcpy from it)
    std::memcpy(room(s.size()), s.data(), s.size());
    size_ += s.size();
  }
  void len_field(uint32_t field, std::string_view payload) {
    tag(field, proto::kLen);
    varint(payload.size());
    append(payload);
  }
  std::string_view view() const { return {reinterpret_cast<const char*>(data_), size_}; }
  size_t size() const { return size_; }

 private:
  void grow(size_t need) {
    size_t cap = std::max(need, cap_ * 2 + 4096);
    auto* d = static_cast<uint8_t*>(std::realloc(data_, cap));
    if (!d) throw std::bad_alloc();
    data_ = d;
    cap_ = cap;
  }
  uint8_t* data_ = nullptr;
  size_t size_ = 0, cap_ = 0;
};

std::string_view pprof_unit(const WeightColumn& c) {
  if (c.unit == "ns") return "nanoseconds";
  if (c.unit == "samples" && c.name == "samples") return "count";  // pprof's convention for sample counts
  return c.unit;
}

class Writer {
 public:
  Writer(const Profile& p, int default_column) : p_(p), default_column_(default_column) {
    str_of_id_.assign(p.symbols.strings.size(), 0);
    group_category_.resize(p.symbols.category_count());
    for (size_t c = 0; c < group_category_.size(); ++c)
      group_category_[c] = category::is_group(p.symbols.category_name(static_cast<CategoryId>(c)));
    loc_of_frame_.assign(p.symbols.frame_count(), 0);
    mapping_of_category_.assign(p.symbols.category_count(), 0);
  }

  Bytes encode(PprofStats& stats) {
    const size_t columns = p_.columns.size();
    Bytes out;
    // Sample types first (their strings are 1, 2, ...), as pprof's own writer orders them.
    for (const WeightColumn& c : p_.columns) {
      std::string vt;
      proto::append_varint_field(vt, 1, str(c.name));
      proto::append_varint_field(vt, 2, str(pprof_unit(c)));
      out.len_field(1, vt);
    }
    samples(out, columns, stats);
    tail(out);
    stats.locations = loc_frames_.size();
    stats.functions = functions_.size();
    stats.bytes = out.size();
    return out;
  }

 private:
  // ---- strings ----
  uint64_t str(StrId id) {
    if (id == 0) return 0;
    uint32_t& s = str_of_id_[id];
    if (!s) s = new_string(p_.symbols.strings[id]);
    return s;
  }
  uint64_t str(std::string_view text) {
    if (text.empty()) return 0;
    StrId id = p_.symbols.strings.find(text);
    if (id != UINT32_MAX) return str(id);
    auto [it, fresh] = extra_strings_.try_emplace(std::string(text), 0);
    if (fresh) it->second = new_string(it->first);
    return it->second;
  }
  uint32_t new_string(std::string_view text) {
    table_.push_back(text);
    return static_cast<uint32_t>(table_.size() - 1);
  }

  // ---- locations, functions, mappings (ids from 1, in first-use order) ----
  uint32_t location(FrameId f) {
    uint32_t& l = loc_of_frame_[f];
    if (!l) {
      loc_frames_.push_back(f);
      l = static_cast<uint32_t>(loc_frames_.size());
    }
    return l;
  }

  // A group frame's label: key = its category ("label" frames: the text before '='), str = its name.
  const std::string& label(FrameId f) {
    auto [it, fresh] = labels_.try_emplace(f);
    if (fresh) {
      std::string_view cat = p_.symbols.category_name(p_.symbols[f].category), name = p_.symbols.name(f), key = cat;
      if (cat == category::kLabel) {
        size_t eq = name.find('=');
        if (eq != std::string_view::npos) key = name.substr(0, eq), name = name.substr(eq + 1);
      }
      std::string l;
      proto::append_varint_field(l, 1, str(key));
      proto::append_varint_field(l, 2, str(name));
      proto::append_len_field(it->second, 3, l);
    }
    return it->second;
  }

  // Nodes in depth-first order: node ids when they already are (the canonical order, and any
  // reader that builds the tree that way), else a walk of children in id order.
  std::vector<NodeId> dfs_order() const {
    const size_t n = p_.node_count();
    std::vector<NodeId> order;
    order.reserve(n);
    std::vector<NodeId> stack{0};
    bool preorder = true;
    for (NodeId v = 1; v < n && preorder; ++v) {
      while (!stack.empty() && stack.back() != p_.parent[v]) stack.pop_back();
      preorder = !stack.empty();
      stack.push_back(v);
    }
    if (preorder) {
      for (NodeId v = 0; v < n; ++v) order.push_back(v);
      return order;
    }
    std::vector<uint32_t> start(n + 1, 0);
    for (NodeId v = 1; v < n; ++v) ++start[p_.parent[v] + 1];
    for (size_t i = 1; i <= n; ++i) start[i] += start[i - 1];
    std::vector<NodeId> kids(n ? n - 1 : 0);
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (NodeId v = 1; v < n; ++v) kids[fill[p_.parent[v]]++] = v;
    stack.assign(1, 0);
    while (!stack.empty()) {
      NodeId v = stack.back();
      stack.pop_back();
      order.push_back(v);
      for (uint32_t k = start[v + 1]; k-- > start[v];) stack.push_back(kids[k]);
    }
    return order;
  }

  void samples(Bytes& out, size_t columns, PprofStats& stats) {
    struct Level {
      NodeId node;
      bool group;
      uint32_t loc;      // location id (0 for group levels)
      uint32_t stack_bytes;  // encoded size of the location ids of the path down to here
      uint32_t label_bytes;  // encoded size of the labels of the path down to here
    };
    std::vector<Level> path{{0, true, 0, 0, 0}};
    std::vector<uint64_t> values(columns);
    const std::vector<NodeId> order = dfs_order();
    for (NodeId v : order) {
      if (v != 0) {
        while (path.back().node != p_.parent[v]) path.pop_back();
        const Level& up = path.back();
        const FrameId f = p_.frame[v];
        Level l{v, up.group && group_category_[p_.symbols[f].category], 0, up.stack_bytes, up.label_bytes};
        if (l.group) {
          l.label_bytes += static_cast<uint32_t>(label(f).size());
        } else {
          l.loc = location(f);
          l.stack_bytes += static_cast<uint32_t>(varint_size(l.loc));
        }
        path.push_back(l);
      }
      bool any = false;
      size_t value_bytes = 0;
      for (size_t c = 0; c < columns; ++c) {
        const double w = p_.columns[c].self[v];
        int64_t iv = 0;
        if (w != 0 && std::isfinite(w)) {
          iv = std::llround(w);
          if (static_cast<double>(iv) != w) ++stats.rounded;
        }
        values[c] = static_cast<uint64_t>(iv);
        any |= iv != 0;
        value_bytes += varint_size(values[c]);
      }
      if (!any) continue;
      ++stats.samples;
      const Level& here = path.back();
      const size_t loc_bytes = here.stack_bytes;
      const size_t content = (loc_bytes ? 1 + varint_size(loc_bytes) + loc_bytes : 0) + 1 + varint_size(value_bytes) +
                             value_bytes + here.label_bytes;
      uint8_t* p = out.room(2 + 10 + content);
      *p++ = 0x12;  // Profile.sample
      p = put_varint(p, content);
      if (loc_bytes) {
        *p++ = 0x0a;  // Sample.location_id, packed, leaf first
        p = put_varint(p, loc_bytes);
        for (size_t d = path.size(); d-- > 0 && !path[d].group;) p = put_varint(p, path[d].loc);
      }
      *p++ = 0x12;  // Sample.value, packed
      p = put_varint(p, value_bytes);
      for (size_t c = 0; c < columns; ++c) p = put_varint(p, values[c]);
      out.done(p);
      if (here.label_bytes)
        for (const Level& l : path)
          if (l.group && l.node != 0) out.append(label(p_.frame[l.node]));
    }
  }

  void tail(Bytes& out) {
    // Locations (their functions and mappings numbered as they are met).
    std::string msg;
    U64Map function_of{loc_frames_.size() + 16};
    for (size_t i = 0; i < loc_frames_.size(); ++i) {
      const FrameId f = loc_frames_[i];
      const Frame& fr = p_.symbols[f];
      // A function per (name, file, line); the rare functions of one name and file on several
      // lines are chained from the first.
      const uint64_t key = uint64_t(fr.name) << 32 | fr.file;
      uint32_t fn = function_of.find_or_insert(key, static_cast<uint32_t>(functions_.size() + 1));
      if (fn == functions_.size() + 1) {
        functions_.push_back(f);
        same_name_.push_back(0);
      } else {
        while (p_.symbols[functions_[fn - 1]].line != fr.line && same_name_[fn - 1]) fn = same_name_[fn - 1];
        if (p_.symbols[functions_[fn - 1]].line != fr.line) {
          functions_.push_back(f);
          same_name_.push_back(0);
          same_name_[fn - 1] = static_cast<uint32_t>(functions_.size());
          fn = static_cast<uint32_t>(functions_.size());
        }
      }
      uint32_t mapping = 0;
      if (fr.category != 0) {
        uint32_t& m = mapping_of_category_[fr.category];
        if (!m) {
          mapping_categories_.push_back(fr.category);
          m = static_cast<uint32_t>(mapping_categories_.size());
        }
        mapping = m;
      }
      // Written in place (a million locations and functions were a fifth of the writer's time
      // through a string per message).
      const size_t line_len = field_size(fn) + (fr.line ? field_size(fr.line) : 0);
      const size_t len = field_size(i + 1) + (mapping ? field_size(mapping) : 0) + 1 + varint_size(line_len) + line_len;
      uint8_t* p = out.room(11 + len);
      *p++ = 0x22;  // Profile.location
      p = put_varint(p, len);
      p = put_field(p, 1, i + 1);
      if (mapping) p = put_field(p, 2, mapping);
      *p++ = 0x22;  // Location.line
      p = put_varint(p, line_len);
      p = put_field(p, 1, fn);
      if (fr.line) p = put_field(p, 2, fr.line);
      out.done(p);
    }
    for (size_t i = 0; i < functions_.size(); ++i) {
      const Frame& fr = p_.symbols[functions_[i]];
      const uint64_t name = str(fr.name), file = str(fr.file);
      // system_name = name: flamefold's names are as shown; start_line = the frame's line, read back from here.
      const size_t len = field_size(i + 1) + (name ? 2 * field_size(name) : 0) + (file ? field_size(file) : 0) +
                         (fr.line ? field_size(fr.line) : 0);
      uint8_t* p = out.room(11 + len);
      *p++ = 0x2a;  // Profile.function
      p = put_varint(p, len);
      p = put_field(p, 1, i + 1);
      if (name) p = put_field(put_field(p, 2, name), 3, name);
      if (file) p = put_field(p, 4, file);
      if (fr.line) p = put_field(p, 5, fr.line);
      out.done(p);
    }
    // A mapping per category: it carries the category through pprof and shows as the module.
    // No addresses: has_functions etc. say that symbols are already there.
    for (size_t i = 0; i < mapping_categories_.size(); ++i) {
      msg.clear();
      proto::append_varint_field(msg, 1, i + 1);
      proto::append_varint_field(msg, 5, str(p_.symbols.category_name(mapping_categories_[i])));
      proto::append_varint_field(msg, 7, 1);
      proto::append_varint_field(msg, 8, 1);
      proto::append_varint_field(msg, 9, 1);
      out.len_field(3, msg);
    }
    for (const auto& [key, value] : p_.facts) comments_.push_back(str(key + ": " + value));
    uint64_t default_type = 0;
    if (default_column_ >= 0 && static_cast<size_t>(default_column_) < p_.columns.size())
      default_type = str(p_.columns[default_column_].name);
    for (std::string_view s : table_) out.len_field(6, s);
    if (!comments_.empty()) {
      size_t bytes = 0;
      for (uint64_t c : comments_) bytes += varint_size(c);
      out.tag(13, proto::kLen);
      out.varint(bytes);
      for (uint64_t c : comments_) out.varint(c);
    }
    if (default_type) {
      out.tag(14, proto::kVarint);
      out.varint(default_type);
    }
  }

  const Profile& p_;
  int default_column_;
  std::vector<uint32_t> str_of_id_;
  std::unordered_map<std::string, uint32_t> extra_strings_;
  std::vector<std::string_view> table_{std::string_view()};
  std::vector<char> group_category_;
  std::vector<uint32_t> loc_of_frame_;
  std::vector<FrameId> loc_frames_, functions_;
  std::vector<uint32_t> same_name_;  // per function: the next with its name and file, 0 = none
  std::vector<uint32_t> mapping_of_category_;
  std::vector<CategoryId> mapping_categories_;
  std::unordered_map<FrameId, std::string> labels_;
  std::vector<uint64_t> comments_;
};

}  // namespace

bool is_gzipped_pprof_path(std::string_view path) { return ends_with(path, ".pb.gz") || ends_with(path, ".pprof"); }
bool is_pprof_path(std::string_view path) { return ends_with(path, ".pb") || is_gzipped_pprof_path(path); }

std::string encode_pprof(const Profile& p, int default_column, PprofStats* stats) {
  PprofStats local;
  return std::string(Writer(p, default_column).encode(stats ? *stats : local).view());
}

PprofStats write_pprof(const Profile& p, int default_column, OutputFile& out, bool gzip) {
  PprofStats stats;
  const Bytes encoded = Writer(p, default_column).encode(stats);
  const std::string_view bytes = encoded.view();
  if (gzip) {
    // Level 1 past a few MB: a million-node profile's ~30 MB compress 3-4x faster for a file
    // about 10 % larger (the HTML payload's trade, writers/html.cpp).
    out.write(gzip_compress(bytes, bytes.size() >= (size_t(4) << 20) ? 1 : 6, "the pprof profile"));
  } else {
    out.write(bytes);
  }
  return stats;
}

}  // namespace flamefold
