#include "flamefold/readers/text/gpu_cpu_merge.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "flamefold/errors.h"
#include "flamefold/hash.h"
#include "flamefold/input.h"
#include "flamefold/strings.h"

namespace flamefold {

namespace {

namespace sj = simdjson::ondemand;
constexpr uint32_t kNoMatch = UINT32_MAX;

inline bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A JSON number kept the way Python holds it: an exact int, or a double.
struct Num {
  bool present = false, is_int = false;
  int64_t i = 0;
  double d = 0;
  bool positive() const { return present && (is_int ? i > 0 : d > 0); }
};

// From the number's own text, the way Python's json module decides: an int unless it has a
// fraction or exponent. (Parsing the token also sidesteps simdjson's get_number, which
// rejects some 20-digit floats such as 1718091839000021.750 in its fallback kernel.)
Num read_num(sj::value v) {
  Num n;
  std::string_view raw;
  raw = v.raw_json_token();
  while (!raw.empty() && is_json_space(raw.back())) raw.remove_suffix(1);
  if (raw.empty() || !(raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'))) return n;
  bool is_float = raw.find_first_of(".eE") != std::string_view::npos;
  if (!is_float) {
    auto [p, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), n.i);
    if (ec == std::errc() && p == raw.data() + raw.size()) {
      n.present = n.is_int = true;
      return n;
    }
  }
  auto [p, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), n.d);
  if (ec == std::errc() && p == raw.data() + raw.size()) n.present = true;
  return n;
}

// int(x * 1000) as Python computes it: exact for ints, double product truncated for floats.
// False when the result does not fit in int64 nanoseconds (Python's would be a big int, or an
// OverflowError for inf): the event is left out and counted.
bool ns_of_double(double us, int64_t& ns) {
  const double v = us * 1000.0;
  if (!(v > -9.2e18 && v < 9.2e18)) return false;  // NaN and inf too
  ns = static_cast<int64_t>(v);
  return true;
}
bool us_to_ns(const Num& n, int64_t& ns) {
  if (n.is_int) return !__builtin_mul_overflow(n.i, int64_t(1000), &ns);
  return ns_of_double(n.d, ns);
}
bool end_ns(const Num& start, const Num& dur, int64_t& ns) {
  if (start.is_int && dur.is_int) {
    int64_t sum;
    return !__builtin_add_overflow(start.i, dur.i, &sum) && !__builtin_mul_overflow(sum, int64_t(1000), &ns);
  }
  double s = start.is_int ? static_cast<double>(start.i) : start.d;
  double d = dur.is_int ? static_cast<double>(dur.i) : dur.d;
  return ns_of_double(s + d, ns);
}
// A correlation id as the seed's int() of it; 0 (no id) when not a positive number in range.
uint64_t id_of(const Num& c) {
  if (c.is_int) return c.i > 0 ? uint64_t(c.i) : 0;
  return c.d > 0 && c.d < 1.8e19 ? uint64_t(c.d) : 0;
}

struct Launch {
  int64_t start;
  uint64_t corr;
  uint32_t order;  // position of the correlation id's first appearance (Python dict order)
};
struct Kernel {
  StrId leaf;      // "[GPU_Kernel]name" in the output table
  StrId name;      // for the summary
  uint64_t corr;
  int64_t dur;
};

// Python's str.strip()/split() whitespace (the ASCII part of it).
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1f);
}
std::string_view strip(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && is_space(s[a])) ++a;
  while (b > a && is_space(s[b - 1])) --b;
  return s.substr(a, b - a);
}
// Python int() of a whitespace-free token (sign and ASCII digits).
bool parse_int(std::string_view s, int64_t& out) {
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i == s.size()) return false;
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    if (v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + uint64_t(s[i] - '0');
  }
  if (v > uint64_t(INT64_MAX)) return false;
  out = neg ? -int64_t(v) : int64_t(v);
  return true;
}

class Merger {
 public:
  Merger(const GpuMergeOptions& o) : o_(o), tolerance_ns_(static_cast<int64_t>(o.tolerance_ms * 1'000'000)) {
    pending_ = out_strings_.intern("[GPU_Launch_Pending]");
  }

