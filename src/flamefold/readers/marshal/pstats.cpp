#include "flamefold/readers/marshal/pstats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "flamefold/errors.h"
#include "flamefold/hash.h"
#include "flamefold/pipeline.h"
#include "flamefold/readable_names.h"

namespace flamefold {

namespace {

// A decoded marshal value. Containers keep their children contiguous in `items`.
enum class Kind : uint8_t { None, Bool, Int, Float, Str, Tuple, List, Dict, Other };
struct Value {
  Kind kind = Kind::None;
  uint32_t pos = 0;    // byte offset where the value starts (for messages)
  uint32_t a = 0, b = 0;  // Str: offset/length in the input; containers: first item/count
  double num = 0;
};

constexpr uint32_t kPending = UINT32_MAX;  // a FLAG_REF slot whose object is still being read

class MarshalReader {
 public:
  MarshalReader(std::string_view data, const std::string& name) : d_(data), name_(name) {}

  uint32_t read_value(int depth = 0) {
    if (depth > 64) fail(pos_, "objects nested too deeply");
    uint32_t start = static_cast<uint32_t>(pos_);
    uint8_t code = byte();
    bool flag = code & 0x80;
    code &= 0x7f;
    uint32_t ref_slot = kNone;
    auto reserve = [&]() {
      if (flag) {
        ref_slot = static_cast<uint32_t>(refs_.size());
        refs_.push_back(kPending);
      }
    };
    auto done = [&](uint32_t v) {
      if (ref_slot != kNone) refs_[ref_slot] = v;
      return v;
    };
    switch (code) {
      case '0': fail(start, "unexpected end-of-dict marker");
      case 'N': reserve(); return done(make(Kind::None, start));
      case 'F': case 'T': {
        reserve();
        uint32_t v = make(Kind::Bool, start);
        values_[v].num = code == 'T';
        return done(v);
      }
      case 'S': case '.': reserve(); return done(make(Kind::Other, start));
      case 'i': {
        reserve();
        uint32_t v = make(Kind::Int, start);
        values_[v].num = static_cast<int32_t>(u32());
        return done(v);
      }
      case 'I': {
        reserve();
        uint64_t lo = u32(), hi = u32();
        uint32_t v = make(Kind::Int, start);
        values_[v].num = static_cast<double>(static_cast<int64_t>(hi << 32 | lo));
        return done(v);
      }
      case 'l': {
        reserve();
        int32_t n = static_cast<int32_t>(u32());
        uint32_t count = n < 0 ? static_cast<uint32_t>(-(int64_t)n) : static_cast<uint32_t>(n);
        need(size_t(count) * 2);
        double value = 0, scale = 1;
        for (uint32_t i = 0; i < count; ++i) {
          uint16_t digit = static_cast<uint8_t>(d_[pos_]) | static_cast<uint8_t>(d_[pos_ + 1]) << 8;
          pos_ += 2;
          if (digit > 0x7fff) fail(start, "bad digit in a long integer");
          value += digit * scale;
          scale *= 32768.0;
        }
        uint32_t v = make(Kind::Int, start);
        values_[v].num = n < 0 ? -value : value;
        return done(v);
      }
      case 'g': {
        reserve();
        need(8);
        double x;
        std::memcpy(&x, d_.data() + pos_, 8);
        pos_ += 8;
        uint32_t v = make(Kind::Float, start);
        values_[v].num = x;
        return done(v);
      }
      case 'f': {
        reserve();
        size_t n = byte();
        need(n);
        std::string text(d_.substr(pos_, n));
        pos_ += n;
        char* end = nullptr;
        double x = std::strtod(text.c_str(), &end);
        if (end != text.c_str() + text.size()) fail(start, "bad float text '" + text + "'");
        uint32_t v = make(Kind::Float, start);
        values_[v].num = x;
        return done(v);
      }
      case 'y': reserve(); need(16); pos_ += 16; return done(make(Kind::Other, start));
      case 'x': {
        reserve();
        for (int i = 0; i < 2; ++i) {
          size_t n = byte();
          need(n);
          pos_ += n;
        }
        return done(make(Kind::Other, start));
      }
      case 's': case 'u': case 'a': case 'A': case 't': {
        reserve();
        uint32_t v = string(start, u32());
        if (code == 't') interned_.push_back(v);  // Python 2 interned string
        return done(v);
      }
      case 'z': case 'Z': {
        reserve();
        return done(string(start, byte()));
      }
      case 'R': {  // Python 2: a reference to the n-th interned string
        uint32_t i = u32();
        if (i >= interned_.size()) fail(start, fmt::format("string reference {} out of range", i));
        return interned_[i];
      }
      case 'r': {
        uint32_t i = u32();
        if (i >= refs_.size()) fail(start, fmt::format("back-reference {} out of range", i));
        if (refs_[i] == kPending) fail(start, fmt::format("cyclic back-reference {} to an object still being read", i));
        return refs_[i];
      }
      case '(': case ')': case '[': case '<': case '>': {
        reserve();
        uint32_t n = code == ')' ? byte() : u32();
        if (n > d_.size() - pos_) fail(start, fmt::format("container of {} items is longer than the file", n));
        std::vector<uint32_t> items(n);
        for (uint32_t i = 0; i < n; ++i) items[i] = read_value(depth + 1);
        uint32_t v = make(code == '(' || code == ')' ? Kind::Tuple : Kind::List, start);
        values_[v].a = static_cast<uint32_t>(items_.size());
        values_[v].b = n;
        items_.insert(items_.end(), items.begin(), items.end());
        return done(v);
      }
      case '{': {
        reserve();
        std::vector<uint32_t> items;
        while (true) {
          if (pos_ >= d_.size()) fail(pos_, "truncated: the file ends inside a dict");
          if (d_[pos_] == '0') {
            ++pos_;
            break;
          }
          items.push_back(read_value(depth + 1));
          items.push_back(read_value(depth + 1));
        }
        uint32_t v = make(Kind::Dict, start);
        values_[v].a = static_cast<uint32_t>(items_.size());
        values_[v].b = static_cast<uint32_t>(items.size() / 2);
        items_.insert(items_.end(), items.begin(), items.end());
        return done(v);
      }
      default:
        fail(start, fmt::format("unknown marshal type code 0x{:02x}{}", code,
                                code == 'c' ? " (a code object)" : ""));
    }
  }

