// Kineto / Chrome trace-event JSON -> Timeline (see include/flamefold/readers/kineto.h and
// ../shared/FORMATS.md §1). One On-Demand pass over the input in batches (kineto_reader.inc):
// values are taken as raw tokens (no DOM, no unescaping into simdjson's string buffer, no
// doubles for times). This file holds the helpers, the portable build of the event loop, the
// run-time choice of build, and the multi-rank entry points.
#include "flamefold/readers/json/kineto.h"

#include <cpuid.h>
#include <limits>
#include <sys/stat.h>
#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>
#include <string>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/input_ahead.h"
#include "flamefold/readers/json/kineto_internal.h"

namespace flamefold {

// ---- numbers ------------------------------------------------------------------------------

bool parse_us_to_ns(std::string_view t, int64_t& ns) {
  // Fast path: [-]digits[.ddd] with at most 15 integer digits (every Kineto timestamp).
  {
    const char* p = t.data();
    const char* e = p + t.size();
    bool neg = p < e && *p == '-';
    p += neg;
    const char* int_begin = p;
    uint64_t v = 0;  // unsigned: past 15 digits it may wrap, and is not used then
    while (p < e && unsigned(*p - '0') < 10) v = v * 10 + uint64_t(*p++ - '0');
    size_t int_digits = size_t(p - int_begin);
    if (int_digits > 0 && int_digits <= 15) {
      int frac = 0, scale = 1000;
      bool ok = true;
      if (p < e && *p == '.') {
        ++p;
        while (p < e && unsigned(*p - '0') < 10 && scale > 1) {
          scale /= 10;
          frac += (*p++ - '0') * scale;
        }
        if (p < e) ok = false;  // more digits or an exponent: the exact path below
      } else if (p < e) {
        ok = false;
      }
      if (ok) {
        const int64_t whole = int64_t(v * 1000 + uint64_t(frac));  // < 10^18
        ns = neg ? -whole : whole;
        return true;
      }
    }
  }
  size_t i = 0, n = t.size();
  bool neg = false;
  if (i < n && (t[i] == '-' || t[i] == '+')) neg = t[i++] == '-';
  // Mantissa digits as an integer plus a decimal exponent; times have at most ~20 digits.
  __int128 mant = 0;
  int exp10 = 0, digits = 0;
  bool any = false, round_up = false, dropped = false;
  for (; i < n && t[i] >= '0' && t[i] <= '9'; ++i, any = true) {
    if (digits < 30) {
      mant = mant * 10 + (t[i] - '0');
      if (mant) ++digits;
    } else {
      ++exp10;
    }
  }
  if (i < n && t[i] == '.') {
    ++i;
    for (; i < n && t[i] >= '0' && t[i] <= '9'; ++i, any = true) {
      if (digits < 30) {
        mant = mant * 10 + (t[i] - '0');
        if (mant) ++digits;
        --exp10;
      }
    }
  }
  if (!any) return false;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < n && (t[i] == '-' || t[i] == '+')) eneg = t[i++] == '-';
    int e = 0;
    bool edig = false;
    for (; i < n && t[i] >= '0' && t[i] <= '9'; ++i, edig = true)
      if (e < 10000) e = e * 10 + (t[i] - '0');
    if (!edig) return false;
    exp10 += eneg ? -e : e;
  }
  if (i != n) return false;
  exp10 += 3;  // µs -> ns
  while (exp10 > 0) {
    mant *= 10;
    --exp10;
    if (mant > (__int128)INT64_MAX * 10) return false;
  }
  while (exp10 < 0 && mant != 0) {
    __int128 q = mant / 10, r = mant % 10;
    if (exp10 == -1) round_up = r >= 5;
    else if (r) dropped = true;
    mant = q;
    ++exp10;
  }
  (void)dropped;
  if (round_up) mant += 1;
  if (mant > INT64_MAX) return false;
  ns = neg ? -static_cast<int64_t>(mant) : static_cast<int64_t>(mant);
  return true;
}