  void read_gpu(const std::string& path) {
    Input input = Input::open(path);
    std::string_view text = input.whole();
    if (strip(text).empty()) throw InputError(input.path(), "", "the file is empty");
    U64Map launch_of_corr(1024);
    sj::parser parser;
    try {
      simdjson::padded_string_view json(text.data(), text.size(), text.size() + Input::kPadding);
      sj::document doc = parser.iterate(json);
      sj::object top;
      if (auto err = doc.get_object().get(top)) {
        if (strip(text).front() == '{')
          throw InputError(input.path(), "", std::string("malformed JSON: ") + simdjson::error_message(err));
        throw InputError(input.path(), "", "expected a JSON object with a traceEvents array (a CUPTI or Kineto trace)");
      }
      bool seen = false;
      for (auto field_result : top) {
        sj::field field;
        std::string_view key;
        if (std::move(field_result).get(field) || field.unescaped_key().get(key))
          throw InputError(input.path(), "", "malformed JSON in the top-level object");
        if (key != "traceEvents") continue;
        sj::array events;
        if (field.value().get_array().get(events)) throw InputError(input.path(), "", "traceEvents is not an array");
        seen = true;
        for (auto ev : events) {
          sj::value v;
          if (auto err = std::move(ev).get(v)) throw InputError(input.path(), "", std::string("malformed JSON in traceEvents: ") + simdjson::error_message(err));
          read_event(v, launch_of_corr);
        }
      }
      if (!seen) throw InputError(input.path(), "", "no traceEvents array: not a CUPTI/Kineto trace");
    } catch (const simdjson::simdjson_error& e) {
      throw InputError(input.path(), "", std::string("malformed JSON: ") + e.what());
    }
    // Launches in time order; equal times keep dict order, so the first of a group wins ties.
    std::sort(launches_.begin(), launches_.end(), [](const Launch& a, const Launch& b) {
      return a.start != b.start ? a.start < b.start : a.order < b.order;
    });
    starts_.resize(launches_.size());
    group_first_.resize(launches_.size());
    for (size_t i = 0; i < launches_.size(); ++i) {
      starts_[i] = launches_[i].start;
      group_first_[i] = i && starts_[i] == starts_[i - 1] ? group_first_[i - 1] : static_cast<uint32_t>(i);
    }
    for (uint32_t k = 0; k < kernels_.size(); ++k) kernel_of_corr_.find_or_insert(kernels_[k].corr, k);
  }

  void read_cpu(const std::string& path, OutputFile& out, GpuMergeReport& rep) {
    Input input = Input::open(path);
    std::string_view chunk;
    uint64_t line_no = 0;
    std::string stack;
    while (input.next_chunk(chunk)) {
      size_t at = 0;
      while (at < chunk.size()) {
        size_t nl = chunk.find('\n', at);
        if (nl == std::string_view::npos) nl = chunk.size();
        ++line_no;
        std::string_view raw = chunk.substr(at, nl - at);
        at = nl + 1;
        cpu_line(raw, line_no, stack, rep);
      }
    }
    if (rep.cpu_stacks == 0)
      throw InputError(input.path(), rep.first_malformed.empty() ? "" : rep.first_malformed.substr(0, rep.first_malformed.find(':')),
                       rep.malformed_lines ? "no valid stack line (`ts_ns comm pid tid cpu f1;f2;...`)"
                                           : "no CPU stacks in the file");
    write(out, rep);
  }