  size_t pos() const { return pos_; }
  const Value& operator[](uint32_t v) const { return values_[v]; }
  uint32_t item(uint32_t v, uint32_t i) const { return items_[values_[v].a + i]; }
  std::string_view str(uint32_t v) const { return d_.substr(values_[v].a, values_[v].b); }
  size_t value_count() const { return values_.size(); }
  [[noreturn]] void fail(size_t at, const std::string& problem) const {
    throw InputError(name_, fmt::format("byte {}", at), problem);
  }

 private:
  uint32_t make(Kind k, uint32_t start) {
    values_.push_back(Value{k, start, 0, 0, 0});
    return static_cast<uint32_t>(values_.size() - 1);
  }
  uint32_t string(uint32_t start, uint32_t n) {
    need(n);
    uint32_t v = make(Kind::Str, start);
    values_[v].a = static_cast<uint32_t>(pos_);
    values_[v].b = n;
    pos_ += n;
    return v;
  }
  void need(size_t n) {
    if (n > d_.size() - pos_) fail(pos_, "truncated: the file ends inside a value");
  }
  uint8_t byte() {
    need(1);
    return static_cast<uint8_t>(d_[pos_++]);
  }
  uint32_t u32() {
    need(4);
    uint32_t v;
    std::memcpy(&v, d_.data() + pos_, 4);
    pos_ += 4;
    return v;
  }

