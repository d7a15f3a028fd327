// pprof reader: profile.proto (src/flamefold/readers/proto/profile.proto) decoded by hand
// (readers/proto/wire.h) in two passes over the decoded bytes. The first records where the
// samples, locations and functions are and collects the strings; then functions, mappings and
// locations become frames; the second pass walks the samples into the call tree. Nothing is
// copied per sample but the frame ids of its stack.
#include "flamefold/readers/proto/pprof.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/hash.h"
#include "flamefold/readers/proto/wire.h"
#include "flamefold/prefetch.h"

namespace flamefold {

namespace {

using proto::Cursor;
using proto::Field;
using proto::kLen;
using proto::kVarint;

// Profile's field numbers (profile.proto).
enum ProfileField : uint32_t {
  kSampleType = 1, kSample = 2, kMapping = 3, kLocation = 4, kFunction = 5, kStringTable = 6,
  kDropFrames = 7, kKeepFrames = 8, kTimeNanos = 9, kDurationNanos = 10, kPeriodType = 11,
  kPeriod = 12, kComment = 13, kDefaultSampleType = 14, kDocUrl = 15,
};

struct Range {
  size_t begin, end;
};

// id -> position, for ids that are usually 1..n (a dense table) but may be anything.
class IdIndex {
 public:
  static constexpr uint32_t kMissing = UINT32_MAX;
  // ids[i] is the id of item i; `what` names the items in errors.
  void build(const std::vector<uint64_t>& ids, const std::vector<Range>& where, const Cursor& c, const char* what) {
    uint64_t most = 0;
    for (uint64_t id : ids) most = std::max(most, id);
    dense_ = most <= 4 * uint64_t(ids.size()) + 64;
    if (dense_) table_.assign(static_cast<size_t>(most) + 1, kMissing);
    else map_ = U64Map(ids.size() + 16);
    for (size_t i = 0; i < ids.size(); ++i) {
      const uint64_t id = ids[i];
      const uint32_t here = static_cast<uint32_t>(i);
      if (id == 0 || id == U64Map::kEmpty)
        c.fail(where[i].begin, std::string(what) + " with id " + std::to_string(id) + (id ? " (too large)" : " (ids start at 1)"));
      bool fresh;
      if (dense_) {
        fresh = table_[id] == kMissing;
        table_[id] = here;
      } else {
        fresh = map_.find_or_insert(id, here) == here;
      }
      if (!fresh) c.fail(where[i].begin, std::string(what) + " id " + std::to_string(id) + " is defined twice");
    }
  }
  uint32_t find(uint64_t id) const {
    if (dense_) return id < table_.size() ? table_[id] : kMissing;
    return id == U64Map::kEmpty ? kMissing : map_.find(id);
  }