  std::string summary(const GpuMergeReport& rep) const {
    std::string s = "\n=== Summary Statistics ===\n";
    if (rep.cpu_stacks) {
      s += fmt::format("CPU trace duration: {:.2f} ms\n", static_cast<double>(cpu_max_ - cpu_min_) / 1'000'000);
      s += fmt::format("CPU stacks captured: {}\n", rep.cpu_stacks);
    }
    if (!kernels_.empty()) {
      s += fmt::format("\nGPU kernels executed: {}\n", kernels_.size());
      s += fmt::format("CUDA launch events: {}\n", launches_.size());
      int64_t total = 0;
      for (const Kernel& k : kernels_) total += k.dur;
      s += fmt::format("Total kernel execution time: {:.2f} ms\n", static_cast<double>(total) / 1'000'000);
      // The seed counts names over its kernel list sorted by correlation id, then orders by
      // count, ties in that first-appearance order.
      std::vector<uint32_t> by_corr(kernels_.size());
      for (uint32_t i = 0; i < by_corr.size(); ++i) by_corr[i] = i;
      std::stable_sort(by_corr.begin(), by_corr.end(),
                       [&](uint32_t a, uint32_t b) { return kernels_[a].corr < kernels_[b].corr; });
      U64Map slot(256);
      std::vector<std::pair<StrId, uint64_t>> counts;
      for (uint32_t k : by_corr) {
        uint32_t i = slot.find_or_insert(kernels_[k].name, static_cast<uint32_t>(counts.size()));
        if (i == counts.size()) counts.emplace_back(kernels_[k].name, 0);
        ++counts[i].second;
      }
      std::stable_sort(counts.begin(), counts.end(), [](auto& a, auto& b) { return a.second > b.second; });
      s += "\nKernel execution counts:\n";
      for (auto& [name, n] : counts) s += fmt::format("  {}: {}\n", names_[name], n);
    }
    return s;
  }

  uint64_t kernel_count() const { return kernels_.size(); }
  uint64_t launch_count() const { return launches_.size(); }
  uint64_t times_out_of_range() const { return times_out_of_range_; }
  uint64_t without_correlation() const { return without_correlation_; }

 private:
  void read_event(sj::value v, U64Map& launch_of_corr) {
    sj::object ev;
    if (v.get_object().get(ev)) return;
    name_buf_.clear();
    cat_buf_.clear();
    Num ts, dur;
    uint64_t corr_id = 0, corr_kineto = 0;
    bool has_corr_id = false;
    for (auto field_result : ev) {
      sj::field field;
      std::string_view key;
      if (std::move(field_result).get(field) || field.unescaped_key().get(key)) continue;
      sj::value val = field.value();
      if (key == "name") {  // string views die at the next string read: copy
        std::string_view s;
        if (!val.get_string().get(s)) name_buf_.assign(s);
      } else if (key == "cat") {
        std::string_view s;
        if (!val.get_string().get(s)) cat_buf_.assign(s);
      } else if (key == "ts") {
        ts = read_num(val);
      } else if (key == "dur") {
        dur = read_num(val);
      } else if (key == "args") {
        sj::object args;
        if (val.get_object().get(args)) continue;
        for (auto arg_result : args) {
          sj::field a;
          std::string_view ak;
          if (std::move(arg_result).get(a) || a.unescaped_key().get(ak)) continue;
          if (ak == "correlationId" || ak == "correlation") {
            Num c = read_num(a.value());
            if (!c.present) continue;
            uint64_t value = id_of(c);
            if (ak == "correlationId") {
              corr_id = value;
              has_corr_id = true;
            } else {
              corr_kineto = value;
            }
          }
        }
      }
    }
    std::string_view name = name_buf_, cat = cat_buf_;
    uint64_t corr = has_corr_id ? corr_id : corr_kineto;
    bool is_launch = (cat == "CUDA_Runtime" || cat == "cuda_runtime") && name.find("LaunchKernel") != std::string_view::npos;
    bool is_kernel = !is_launch && (cat == "GPU_Kernel" || cat == "kernel" || name.substr(0, 7) == "Kernel:");
    if (!is_launch && !is_kernel) return;
    if (!ts.positive() || !dur.positive()) return;
    if (corr == 0) {  // left out as seed 002 leaves it out, but said
      ++without_correlation_;
      return;
    }
    int64_t start = 0, end = 0, span = 0;
    if (!us_to_ns(ts, start) || !end_ns(ts, dur, end) || __builtin_sub_overflow(end, start, &span)) {
      ++times_out_of_range_;
      return;
    }
    if (is_launch) {
      uint32_t fresh = static_cast<uint32_t>(launches_.size());
      uint32_t i = launch_of_corr.find_or_insert(corr, fresh);
      if (i == fresh)
        launches_.push_back(Launch{start, corr, fresh});
      else
        launches_[i].start = start;  // a repeated id replaces the value, keeps its dict slot
      return;
    }
    std::string& clean = clean_buf_;  // name.replace('Kernel: ', '') — every occurrence
    clean.clear();
    for (size_t i = 0; i <= name.size();) {
      size_t hit = name.find("Kernel: ", i);
      if (hit == std::string_view::npos) hit = name.size();
      clean.append(name.substr(i, hit - i));
      i = hit + 8;
    }
    Kernel k;
    k.name = names_.intern(clean);
    k.leaf = out_strings_.intern("[GPU_Kernel]" + clean);
    k.corr = corr;
    k.dur = span;
    kernels_.push_back(k);
  }