  std::string_view d_;
  const std::string& name_;
  size_t pos_ = 0;
  std::vector<Value> values_;
  std::vector<uint32_t> items_;
  std::vector<uint32_t> refs_;
  std::vector<uint32_t> interned_;
};

bool is_number(Kind k) { return k == Kind::Int || k == Kind::Float || k == Kind::Bool; }

}  // namespace

CallStats parse_pstats(std::string_view bytes, const std::string& name) {
  if (bytes.empty()) throw InputError(name, "", "the file is empty");
  MarshalReader m(bytes, name);
  uint32_t top = m.read_value();
  if (m[top].kind != Kind::Dict)
    m.fail(m[top].pos, "not a pstats file: the marshal value is not a dict");
  if (m.pos() != bytes.size()) m.fail(m.pos(), "trailing bytes after the statistics dict");

  CallStats st;
  st.source = name;
  std::vector<uint32_t> fn_of_value(m.value_count(), kNone);  // shared key tuples resolve once
  std::vector<std::string> key_text;  // file \0 line \0 name, to match equal keys
  U64Map by_hash(1024);

  auto function_of = [&](uint32_t key, bool listed) -> uint32_t {
    if (fn_of_value[key] != kNone) return fn_of_value[key];
    const Value& k = m[key];
    if (k.kind != Kind::Tuple || k.b != 3 || m[m.item(key, 0)].kind != Kind::Str ||
        !is_number(m[m.item(key, 1)].kind) || m[m.item(key, 2)].kind != Kind::Str)
      m.fail(k.pos, "not a pstats file: a function key is not a (file, line, name) tuple");
    std::string_view file = m.str(m.item(key, 0)), fname = m.str(m.item(key, 2));
    // A line outside 0 .. 2^32-1 (or NaN) cannot be a source line: read as unknown (0).
    double line_value = m[m.item(key, 1)].num;
    uint32_t line = line_value >= 0 && line_value < 4294967296.0 ? static_cast<uint32_t>(line_value) : 0;
    std::string text(file);
    text.push_back('\0');
    text += std::to_string(line);
    text.push_back('\0');
    text += fname;
    uint64_t h = hash_bytes(text);
    uint32_t fn;
    while (true) {
      fn = by_hash.find(h);
      if (fn == U64Map::kMissing || key_text[fn] == text) break;
      ++h;  // a 64-bit collision: probe the next hash
    }
    if (fn == U64Map::kMissing) {
      fn = static_cast<uint32_t>(st.functions.size());
      by_hash.set(h, fn);
      key_text.push_back(std::move(text));
      FunctionStat f;
      f.file = std::string(file);
      f.line = line;
      f.name = std::string(fname);
      f.listed = listed;
      st.functions.push_back(std::move(f));
    }
    fn_of_value[key] = fn;
    return fn;
  };

  uint32_t entries = m[top].b;
  std::vector<uint32_t> fn_of_entry(entries);
  for (uint32_t i = 0; i < entries; ++i) fn_of_entry[i] = function_of(m.item(top, 2 * i), true);
  for (uint32_t i = 0; i < entries; ++i) {
    uint32_t value = m.item(top, 2 * i + 1);
    const Value& v = m[value];
    if (v.kind != Kind::Tuple || v.b != 5)
      m.fail(v.pos, "not a pstats file: an entry is not a (pcalls, ncalls, tottime, cumtime, callers) tuple");
    for (uint32_t j = 0; j < 4; ++j)
      if (!is_number(m[m.item(value, j)].kind)) m.fail(m[m.item(value, j)].pos, "a statistic is not a number");
    uint32_t callers = m.item(value, 4);
    if (m[callers].kind != Kind::Dict) m.fail(m[callers].pos, "the callers of an entry are not a dict");
    FunctionStat& f = st.functions[fn_of_entry[i]];
    f.pcalls = m[m.item(value, 0)].num;
    f.ncalls = m[m.item(value, 1)].num;
    f.tottime = m[m.item(value, 2)].num;
    f.cumtime = m[m.item(value, 3)].num;
  }
  // Caller edges, callee by callee in dict order.
  for (uint32_t i = 0; i < entries; ++i) {
    uint32_t callee = fn_of_entry[i];
    uint32_t callers = m.item(m.item(top, 2 * i + 1), 4);
    uint32_t last = kNone;
    for (uint32_t j = 0; j < m[callers].b; ++j) {
      uint32_t caller = function_of(m.item(callers, 2 * j), false);
      uint32_t value = m.item(callers, 2 * j + 1);
      const Value& v = m[value];
      CallerEdge e;
      e.caller = caller;
      e.callee = callee;
      if (is_number(v.kind)) {  // the `profile` module: a call count only
        const FunctionStat& f = st.functions[callee];
        e.count_only = true;
        e.ncalls = e.pcalls = v.num;
        double share = f.ncalls > 0 ? v.num / f.ncalls : 0;
        e.tottime = f.tottime * share;
        e.cumtime = f.cumtime * share;
      } else if (v.kind == Kind::Tuple && v.b >= 4 && v.b % 4 == 0) {
        for (uint32_t k = 0; k < v.b; ++k)
          if (!is_number(m[m.item(value, k)].kind)) m.fail(m[m.item(value, k)].pos, "a caller statistic is not a number");
        for (uint32_t k = 0; k < v.b; k += 4) {
          e.ncalls += m[m.item(value, k)].num;
          e.pcalls += m[m.item(value, k + 1)].num;
          e.tottime += m[m.item(value, k + 2)].num;
          e.cumtime += m[m.item(value, k + 3)].num;
        }
      } else {
        m.fail(v.pos, "a caller entry is neither a call count nor an (nc, pc, tt, ct) tuple");
      }
      uint32_t index = static_cast<uint32_t>(st.callers.size());
      st.callers.push_back(e);
      if (last == kNone)
        st.functions[callee].first_caller = index;
      else
        st.callers[last].next_caller = index;
      last = index;
    }
  }
  return st;
}

CallStats read_pstats_stats(Input& input) { return parse_pstats(input.whole(), input.path()); }

Profile profile_from_call_stats(const CallStats& st) {
  Profile p;
  p.source_format = "pstats";
  int cpu = p.add_column("cpu", "ns");
  int calls = p.add_column("calls", "count");
  p.default_column = cpu;
  size_t nf = st.functions.size();

  // Frames: ('~', 0, name) and files of "" come back as frames without a source location.
  std::vector<FrameId> frame_of(nf);
  for (size_t i = 0; i < nf; ++i) {
    const FunctionStat& f = st.functions[i];
    bool located = !(f.file == "~" && f.line == 0) && !f.file.empty();
    frame_of[i] = located ? p.symbols.frame(f.name, f.file, f.line) : p.symbols.frame(f.name);
  }
  // Callees of each function, and the sum of each function's caller-edge cumtime.
  std::vector<uint32_t> callee_first(nf, kNone), callee_next(st.callers.size(), kNone);
  std::vector<double> caller_cum(nf, 0);
  std::vector<bool> has_caller(nf, false);
  for (uint32_t e = static_cast<uint32_t>(st.callers.size()); e-- > 0;) {
    const CallerEdge& edge = st.callers[e];
    if (edge.caller == edge.callee) continue;
    callee_next[e] = callee_first[edge.caller];
    callee_first[edge.caller] = e;
    caller_cum[edge.callee] += edge.cumtime;
    has_caller[edge.callee] = true;
  }

  // A function is a root for the part of its cumtime its callers do not account for: all of it
  // when nobody calls it, the rest when it is also entered from outside the profile (exec,
  // import machinery cycles). Differences under 0.1 % are rounding, not a root.
  std::vector<std::pair<uint32_t, double>> roots;
  for (uint32_t i = 0; i < nf; ++i) {
    const FunctionStat& f = st.functions[i];
    double outside = has_caller[i] ? f.cumtime - caller_cum[i] : f.cumtime;
    if (!has_caller[i] && (f.cumtime > 0 || f.ncalls > 0))
      roots.emplace_back(i, f.cumtime);
    else if (has_caller[i] && outside > 1e-3 * f.cumtime)
      roots.emplace_back(i, outside);
  }
  if (roots.empty() && nf) {  // everything is called by something: start from the biggest
    uint32_t best = 0;
    for (uint32_t i = 1; i < nf; ++i)
      if (st.functions[i].cumtime > st.functions[best].cumtime) best = i;
    roots.emplace_back(best, st.functions[best].cumtime);
  }
  double grand = 0;
  for (auto [r, amount] : roots) grand += amount;
  const double expand_below = grand * 1e-4;
  constexpr uint32_t kMaxDepth = 128;
  constexpr size_t kMaxNodes = 2'000'000;

  struct Item {
    uint32_t fn;
    NodeId parent;
    double amount;  // seconds of fn's cumtime on this path
    double ncalls;
    uint32_t depth;
    bool leave;
  };
  std::vector<Item> work;
  std::vector<uint8_t> on_path(nf, 0);
  for (size_t i = roots.size(); i-- > 0;) {
    const FunctionStat& f = st.functions[roots[i].first];
    double calls = f.cumtime > 0 ? f.ncalls * roots[i].second / f.cumtime : f.ncalls;
    work.push_back({roots[i].first, 0, roots[i].second, calls, 1, false});
  }
  uint64_t not_expanded = 0, recursive = 0;
  while (!work.empty()) {
    Item it = work.back();
    work.pop_back();
    if (it.leave) {
      on_path[it.fn] = 0;
      continue;
    }
    const FunctionStat& f = st.functions[it.fn];
    NodeId n = p.child(it.parent, frame_of[it.fn]);
    p.add(n, calls, it.ncalls);
    double fraction = f.cumtime > 0 ? it.amount / f.cumtime : 0;
    bool expand = it.depth < kMaxDepth && p.node_count() < kMaxNodes && it.amount >= expand_below &&
                  callee_first[it.fn] != kNone;
    if (!expand) {
      if (callee_first[it.fn] != kNone && it.amount > f.tottime * fraction) ++not_expanded;
      p.add(n, cpu, std::round(it.amount * 1e9));
      continue;
    }
    double children = 0;
    on_path[it.fn] = 1;
    work.push_back({it.fn, n, 0, 0, it.depth, true});
    size_t first_child_item = work.size();
    for (uint32_t e = callee_first[it.fn]; e != kNone; e = callee_next[e]) {
      const CallerEdge& edge = st.callers[e];
      if (on_path[edge.callee]) {
        ++recursive;
        continue;
      }
      const FunctionStat& g = st.functions[edge.callee];
      // The edge's cumtime, scaled down when the callers together claim more than the
      // function's cumtime (recursive edges count inner time again).
      double claimed = caller_cum[edge.callee];
      double share = claimed > g.cumtime && claimed > 0 ? edge.cumtime * g.cumtime / claimed : edge.cumtime;
      double amount = share * fraction;
      if (amount <= 0 && edge.ncalls * fraction <= 0) continue;
      children += amount;
      work.push_back({edge.callee, n, amount, edge.ncalls * fraction, it.depth + 1, false});
    }
    // Children are visited in edge order.
    std::reverse(work.begin() + first_child_item, work.end());
    // Self time: the function's own share, never less than what its children leave over.
    double self = std::max(f.tottime * fraction, 0.0);
    if (children + self < it.amount) self = it.amount - children;
    p.add(n, cpu, std::round(self * 1e9));  // whole ns: no rounding dust in the outputs
  }
  if (not_expanded) p.count("call paths below 0.01% of the total or 128 deep kept as leaves", not_expanded);
  if (recursive) p.count("recursive caller edges not expanded (time already in the outer call)", recursive);
  p.facts.emplace_back("functions", std::to_string(nf));
  p.facts.emplace_back("caller edges", std::to_string(st.callers.size()));
  return p;
}

Profile read_pstats(Input& input, const ReadOptions&) {
  CallStats st = read_pstats_stats(input);
  Profile p = profile_from_call_stats(st);
  p.inputs.push_back(input.path());
  return p;
}

CallStats read_call_stats(const std::vector<std::string>& paths, const ReadOptions& o, const NameOptions& names) {
  if (paths.size() == 1 && !names.any()) {
    Input input = Input::open(paths[0]);
    Format f = o.format.empty() ? sniff_format(input.head(), paths[0]) : parse_format(o.format);
    if (f == Format::Pstats) return read_pstats_stats(input);
  }
  Profile p = read_profile(paths, o);
  make_names_readable(p, names);
  int column;
  if (o.weight.empty() && p.column("cpu") >= 0)
    column = p.column("cpu");
  else
    column = choose_column(p, o.weight);
  CallStats st = call_stats(p, column);
  st.source = paths.size() == 1 ? paths[0] : fmt::format("{} inputs", paths.size());
  for (const Counter& c : p.counters)
    std::fprintf(stderr, "flamefold: note: %s: %llu\n", c.what.c_str(), static_cast<unsigned long long>(c.count));
  return st;
}

}  // namespace flamefold