 private:
  bool dense_ = true;
  std::vector<uint32_t> table_;
  U64Map map_{16};
};

struct Function {
  std::string_view name, file;
  uint32_t line;  // start_line: a frame is a function, not a line in it (pprof's default granularity)
};

struct Mapping {
  uint64_t start = 0, offset = 0;
  std::string_view file;  // the full file name
  CategoryId category = 0;
};

// Group levels from labels, in this order at the top of every stack.
enum LabelKind : int8_t { kNotSeen = -2, kSkipped = -1, kRank = 0, kProcess, kThread, kDevice, kOther };

LabelKind label_kind(std::string_view key) {
  if (key == "rank") return kRank;
  if (key == "process" || key == "pid") return kProcess;
  if (key == "thread" || key == "tid" || key == "thread_id" || key == "thread_name") return kThread;
  if (key == "device") return kDevice;
  return kOther;
}

std::string_view base_name(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string hex(uint64_t v) {
  char b[24];
  int n = std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return std::string(b, static_cast<size_t>(n));
}

class Reader {
 public:
  // `adopt_text`: the strings of `data` outlive the profile (it keeps the mapped file), so frame
  // names need not be copied.
  Reader(const std::string& path, std::string_view data, bool adopt_text, Profile& p)
      : top_(path, data), stored_(adopt_text), p_(p) {}

  void read() {
    scan();
    make_columns();
    make_functions();
    make_mappings();
    make_locations();
    read_samples();
    make_facts();
    // Checked last, so that a damaged table is named first. go tool pprof refuses these too
    // ("empty input file"): nothing says what a value would be.
    if (sample_types_.empty()) top_.fail(0, "no sample types: an empty pprof profile");
  }

 private:
  // ---- pass 1: where everything is ----
  void scan() {
    Cursor c = top_;
    Field f;
    strings_.push_back({});  // in case the table is missing; replaced by its first entry
    bool saw_strings = false;
    while (c.next(f)) {
      switch (f.number) {
        case kSampleType: c.expect(f, kLen, "sample_type"); sample_types_.push_back(f); break;
        case kSample: c.expect(f, kLen, "sample"); samples_.push_back({f.begin, f.end}); break;
        case kMapping: c.expect(f, kLen, "mapping"); mappings_.push_back({f.begin, f.end}); break;
        case kLocation: c.expect(f, kLen, "location"); locations_.push_back({f.begin, f.end}); break;
        case kFunction: c.expect(f, kLen, "function"); functions_.push_back({f.begin, f.end}); break;
        case kStringTable:
          c.expect(f, kLen, "string_table");
          if (!saw_strings) strings_.clear();
          saw_strings = true;
          strings_.push_back(c.bytes(f));
          break;
        case kDropFrames: case kKeepFrames: case kTimeNanos: case kPeriod: case kDocUrl:
          c.expect(f, kVarint, "a number");
          break;
        case kDurationNanos: c.expect(f, kVarint, "duration_nanos"); duration_ = static_cast<int64_t>(f.value); break;
        case kDefaultSampleType:
          c.expect(f, kVarint, "default_sample_type");
          default_type_ = static_cast<int64_t>(f.value);
          default_type_at_ = f.at;
          break;
        case kPeriodType: c.expect(f, kLen, "period_type"); break;
        case kComment:
          c.repeated_varint(f, "comment", [&](uint64_t v) { comments_.push_back({static_cast<int64_t>(v), f.at}); });
          break;
        default: break;  // a field this reader does not know (a newer format): skipped
      }
    }
    if (saw_strings && !strings_[0].empty()) top_.fail(0, "the string table's first entry is not the empty string");
  }

  std::string_view str(int64_t i, size_t at) const {
    if (i < 0 || static_cast<uint64_t>(i) >= strings_.size())
      top_.fail(at, "string index " + std::to_string(i) + " is outside the string table (" + std::to_string(strings_.size()) +
                        " strings)");
    return strings_[static_cast<size_t>(i)];
  }

  // ---- columns: one per sample type ----
  void make_columns() {
    for (const Field& st : sample_types_) {
      Cursor c = top_.sub(st);
      int64_t type = 0, unit = 0;
      Field f;
      while (c.next(f)) {
        if (f.number == 1) c.expect(f, kVarint, "type"), type = static_cast<int64_t>(f.value);
        else if (f.number == 2) c.expect(f, kVarint, "unit"), unit = static_cast<int64_t>(f.value);
      }
      std::string name(str(type, st.at)), u(str(unit, st.at));
      // flamefold's own unit names for the units it has words for; the rest stay as pprof has them.
      if (u == "nanoseconds") u = "ns";
      else if (name == "samples" && u == "count") u = "samples";
      if (name.empty()) name = "value";
      std::string unique = name;
      for (int k = 2; p_.column(unique) >= 0; ++k) unique = name + " (" + std::to_string(k) + ")";
      p_.add_column(unique, u);
      type_names_.push_back(str(type, st.at));
    }
    if (default_type_ != 0) {
      std::string_view want = str(default_type_, default_type_at_);
      for (size_t i = 0; i < type_names_.size(); ++i)
        if (type_names_[i] == want) p_.default_column = static_cast<int>(i);
    } else if (!type_names_.empty()) {
      p_.default_column = static_cast<int>(type_names_.size() - 1);  // pprof's default: the last type
    }
  }

  // ---- functions, mappings ----
  void make_functions() {
    std::vector<uint64_t> ids(functions_.size());
    functions.resize(functions_.size());
    for (size_t i = 0; i < functions_.size(); ++i) {
      Cursor c = top_.sub(functions_[i].begin, functions_[i].end);
      Field f;
      int64_t name = 0, system_name = 0, file = 0, start_line = 0;
      while (c.next(f)) {
        switch (f.number) {
          case 1: c.expect(f, kVarint, "function id"); ids[i] = f.value; break;
          case 2: c.expect(f, kVarint, "function name"); name = static_cast<int64_t>(f.value); break;
          case 3: c.expect(f, kVarint, "function system_name"); system_name = static_cast<int64_t>(f.value); break;
          case 4: c.expect(f, kVarint, "function filename"); file = static_cast<int64_t>(f.value); break;
          case 5: c.expect(f, kVarint, "function start_line"); start_line = static_cast<int64_t>(f.value); break;
          default: break;
        }
      }
      const size_t at = functions_[i].begin;
      functions[i].name = str(name, at);
      if (functions[i].name.empty()) functions[i].name = str(system_name, at);
      functions[i].file = str(file, at);
      functions[i].line = start_line > 0 && start_line < int64_t(UINT32_MAX) ? static_cast<uint32_t>(start_line) : 0;
    }
    function_index_.build(ids, functions_, top_, "function");
  }

  void make_mappings() {
    std::vector<uint64_t> ids(mappings_.size());
    mappings.resize(mappings_.size());
    for (size_t i = 0; i < mappings_.size(); ++i) {
      Cursor c = top_.sub(mappings_[i].begin, mappings_[i].end);
      Field f;
      Mapping& m = mappings[i];
      int64_t file = 0;
      while (c.next(f)) {
        switch (f.number) {
          case 1: c.expect(f, kVarint, "mapping id"); ids[i] = f.value; break;
          case 2: c.expect(f, kVarint, "mapping memory_start"); m.start = f.value; break;
          case 3: case 7: case 8: case 9: case 10: c.expect(f, kVarint, "a mapping number"); break;
          case 4: c.expect(f, kVarint, "mapping file_offset"); m.offset = f.value; break;
          case 5: c.expect(f, kVarint, "mapping filename"); file = static_cast<int64_t>(f.value); break;
          case 6: c.expect(f, kVarint, "mapping build_id"); break;
          default: break;
        }
      }
      m.file = str(file, mappings_[i].begin);
      // CategoryId has 16 bits: past that many modules, the rest go without a category.
      if (p_.symbols.category_count() < 60000) m.category = p_.symbols.category(base_name(m.file));
    }
    mapping_index_.build(ids, mappings_, top_, "mapping");
  }

  // ---- locations: each a run of frames, root first ----
  // The frames of all locations are named first, then made in one Symbols::frames() call,
  // which overlaps the table lookups of many (a million distinct functions took twice as long
  // one frame() at a time).
  void make_locations() {
    std::vector<uint64_t> ids(locations_.size());
    loc_first_.resize(locations_.size() + 1);
    struct Named {
      uint32_t function;  // index, or kNone: the location itself, named in unnamed_
      CategoryId category;
    };
    std::vector<Named> named;
    named.reserve(locations_.size());
    std::vector<uint32_t> lines;  // function indices, innermost first
    for (size_t i = 0; i < locations_.size(); ++i) {
      const size_t at = locations_[i].begin;
      Cursor c = top_.sub(at, locations_[i].end);
      Field f;
      uint64_t mapping_id = 0, address = 0;
      lines.clear();
      while (c.next(f)) {
        switch (f.number) {
          case 1: c.expect(f, kVarint, "location id"); ids[i] = f.value; break;
          case 2: c.expect(f, kVarint, "location mapping_id"); mapping_id = f.value; break;
          case 3: c.expect(f, kVarint, "location address"); address = f.value; break;
          case 4: {
            c.expect(f, kLen, "location line");
            Cursor lc = c.sub(f);
            Field g;
            uint64_t function_id = 0;
            while (lc.next(g)) {
              if (g.number == 1) lc.expect(g, kVarint, "line function_id"), function_id = g.value;
              else if (g.number == 2 || g.number == 3) lc.expect(g, kVarint, "line number");
            }
            uint32_t fi = function_index_.find(function_id);
            if (fi == IdIndex::kMissing)
              top_.fail(f.at, "a line refers to function " + std::to_string(function_id) + ", which the profile does not define");
            lines.push_back(fi);
            break;
          }
          case 5: c.expect(f, kVarint, "location is_folded"); break;
          default: break;
        }
      }
      const Mapping* m = nullptr;
      if (mapping_id != 0) {
        uint32_t mi = mapping_index_.find(mapping_id);
        if (mi == IdIndex::kMissing)
          top_.fail(at, "location refers to mapping " + std::to_string(mapping_id) + ", which the profile does not define");
        m = &mappings[mi];
      }
      const CategoryId cat = m ? m->category : 0;
      loc_first_[i] = static_cast<uint32_t>(named.size());
      if (lines.empty()) {  // nothing names it: module+offset, or the bare address
        unnamed_.push_back(m && !m->file.empty() ? std::string(base_name(m->file)) + "+" + hex(address - m->start + m->offset)
                                                 : hex(address));
        named.push_back({kNone, cat});
      }
      // line[0] is the innermost: the caller (the last line) goes first.
      for (size_t k = lines.size(); k-- > 0;) named.push_back({lines[k], cat});
    }
    loc_first_[locations_.size()] = static_cast<uint32_t>(named.size());
    location_index_.build(ids, locations_, top_, "location");

    loc_frames_.resize(named.size());
    size_t next_unnamed = 0;
    std::vector<uint32_t> unnamed_of(named.size());
    for (size_t i = 0; i < named.size(); ++i)
      if (named[i].function == kNone) unnamed_of[i] = static_cast<uint32_t>(next_unnamed++);
    auto text_of = [&](size_t i) {
      const Named& n = named[i];
      const std::string_view cat = p_.symbols.category_name(n.category);
      if (n.function == kNone) return Symbols::FrameText{unnamed_[unnamed_of[i]], {}, 0, cat, 0, false};
      const Function& fn = functions[n.function];
      return Symbols::FrameText{fn.name, fn.file, fn.line, cat, 0, stored_};
    };
    auto prefetch = [&](size_t i) {
      if (named[i].function != kNone) flamefold::prefetch(&functions[named[i].function]);
    };
    p_.symbols.frames(named.size(), text_of, loc_frames_.data(), prefetch);
  }

  // ---- pass 2: samples into the tree ----
  struct Group {
    LabelKind kind;
    std::string_view key;
    uint32_t seq;
    FrameId frame;
  };

  FrameId group_frame(int64_t key, int64_t str_index, int64_t num, bool numeric, size_t at, LabelKind& kind) {
    std::string_view k = str(key, at);
    if (static_cast<size_t>(key) >= key_kind_.size()) key_kind_.resize(strings_.size(), kNotSeen);
    int8_t& known = key_kind_[static_cast<size_t>(key)];
    if (known == kNotSeen) known = label_kind(k);
    kind = static_cast<LabelKind>(known);
    if (numeric) {
      if (kind == kOther) {
        skipped_numeric_.insert(std::string(k));
        kind = kSkipped;
        return kNone;
      }
      auto [it, fresh] = numeric_frames_.try_emplace({key, num}, kNone);
      if (fresh) it->second = p_.symbols.frame(std::string(k) + " " + std::to_string(num), {}, 0, group_category(kind));
      return it->second;
    }
    std::string_view v = str(str_index, at);  // checked before it is part of a key
    const uint64_t cache_key = uint64_t(key) << 32 | uint64_t(str_index);
    uint32_t cached = string_frames_.find(cache_key);
    if (cached != U64Map::kMissing) return cached;
    std::string name = kind == kOther ? std::string(k) + "=" + std::string(v)
                       : (k == "pid" || k == "tid") ? std::string(k) + " " + std::string(v)
                                                    : std::string(v);
    FrameId f = p_.symbols.frame(name, {}, 0, group_category(kind));
    string_frames_.find_or_insert(cache_key, f);
    return f;
  }

  CategoryId group_category(LabelKind kind) {
    static constexpr std::string_view kNames[] = {category::kRank, category::kProcess, category::kThread, "device", category::kLabel};
    return p_.symbols.category(kNames[kind]);
  }

  void read_samples() {
    const size_t columns = p_.columns.size();
    std::vector<uint64_t> locs;
    std::vector<int64_t> values;
    std::vector<Group> groups;
    std::vector<FrameId> path, prev_path;
    std::vector<NodeId> nodes;
    for (const Range& s : samples_) {
      Cursor c = top_.sub(s.begin, s.end);
      Field f;
      locs.clear();
      values.clear();
      groups.clear();
      while (c.next(f)) {
        switch (f.number) {
          case 1: c.repeated_varint(f, "location_id", [&](uint64_t v) { locs.push_back(v); }); break;
          case 2: c.repeated_varint(f, "value", [&](uint64_t v) { values.push_back(static_cast<int64_t>(v)); }); break;
          case 3: {
            c.expect(f, kLen, "label");
            Cursor lc = c.sub(f);
            Field g;
            int64_t key = 0, str_index = 0, num = 0;
            bool has_num = false;
            while (lc.next(g)) {
              switch (g.number) {
                case 1: lc.expect(g, kVarint, "label key"); key = static_cast<int64_t>(g.value); break;
                case 2: lc.expect(g, kVarint, "label str"); str_index = static_cast<int64_t>(g.value); break;
                case 3: lc.expect(g, kVarint, "label num"); num = static_cast<int64_t>(g.value); has_num = true; break;
                case 4: lc.expect(g, kVarint, "label num_unit"); break;
                default: break;
              }
            }
            if (key == 0) break;  // no key: nothing to show
            LabelKind kind;
            FrameId fr = group_frame(key, str_index, num, str_index == 0 && has_num, f.at, kind);
            if (fr != kNone) groups.push_back({kind, str(key, f.at), static_cast<uint32_t>(groups.size()), fr});
            break;
          }
          default: break;
        }
      }
      if (values.size() != columns)
        top_.fail(s.begin, "a sample has " + std::to_string(values.size()) + " values but the profile has " +
                               std::to_string(columns) + " sample types");
      path.clear();
      if (groups.size() > 1)
        std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
          if (a.kind != b.kind) return a.kind < b.kind;
          if (a.kind == kOther && a.key != b.key) return a.key < b.key;
          return a.seq < b.seq;
        });
      for (const Group& g : groups) path.push_back(g.frame);
      for (size_t i = locs.size(); i-- > 0;) {
        uint32_t li = location_index_.find(locs[i]);
        if (li == IdIndex::kMissing)
          top_.fail(s.begin, "a sample refers to location " + std::to_string(locs[i]) + ", which the profile does not define");
        path.insert(path.end(), loc_frames_.begin() + loc_first_[li], loc_frames_.begin() + loc_first_[li + 1]);
      }
      // Samples written in tree order (flamefold's, and most of many others') share most of
      // their stack with the one before: only the rest is looked up.
      size_t common = 0;
      const size_t limit = std::min(path.size(), prev_path.size());
      while (common < limit && path[common] == prev_path[common]) ++common;
      nodes.resize(path.size());
      NodeId node = common ? nodes[common - 1] : 0;
      for (size_t k = common; k < path.size(); ++k) nodes[k] = node = p_.child(node, path[k]);
      path.swap(prev_path);
      for (size_t k = 0; k < columns; ++k)
        if (values[k]) p_.columns[k].self[node] += static_cast<double>(values[k]);
    }
  }