namespace kineto_detail {

bool parse_u64(std::string_view t, uint64_t& v) {
  if (t.empty()) return false;
  uint64_t x = 0;
  for (char c : t) {
    if (c < '0' || c > '9') return false;
    uint64_t d = uint64_t(c - '0');
    if (x > (UINT64_MAX - d) / 10) return false;
    x = x * 10 + d;
  }
  v = x;
  return true;
}
bool parse_i64(std::string_view t, int64_t& v) {
  bool neg = !t.empty() && t[0] == '-';
  uint64_t u;
  if (!parse_u64(neg ? t.substr(1) : t, u) || u > uint64_t(INT64_MAX)) return false;
  v = neg ? -int64_t(u) : int64_t(u);
  return true;
}

static void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

// The body of a JSON string (between the quotes) with its escapes decoded.
std::string_view json_unescape(std::string_view s, std::string& buf) {
  if (s.find('\\') == std::string_view::npos) return s;
  buf.clear();
  auto hex4 = [&](size_t at, uint32_t& v) {
    if (at + 4 > s.size()) return false;
    v = 0;
    for (size_t k = at; k < at + 4; ++k) {
      char c = s[k];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f') v |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= uint32_t(c - 'A' + 10);
      else return false;
    }
    return true;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\' || i + 1 >= s.size()) {
      buf += c;
      continue;
    }
    char e = s[++i];
    switch (e) {
      case 'n': buf += '\n'; break;
      case 't': buf += '\t'; break;
      case 'r': buf += '\r'; break;
      case 'b': buf += '\b'; break;
      case 'f': buf += '\f'; break;
      case 'u': {
        uint32_t cp;
        if (!hex4(i + 1, cp)) {
          buf += "\\u";
          break;
        }
        i += 4;
        uint32_t lo;
        if (cp >= 0xD800 && cp < 0xDC00 && i + 2 < s.size() && s[i + 1] == '\\' && s[i + 2] == 'u' && hex4(i + 3, lo) &&
            lo >= 0xDC00 && lo < 0xE000) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          i += 6;
        }
        append_utf8(buf, cp);
        break;
      }
      default: buf += e;  // \" \\ \/
    }
  }
  return buf;
}

// ---- categories ---------------------------------------------------------------------------

CatInfo classify(std::string_view cat) {
  auto is = [&](std::initializer_list<std::string_view> names) {
    for (std::string_view n : names)
      if (cat == n) return true;
    return false;
  };
  if (cat == "python_function") return {EventKind::HostRange, "python", true, false};
  if (is({"cpu_op", "user_annotation", "Operator", "enqueue", "dequeue", "cuda_profiler_range"}))
    return {EventKind::HostRange, cat == "Operator" ? "cpu_op" : cat, true, false};
  if (is({"cuda_runtime", "cuda_driver", "Runtime", "mtia_runtime", "hip_runtime", "xpu_runtime", "privateuse1_runtime",
          "privateuse1_driver"}))
    return {EventKind::Launch, cat == "Runtime" ? "cuda_runtime" : cat, true, false};
  if (is({"kernel", "Kernel", "mtia_ccp_events"})) return {EventKind::Kernel, category::kKernel, true, false};
  if (is({"gpu_memcpy", "Memcpy"})) return {EventKind::Memcpy, category::kMemcpy, true, false};
  if (is({"gpu_memset", "Memset"})) return {EventKind::Memset, category::kMemset, true, false};
  if (is({"gpu_user_annotation", "cuda_sync"})) return {EventKind::DeviceAnnotation, cat, true, false};
  if (is({"cpu_instant_event", "Instant"})) return {EventKind::Instant, cat, true, false};
  if (is({"Trace", "overhead"})) return {EventKind::Other, cat, true, true};
  return {EventKind::Other, cat, false, false};
}

bool is_link_flow(std::string_view cat) {
  return cat == "ac2g" || cat == "async" || cat == "async_gpu" || cat == "async_cpu_to_gpu" || cat == "HostToDevice" ||
         cat == "async_npu";
}