  void cpu_line(std::string_view raw, uint64_t line_no, std::string& stack, GpuMergeReport& rep) {
    std::string_view line = strip(raw);
    if (line.empty()) return;
    std::string_view parts[5];
    size_t p = 0;
    int n = 0;
    for (; n < 5; ++n) {
      while (p < line.size() && is_space(line[p])) ++p;
      size_t s = p;
      while (p < line.size() && !is_space(line[p])) ++p;
      if (s == p) break;
      parts[n] = line.substr(s, p - s);
    }
    while (p < line.size() && is_space(line[p])) ++p;
    int64_t ts = 0, ignored = 0;
    if (n < 5 || p >= line.size() || !parse_int(parts[0], ts) || !parse_int(parts[2], ignored) ||
        !parse_int(parts[3], ignored) || !parse_int(parts[4], ignored)) {
      if (rep.malformed_lines++ == 0)
        rep.first_malformed = fmt::format("line {}: {}", line_no, line.substr(0, 100));
      return;
    }
    std::string_view frames = line.substr(p);
    // Stacks repeat: clean each distinct raw stack once.
    StrId raw_id = raw_stacks_.intern(frames);
    if (raw_id >= clean_of_raw_.size()) clean_of_raw_.resize(raw_id + 1, kUnseen);
    StrId sid = clean_of_raw_[raw_id];
    if (sid == kUnseen) {
      sid = clean_of_raw_[raw_id] = clean_stack(frames, stack);
    }
    if (sid == kEmptyStack) return;
    if (rep.cpu_stacks++ == 0) cpu_min_ = cpu_max_ = ts;
    cpu_min_ = std::min(cpu_min_, ts);
    cpu_max_ = std::max(cpu_max_, ts);

    uint32_t kernel = match(ts);
    StrId leaf = pending_;
    double weight = 1;
    if (kernel != kNoMatch) {
      leaf = kernels_[kernel].leaf;
      ++rep.matched;
      if (o_.weight_gpu) weight = static_cast<double>(kernels_[kernel].dur);
    } else {
      ++rep.unmatched;
      if (o_.weight_gpu) weight = 0;
    }
    uint32_t fresh = static_cast<uint32_t>(entries_.size());
    uint32_t e = entry_of_.find_or_insert(uint64_t(sid) << 32 | leaf, fresh);
    if (e == fresh) entries_.push_back(Entry{sid, leaf, 0});
    entries_[e].weight += weight;
  }

  // The seed's frame clean-up; returns the cleaned stack's id, or kEmptyStack.
  StrId clean_stack(std::string_view frames, std::string& stack) {
    stack.clear();
    // Where the launch markers are, found once over the whole line (a match never spans ';').
    size_t launch_at = frames.find("cudaLaunchKernel"), stub_at = frames.find("__device_stub__");
    bool seen_launch = false;
    size_t a = 0;
    while (a <= frames.size()) {
      size_t b = frames.find(';', a);
      if (b == std::string_view::npos) b = frames.size();
      std::string_view raw = frames.substr(a, b - a);
      size_t start = a;
      a = b + 1;
      std::string_view f = strip(raw);
      if (f.empty() || f == "_start" || f == "__libc_start_main") continue;
      while (launch_at < start) launch_at = frames.find("cudaLaunchKernel", launch_at + 1);
      while (stub_at < start) stub_at = frames.find("__device_stub__", stub_at + 1);
      if (launch_at < b || stub_at < b) {
        if (seen_launch) continue;
        seen_launch = true;
        f = "cudaLaunchKernel";
      }
      if (!stack.empty()) stack.push_back(';');
      stack.append(f);
    }
    return stack.empty() ? kEmptyStack : stacks_.intern(stack);
  }