  void make_facts() {
    for (const auto& [index, at] : comments_) {
      std::string_view text = str(index, at);
      size_t colon = text.find(": ");
      if (colon != std::string_view::npos && colon > 0) p_.facts.emplace_back(std::string(text.substr(0, colon)), std::string(text.substr(colon + 2)));
      else p_.facts.emplace_back("comment", std::string(text));
    }
    if (duration_ > 0) p_.facts.emplace_back("duration ns", std::to_string(duration_));
    if (!skipped_numeric_.empty()) {
      std::string keys;
      for (const std::string& k : skipped_numeric_) keys += (keys.empty() ? "" : ", ") + k;
      p_.facts.emplace_back("numeric labels (not levels)", keys);
    }
  }

  Cursor top_;  // the whole file; its errors name the file
  bool stored_;
  Profile& p_;

  std::vector<std::string_view> strings_;
  std::vector<Field> sample_types_;
  std::vector<Range> samples_, mappings_, locations_, functions_;
  std::vector<std::pair<int64_t, size_t>> comments_;
  int64_t default_type_ = 0, duration_ = 0;
  size_t default_type_at_ = 0;
  std::vector<std::string_view> type_names_;

  std::vector<Function> functions;
  std::vector<Mapping> mappings;
  IdIndex function_index_, mapping_index_, location_index_;
  std::vector<uint32_t> loc_first_;
  std::vector<FrameId> loc_frames_;
  std::vector<std::string> unnamed_;  // names made for locations without lines