namespace {
// Input read per batch. Three batches are in flight, each with its buffer, its parsed events and
// the parser's index sized to it: 1 MB batches keep that near 25 MB where 4 MB ones took ~50 MB
// (bench/results-mem.md), at the same speed.
constexpr size_t kDefaultChunk = size_t(1) << 20;
std::atomic<size_t> g_chunk_bytes{kDefaultChunk};
}
size_t chunk_bytes() { return g_chunk_bytes.load(std::memory_order_relaxed); }

}  // namespace kineto_detail

void set_kineto_chunk_bytes(size_t n) { kineto_detail::g_chunk_bytes = n ? n : kineto_detail::kDefaultChunk; }


namespace kineto_portable {
#include "kineto_reader.inc"
}  // namespace kineto_portable

KinetoFileInfo kineto_detail::parse_trace_portable(Input& input, Timeline& tl, uint32_t rank_index) {
  return kineto_portable::parse_trace(input, tl, rank_index);
}
KinetoFileInfo kineto_detail::stream_trace_portable(Input& input, TraceBuilder& builder, uint32_t rank_index) {
  return kineto_portable::stream_trace(input, builder, rank_index);
}

namespace {

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

namespace {
std::atomic<bool> g_force_portable{false};
}
void set_kineto_portable_parser(bool portable) { g_force_portable = portable; }

// LZCNT (CPUID 0x80000001, ECX bit 5) asked of the CPU directly: clang's
// __builtin_cpu_supports does not know the name (the fuzzing and sanitizer builds use clang).
bool cpu_has_lzcnt() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 5));
}

namespace {
bool use_avx2_parser() {
  // Every extension the AVX2 object is compiled with (CMakeLists.txt: flamefold_kineto_avx2).
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
                           __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("pclmul") &&
                           cpu_has_lzcnt() && __builtin_cpu_supports("popcnt");
  return avx2 && !g_force_portable;
}

KinetoFileInfo stream_kineto_into(Input& input, TraceBuilder& builder, uint32_t rank_index) {
  return use_avx2_parser() ? kineto_detail::stream_trace_avx2(input, builder, rank_index)
                           : kineto_detail::stream_trace_portable(input, builder, rank_index);
}

// Traces of this much JSON or more build their profile as they stream (ReadOptions::stream_traces):
// a timeline takes ~37 B per event, where a stream's memory follows the call tree (790 MB of
// Kineto JSON without Python events: 46 MB instead of 126, at about the same speed). Not lower:
// a trace whose Python events come children first is read twice (the stream finds out only when
// a parent comes; the 1 GB generated trace: 1.8 s instead of 1.0).
constexpr uint64_t kStreamFromBytes = uint64_t(2) << 30;

// Whether to read into a TraceBuilder: regular files only (the file is read again as a
// timeline when it turns out to need one); not under --window or --steps (a Python event is
// clamped into its parent before the selection clips it, where a timeline clips first), nor
// --thread (it picks threads by name, and Kineto writes the names after the events).
bool stream_wanted(const std::vector<std::string>& paths, const ReadOptions& o) {
  if (o.stream_traces < 0 || !o.steps.empty() || !o.threads.empty() ||
      o.window_start_ns != std::numeric_limits<int64_t>::min() || o.window_end_ns != std::numeric_limits<int64_t>::max())
    return false;
  uint64_t json_bytes = 0;
  for (const std::string& path : paths) {
    struct stat st;
    if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    const bool packed = path.size() > 3 && (path.ends_with(".gz") || path.ends_with(".zst"));
    json_bytes += uint64_t(st.st_size) * (packed ? 13 : 1);  // gzip: ~13x smaller
  }
  return o.stream_traces > 0 || json_bytes >= kStreamFromBytes;
}

// The rank label of file i of several: "rank N" from distributedInfo (unique), else the file
// name. A single input read by read_kineto keeps its file name and says its rank as a fact.
template <class Sink>
void label_rank(Sink& sink, const std::vector<std::string>& paths, size_t i, const KinetoFileInfo& info, bool relabel) {
  if (!info.has_rank) return;
  if (!relabel) {
    sink.facts.emplace_back("rank", std::to_string(info.rank));
    return;
  }
  std::string label = "rank " + std::to_string(info.rank);
  if (std::find(sink.ranks.begin(), sink.ranks.end() - 1, label) == sink.ranks.end() - 1) sink.ranks.back() = label;
  else sink.ranks.back() = label + " (" + base_name(paths[i]) + ")";
  if (paths.size() == 1) sink.facts.emplace_back("rank", std::to_string(info.rank));
}

// The traces into a TraceBuilder; NeedsTimeline when one of them needs the timeline.
Profile stream_kineto_files(const std::vector<std::string>& paths, const ReadOptions& options, Input* first) {
  const bool relabel = first == nullptr;
  BuildOptions b;  // outlives the builder, which keeps a reference; the device weight is known at the end
  TraceBuilder builder(options, b, options.spool_bytes ? options.spool_bytes : kSpoolBytes);
  builder.source_format = "kineto";
  bool npu = false;
  for (size_t i = 0; i < paths.size(); ++i) {
    std::optional<Input> opened;
    if (!(first && i == 0)) opened.emplace(Input::open(paths[i]));
    Input& input = opened ? *opened : *first;
    builder.ranks.push_back(base_name(paths[i]));
    KinetoFileInfo info = stream_kineto_into(input, builder, uint32_t(i));
    npu = npu || info.npu;
    label_rank(builder, paths, i, info, relabel);
    builder.inputs.push_back(paths[i]);
  }
  b.device_weight = npu ? "npu" : "gpu";
  return builder.finish();
}
}  // namespace