  // The launch nearest to t strictly within the tolerance (ties: first in file order), then
  // the first kernel carrying its correlation id.
  uint32_t match(int64_t t) const {
    if (starts_.empty()) return kNoMatch;
    size_t hi = std::lower_bound(starts_.begin(), starts_.end(), t) - starts_.begin();
    int64_t best_d = INT64_MAX;
    uint32_t best = kNoMatch;
    auto consider = [&](size_t group_first, int64_t d) {
      const Launch& l = launches_[group_first];
      if (d < best_d || (d == best_d && l.order < launches_[best].order)) {
        best_d = d;
        best = static_cast<uint32_t>(group_first);
      }
    };
    if (hi < starts_.size()) consider(hi, starts_[hi] - t);
    if (hi > 0) consider(group_first_[hi - 1], t - starts_[hi - 1]);
    if (best == kNoMatch || best_d >= tolerance_ns_) return kNoMatch;
    uint32_t k = kernel_of_corr_.find(launches_[best].corr);
    return k == U64Map::kMissing ? kNoMatch : k;
  }

  void write(OutputFile& out, GpuMergeReport& rep) {
    std::vector<std::string> lines;
    lines.reserve(entries_.size());
    for (const Entry& e : entries_) {
      if (o_.weight_gpu && e.weight == 0) continue;
      std::string s(stacks_[e.stack]);
      s.push_back(';');
      s.append(out_strings_[e.leaf]);
      lines.push_back(std::move(s));
    }
    std::vector<uint32_t> order(lines.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return lines[a] < lines[b]; });
    // Entries skipped above keep the index mapping aligned: rebuild the weights alongside.
    std::vector<double> weights;
    weights.reserve(lines.size());
    for (const Entry& e : entries_)
      if (!(o_.weight_gpu && e.weight == 0)) weights.push_back(e.weight);
    for (uint32_t i : order) {
      out.write(lines[i]);
      out.print(" {:.0f}\n", weights[i]);
      rep.total_weight += weights[i];
    }
    rep.unique_stacks = lines.size();
  }

  struct Entry {
    StrId stack, leaf;
    double weight;
  };
  const GpuMergeOptions& o_;
  int64_t tolerance_ns_;
  std::vector<Launch> launches_;
  std::vector<int64_t> starts_;
  std::vector<uint32_t> group_first_;
  std::vector<Kernel> kernels_;
  uint64_t times_out_of_range_ = 0, without_correlation_ = 0;
  U64Map kernel_of_corr_{1024};
  StringTable names_, out_strings_, stacks_;
  StrId pending_;
  std::string name_buf_, cat_buf_, clean_buf_;
  static constexpr StrId kUnseen = UINT32_MAX, kEmptyStack = UINT32_MAX - 1;
  StringTable raw_stacks_;
  std::vector<StrId> clean_of_raw_;
  U64Map entry_of_{1024};
  std::vector<Entry> entries_;
  int64_t cpu_min_ = 0, cpu_max_ = 0;
};

}  // namespace

GpuMergeReport merge_gpu_cpu(const std::string& cpu_path, const std::string& gpu_path, const GpuMergeOptions& o,
                             OutputFile& out) {
  GpuMergeReport rep;
  Merger m(o);
  m.read_gpu(gpu_path);
  rep.kernels = m.kernel_count();
  rep.launches = m.launch_count();
  rep.times_out_of_range = m.times_out_of_range();
  rep.without_correlation = m.without_correlation();
  m.read_cpu(cpu_path, out, rep);
  rep.summary = m.summary(rep);
  return rep;
}

}  // namespace flamefold