  std::vector<int8_t> key_kind_;
  U64Map string_frames_{64};
  std::map<std::pair<int64_t, int64_t>, FrameId> numeric_frames_;
  std::set<std::string> skipped_numeric_;
};

}  // namespace

Profile read_pprof(Input& input, const ReadOptions& o) {
  (void)o;  // --weight is resolved later (choose_column); every sample type is kept
  const bool mapped = input.maps_whole();
  std::string_view data = input.whole();
  Profile p;
  p.source_format = "pprof";
  p.inputs.push_back(input.path());
  // Strings stay in a mapped file instead of being copied (the profile keeps the mapping).
  if (mapped) p.symbols.strings.adopt(input.keep_whole());
  Reader r(input.path(), data, mapped, p);
  r.read();
  return p;
}

namespace {

// Sniffing must never throw: a small parser that gives up instead. It checks every field and
// sub-message of profile.proto it can see, allowing only the fields and wire types the format
// defines (stricter than the reader, which skips unknown fields: text must not pass for one).
struct Sniffer {
  enum Kind { kProfile, kValueType, kSample, kLabel, kMapping, kLocation, kLine, kFunction, kPacked };

  static bool varint(const uint8_t*& q, const uint8_t* e) {
    for (int i = 0; i < 10 && q < e; ++i)
      if (*q++ < 0x80) return true;
    return false;
  }
  // The sub-message kind of field `f` of a `kind` message (kPacked: packed varints), or -1 when
  // the field is a plain varint; false when the field is not in the message.
  static bool field_kind(Kind kind, uint64_t f, int& sub) {
    sub = -1;
    switch (kind) {
      case kValueType: return f >= 1 && f <= 2;
      case kLabel: return f >= 1 && f <= 4;
      case kMapping: return f >= 1 && f <= 10;
      case kLine: return f >= 1 && f <= 3;
      case kFunction: return f >= 1 && f <= 5;
      case kSample:
        sub = f == 3 ? kLabel : kPacked;
        return f >= 1 && f <= 3;
      case kLocation:
        if (f == 4) sub = kLine;
        return f >= 1 && f <= 5;
      default: return false;
    }
  }
  static bool message(Kind kind, const uint8_t* q, const uint8_t* e) {
    while (q < e) {
      const uint8_t* t = q;
      uint64_t tag = 0;
      for (int shift = 0; shift < 35 && t < e; shift += 7) {
        tag |= uint64_t(*t & 0x7f) << shift;
        if (*t++ < 0x80) break;
        if (t == e) return false;
      }
      q = t;
      int sub;
      if (!field_kind(kind, tag >> 3, sub)) return false;
      const uint64_t wire = tag & 7;
      if (wire == 0) {
        if (!varint(q, e)) return false;
        continue;
      }
      if (wire != 2 || sub < 0) return false;
      uint64_t n = 0;
      for (int shift = 0; shift < 64 && q < e; shift += 7) {
        n |= uint64_t(*q & 0x7f) << shift;
        if (*q++ < 0x80) break;
      }
      if (n > uint64_t(e - q)) return false;
      const uint8_t* end = q + n;
      if (sub == kPacked) {
        while (q < end)
          if (!varint(q, end)) return false;
      } else if (!message(static_cast<Kind>(sub), q, end)) {
        return false;
      }
      q = end;
    }
    return true;
  }
};

}  // namespace