KinetoFileInfo read_kineto_into(Input& input, Timeline& tl, uint32_t rank_index) {
  return use_avx2_parser() ? kineto_detail::parse_trace_avx2(input, tl, rank_index)
                           : kineto_detail::parse_trace_portable(input, tl, rank_index);
}

Profile read_kineto_files(const std::vector<std::string>& paths, const ReadOptions& options) {
  if (stream_wanted(paths, options)) {
    try {
      return stream_kineto_files(paths, options, nullptr);
    } catch (const kineto_detail::NeedsTimeline&) {
      // read again below, as a timeline
    }
  }
  Timeline tl;
  tl.source_format = "kineto";
  bool npu = false;
  for (size_t i = 0; i < paths.size(); ++i) {
    Input input = Input::open(paths[i]);
    tl.ranks.push_back(base_name(paths[i]));
    KinetoFileInfo info = read_kineto_into(input, tl, uint32_t(i));
    npu = npu || info.npu;
    label_rank(tl, paths, i, info, true);
    tl.inputs.push_back(paths[i]);
  }
  BuildOptions b;
  b.device_weight = npu ? "npu" : "gpu";
  return build_profile(std::move(tl), options, b);
}

namespace {
Profile read_kineto_timeline(Input& input, const ReadOptions& options) {
  Timeline tl;
  tl.source_format = "kineto";
  tl.ranks.push_back(base_name(input.path()));
  KinetoFileInfo info = read_kineto_into(input, tl, 0);
  label_rank(tl, {input.path()}, 0, info, false);
  tl.inputs.push_back(input.path());
  BuildOptions b;
  b.device_weight = info.npu ? "npu" : "gpu";
  return build_profile(std::move(tl), options, b);
}
}  // namespace

Profile read_kineto(Input& input, const ReadOptions& options) {
  if (stream_wanted({input.path()}, options)) {
    try {
      return stream_kineto_files({input.path()}, options, &input);
    } catch (const kineto_detail::NeedsTimeline&) {
      Input again = Input::open(input.path());  // a regular file (stream_wanted)
      return read_kineto_timeline(again, options);
    }
  }
  return read_kineto_timeline(input, options);
}

}  // namespace flamefold