bool looks_like_pprof(std::string_view head, size_t window) {
  const auto* p = reinterpret_cast<const uint8_t*>(head.data());
  const uint8_t* end = p + head.size();
  const bool whole = head.size() < window;
  int messages = 0;  // sub-messages checked whole
  while (p < end) {
    const uint8_t* q = p;
    uint64_t tag = 0, n = 0;
    int shift = 0;
    for (; shift < 35 && q < end; shift += 7) {
      tag |= uint64_t(*q & 0x7f) << shift;
      if (*q++ < 0x80) break;
    }
    if (q == end) return !whole && messages > 0;  // cut by the window
    const uint64_t field = tag >> 3, wire = tag & 7;
    const bool len_field = field <= 6 || field == 11 || field == 13;
    if (field == 0 || field > 15) return false;
    if (len_field != (wire == 2) && !(field == 13 && wire == 0)) return false;
    if (wire == 0) {
      if (!Sniffer::varint(q, end)) return !whole && messages > 0;
      p = q;
      continue;
    }
    for (shift = 0; shift < 64 && q < end; shift += 7) {
      n |= uint64_t(*q & 0x7f) << shift;
      if (*q++ < 0x80) break;
    }
    if (n > uint64_t(end - q)) return !whole && messages > 0;  // cut by the window, or not pprof
    static constexpr int kKinds[16] = {-1, Sniffer::kValueType, Sniffer::kSample, Sniffer::kMapping, Sniffer::kLocation,
                                       Sniffer::kFunction, -1, -1, -1, -1, -1, Sniffer::kValueType, -1, Sniffer::kPacked, -1, -1};
    const int kind = kKinds[field];
    if (kind == Sniffer::kPacked) {
      const uint8_t* c = q;
      while (c < q + n)
        if (!Sniffer::varint(c, q + n)) return false;
    } else if (kind >= 0) {
      if (!Sniffer::message(static_cast<Sniffer::Kind>(kind), q, q + n)) return false;
      ++messages;
    }
    p = q + n;
  }
  return messages > 0;
}

}  // namespace flamefold
