// Timeline -> {"traceEvents":[...]}. Events are written lane by lane (a lane is one Chrome
// pid/tid pair) in start order, straight into the output buffer: nothing but an index array
// is held besides the timeline itself.
#include "flamefold/json_text.h"
#include "flamefold/writers/chrome_trace.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <regex>

#include "flamefold/errors.h"
#include "flamefold/hash.h"

namespace flamefold {

namespace {

constexpr int64_t kDevicePidBase = 0x7FFF0000;   // Chrome pid of device N: after every real pid
constexpr int64_t kProjectionTidBase = 100000000;  // "NVTX Kernel Thread <tid>" lanes inside a device

enum class Activity : uint8_t { None, Device, HostRange, Api };

Activity activity_of(EventKind k) {
  switch (k) {
    case EventKind::Kernel:
    case EventKind::Memcpy:
    case EventKind::Memset:
    case EventKind::DeviceAnnotation: return Activity::Device;
    case EventKind::HostRange:
    case EventKind::Instant: return Activity::HostRange;
    case EventKind::Launch:
    case EventKind::Other: return Activity::Api;
  }
  return Activity::None;
}

void append_escaped(std::string& out, std::string_view s) { append_json_escaped(out, s); }

void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// ns -> µs with three decimals, exact (no floating point).
void append_us(std::string& out, int64_t ns) {
  if (ns < 0) {
    out += '-';
    ns = -ns;
  }
  append_int(out, ns / 1000);
  int frac = static_cast<int>(ns % 1000);
  char d[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10), static_cast<char>('0' + frac % 10)};
  out.append(d, 4);
}

// correlation id -> small index. CUPTI ids are dense per process (high 32 bits: the pid, see
// the nsys reader), so each process gets a plain array over its id range: lookups in time
// order then walk memory nearly in order instead of hashing to random cache lines. Sparse
// ranges (Ascend's link ids) fall back to the hash map.
class CorrelationIndex {
 public:
  void build(const std::vector<uint64_t>& ids) {  // ids: every correlation that will be inserted
    struct Range {
      uint64_t high;
      uint64_t lo = UINT64_MAX, hi = 0, count = 0;
    };
    std::vector<Range> ranges;
    for (uint64_t c : ids) {
      uint64_t high = c >> 32, low = c & 0xFFFFFFFFull;
      Range* r = nullptr;
      for (Range& x : ranges)
        if (x.high == high) r = &x;
      if (!r) {
        if (ranges.size() >= 64) {
          dense_.clear();
          return;  // many groups: hashing only
        }
        ranges.push_back(Range{high});
        r = &ranges.back();
      }
      r->lo = std::min(r->lo, low);
      r->hi = std::max(r->hi, low);
      ++r->count;
    }
    for (const Range& r : ranges)
      if (r.hi - r.lo + 1 <= 4 * r.count + 1024) dense_.push_back(Dense{r.high, r.lo, std::vector<uint32_t>(r.hi - r.lo + 1, kMissing)});
  }
  uint32_t find(uint64_t c) const {
    if (std::vector<uint32_t>* d = dense_for(c)) {
      uint64_t low = (c & 0xFFFFFFFFull) - lo_;
      return low < d->size() ? (*d)[low] : kMissing;
    }
    return map_.find(c);
  }
  void set(uint64_t c, uint32_t v) {
    if (std::vector<uint32_t>* d = dense_for(c)) {
      uint64_t low = (c & 0xFFFFFFFFull) - lo_;
      if (low < d->size()) {
        (*d)[low] = v;
        return;
      }
    }
    map_.set(c, v);
  }
  static constexpr uint32_t kMissing = U64Map::kMissing;

 private:
  struct Dense {
    uint64_t high, lo;
    std::vector<uint32_t> slots;
  };
  std::vector<uint32_t>* dense_for(uint64_t c) const {
    uint64_t high = c >> 32;
    if (last_ && last_->high == high) {
      lo_ = last_->lo;
      return &last_->slots;
    }
    for (const Dense& d : dense_)
      if (d.high == high) {
        last_ = const_cast<Dense*>(&d);
        lo_ = d.lo;
        return &last_->slots;
      }
    return nullptr;
  }
  std::vector<Dense> dense_;
  mutable Dense* last_ = nullptr;
  mutable uint64_t lo_ = 0;
  U64Map map_{1024};
};

struct Lane {
  int64_t pid = 0, tid = 0;
  int group = 0;  // 0 host, 1 device
  int sub = 0;    // device lanes: 0 stream, 1 projection
  std::string name;
  int64_t sort_index = 0;
};

struct Projection {
  uint32_t lane;
  int64_t start, end;
  uint32_t range_event;
};

class ChromeWriter {
 public:
  ChromeWriter(const Timeline& tl, const TraceSideInfo& side, const ChromeTraceOptions& o, OutputFile& out)
      : tl_(tl), side_(side), o_(o), out_(out) {}

  ChromeTraceStats run() {
    prepare_frames();
    make_track_lanes();
    if (o_.range_projection) project_ranges();
    order_lanes();
    std::string& b = out_.buffer();
    b += "{\"traceEvents\":[\n";
    write_metadata();
    bucket_events();
    for (uint32_t lane : lane_order_) write_lane(lane);
    b += "\n],\"displayTimeUnit\":\"ns\"}\n";
    out_.maybe_flush();
    return stats_;
  }

 private:
  const Timeline& tl_;
  const TraceSideInfo& side_;
  const ChromeTraceOptions& o_;
  OutputFile& out_;
  ChromeTraceStats stats_;
  std::vector<Lane> lanes_;
  std::vector<uint32_t> track_lane_;
  std::vector<uint32_t> lane_order_;
  std::vector<Projection> projections_;  // sorted by lane, start
  std::vector<uint32_t> lane_first_projection_;
  std::vector<uint32_t> order_;          // shown events grouped by lane
  std::vector<uint32_t> lane_begin_;     // into order_
  std::vector<std::string> frame_json_;  // "name":"...","cat":"..." per frame, built on first use
  std::vector<int16_t> frame_color_;     // index into o_.colors, -1 none
  std::vector<uint8_t> frame_prefix_ok_;
  U64Map bytes_{16};
  U64Map launch_of_{1024};  // correlation -> first Launch event
  bool first_event_ = true;

  int64_t device_pid(int32_t device) const { return kDevicePidBase + (device < 0 ? 0 : device); }

  void prepare_frames() {
    size_t nf = tl_.symbols.frame_count();
    frame_json_.assign(nf, std::string());
    frame_color_.assign(nf, -2);
    frame_prefix_ok_.assign(nf, 2);
    for (auto [ev, n] : side_.bytes) bytes_.set(ev, static_cast<uint32_t>(std::min<int64_t>(n, UINT32_MAX - 1)));
  }

  const std::string& frame_json(FrameId f) {
    std::string& s = frame_json_[f];
    if (s.empty()) {
      s = "\"name\":\"";
      append_escaped(s, tl_.symbols.name(f));
      s += "\",\"cat\":\"";
      std::string_view cat = tl_.symbols.category_name(tl_.symbols[f].category);
      append_escaped(s, cat.empty() ? std::string_view("trace") : cat);
      s += '"';
    }
    return s;
  }

  int color_of(FrameId f) {
    if (frame_color_[f] == -2) {
      frame_color_[f] = -1;
      std::string name(tl_.symbols.name(f));
      for (size_t i = 0; i < o_.colors.size(); ++i) {
        if (std::regex_search(name, std::regex(o_.colors[i].first))) {
          frame_color_[f] = static_cast<int16_t>(i);
          break;
        }
      }
    }
    return frame_color_[f];
  }

  bool prefix_ok(FrameId f) {
    if (o_.name_prefixes.empty()) return true;
    if (frame_prefix_ok_[f] == 2) {
      std::string_view n = tl_.symbols.name(f);
      frame_prefix_ok_[f] = 0;
      for (const std::string& p : o_.name_prefixes)
        if (n.substr(0, p.size()) == p) frame_prefix_ok_[f] = 1;
    }
    return frame_prefix_ok_[f] == 1;
  }

  bool shown(uint32_t e) {
    switch (activity_of(tl_.kind[e])) {
      case Activity::Device: return o_.device_work;
      case Activity::HostRange: return o_.host_ranges && prefix_ok(tl_.frame[e]);
      case Activity::Api: return o_.api_calls;
      case Activity::None: break;
    }
    return false;
  }

  std::string device_name(int32_t device) const {
    for (const auto& [d, n] : side_.device_names)
      if (d == device) return side_.device_label + " " + std::to_string(device) + " (" + n + ")";
    return side_.device_label + " " + std::to_string(device < 0 ? 0 : device);
  }

  void make_track_lanes() {
    track_lane_.resize(tl_.tracks.size());
    for (size_t t = 0; t < tl_.tracks.size(); ++t) {
      const Track& tr = tl_.tracks[t];
      Lane l;
      if (tr.device) {
        l.group = 1;
        l.pid = device_pid(tr.device_index);
        l.tid = tr.tid;
        l.name = std::string(tl_.symbols.strings[tr.name]);
        l.sort_index = tr.tid;
      } else {
        l.pid = tr.pid;
        l.tid = tr.tid;
        l.name = std::string(tl_.symbols.strings[tr.name]);
        l.sort_index = tr.tid < 0 ? INT32_MAX : tr.tid;  // synthetic lanes (start/end ranges) last
      }
      track_lane_[t] = static_cast<uint32_t>(lanes_.size());
      lanes_.push_back(std::move(l));
    }
  }

  // nvtx-kernel: each host range over [first kernel start, last kernel end] of the kernels
  // launched by calls of its process starting strictly inside it (nsys2json's rule).
  void project_ranges() {
    size_t n = tl_.size();
    struct Span {
      int64_t start, end;
      int32_t device;
    };
    std::vector<Span> spans;
    CorrelationIndex span_of;
    {
      std::vector<uint64_t> ids;
      for (size_t e = 0; e < n; ++e)
        if (tl_.kind[e] == EventKind::Kernel && tl_.correlation[e] != 0) ids.push_back(tl_.correlation[e]);
      span_of.build(ids);
    }
    for (size_t e = 0; e < n; ++e) {
      if (tl_.kind[e] != EventKind::Kernel || tl_.correlation[e] == 0) continue;
      uint32_t i = span_of.find(tl_.correlation[e]);
      if (i == U64Map::kMissing) {
        span_of.set(tl_.correlation[e], static_cast<uint32_t>(spans.size()));
        spans.push_back({tl_.start[e], tl_.end[e], tl_.tracks[tl_.track[e]].device_index});
      } else {
        spans[i].start = std::min(spans[i].start, tl_.start[e]);
        spans[i].end = std::max(spans[i].end, tl_.end[e]);
      }
    }
    if (spans.empty()) return;
    // Per process (nsys2json joins a range with every call of its process, whichever thread
    // made it: autograd threads launch inside the main thread's ProfilerStep): the ranges and
    // the calls with a kernel, in (start, calls first) order. Synthetic lanes (tid < 0, NVTX
    // start/end ranges) are left out, as nsys2json projects push/pop ranges only.
    U64Map group_of_pid(64);
    std::vector<uint32_t> group_of_track(tl_.tracks.size(), kNone);
    std::vector<std::vector<uint32_t>> group_tracks;
    for (size_t t = 0; t < tl_.tracks.size(); ++t) {
      const Track& tr = tl_.tracks[t];
      if (tr.device || tr.tid < 0) continue;
      uint32_t g = group_of_pid.find_or_insert(static_cast<uint64_t>(tr.pid), static_cast<uint32_t>(group_tracks.size()));
      if (g == group_tracks.size()) group_tracks.emplace_back();
      group_tracks[g].push_back(static_cast<uint32_t>(t));
      group_of_track[t] = g;
    }
    auto relevant = [&](size_t e) {
      if (group_of_track[tl_.track[e]] == kNone) return false;
      EventKind k = tl_.kind[e];
      if (k == EventKind::HostRange) return prefix_ok(tl_.frame[e]);
      // Calls: whether a kernel has their correlation id is looked up once, in the sweep.
      return (k == EventKind::Launch || k == EventKind::Other) && tl_.correlation[e] != 0;
    };
    std::vector<uint32_t> count(group_tracks.size() + 1, 0);
    for (size_t e = 0; e < n; ++e)
      if (relevant(e)) ++count[group_of_track[tl_.track[e]] + 1];
    for (size_t g = 1; g < count.size(); ++g) count[g] += count[g - 1];
    std::vector<uint32_t> items(count.back());
    std::vector<uint32_t> fill(count.begin(), count.end() - 1);
    for (size_t e = 0; e < n; ++e)
      if (relevant(e)) items[fill[group_of_track[tl_.track[e]]]++] = static_cast<uint32_t>(e);
    U64Map projection_lane(64);
    // Open ranges per thread: (range event, its accumulator), so the sweep does no hashing.
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> stacks(tl_.tracks.size());
    struct Acc {
      uint32_t range;
      int64_t start = INT64_MAX, end = INT64_MIN;
      int32_t device = 0;
    };
    std::vector<Acc> acc;
    for (size_t g = 0; g < group_tracks.size(); ++g) {
      auto b = items.begin() + count[g], e = items.begin() + count[g + 1];
      if (b == e) continue;
      auto before = [&](uint32_t x, uint32_t y) {
        if (tl_.start[x] != tl_.start[y]) return tl_.start[x] < tl_.start[y];
        return (tl_.kind[x] != EventKind::HostRange) > (tl_.kind[y] != EventKind::HostRange);
      };
      if (!std::is_sorted(b, e, before)) std::stable_sort(b, e, before);
      for (auto it = b; it != e; ++it) {
        uint32_t ev = *it;
        int64_t at = tl_.start[ev];
        if (tl_.kind[ev] == EventKind::HostRange) {
          auto& stack = stacks[tl_.track[ev]];
          // Ranges that ended leave the stack (push/pop ranges end innermost first).
          while (!stack.empty() && tl_.end[stack.back().first] <= at) stack.pop_back();
          stack.push_back({ev, static_cast<uint32_t>(acc.size())});
          acc.push_back(Acc{ev});
          continue;
        }
        uint32_t si = span_of.find(tl_.correlation[ev]);
        if (si == U64Map::kMissing) continue;
        const Span& sp = spans[si];
        for (uint32_t t : group_tracks[g]) {
          auto& stack = stacks[t];
          while (!stack.empty() && tl_.end[stack.back().first] <= at) stack.pop_back();
          for (auto [r, a] : stack) {
            if (!(tl_.start[r] < at && at < tl_.end[r])) continue;
            if (acc[a].start == INT64_MAX) acc[a].device = sp.device;
            acc[a].start = std::min(acc[a].start, sp.start);
            acc[a].end = std::max(acc[a].end, sp.end);
          }
        }
      }
    }
    // Ranges in event order (the lanes are numbered as they are met).
    std::sort(acc.begin(), acc.end(), [](const Acc& x, const Acc& y) { return x.range < y.range; });
    for (size_t a = 0; a < acc.size(); ++a) {
      if (acc[a].start == INT64_MAX) continue;
      uint32_t r = acc[a].range;
      const Track& host = tl_.tracks[tl_.track[r]];
      uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(acc[a].device)) << 32) | tl_.track[r];
      uint32_t lane = projection_lane.find(key);
      if (lane == U64Map::kMissing) {
        Lane l;
        l.group = 1;
        l.sub = 1;
        l.pid = device_pid(acc[a].device);
        l.tid = kProjectionTidBase + host.tid;
        l.name = "NVTX Kernel Thread " + std::to_string(host.tid);
        l.sort_index = kProjectionTidBase + host.tid;
        lane = static_cast<uint32_t>(lanes_.size());
        lanes_.push_back(std::move(l));
        projection_lane.set(key, lane);
      }
      projections_.push_back({lane, acc[a].start, acc[a].end, r});
    }
    std::stable_sort(projections_.begin(), projections_.end(), [](const Projection& x, const Projection& y) {
      if (x.lane != y.lane) return x.lane < y.lane;
      if (x.start != y.start) return x.start < y.start;
      return x.end > y.end;
    });
  }

  void order_lanes() {
    lane_order_.resize(lanes_.size());
    for (size_t i = 0; i < lanes_.size(); ++i) lane_order_[i] = static_cast<uint32_t>(i);
    std::stable_sort(lane_order_.begin(), lane_order_.end(), [&](uint32_t a, uint32_t b) {
      const Lane &x = lanes_[a], &y = lanes_[b];
      if (x.group != y.group) return x.group < y.group;
      if (x.pid != y.pid) return x.pid < y.pid;
      if (x.sub != y.sub) return x.sub < y.sub;
      return x.sort_index < y.sort_index;
    });
    lane_first_projection_.assign(lanes_.size() + 1, 0);
    for (const Projection& p : projections_) ++lane_first_projection_[p.lane + 1];
    for (size_t i = 1; i < lane_first_projection_.size(); ++i) lane_first_projection_[i] += lane_first_projection_[i - 1];
  }

  void begin_event(std::string& b) {
    if (!first_event_) b += ",\n";
    first_event_ = false;
    ++stats_.events;
  }

  void write_metadata() {
    std::string& b = out_.buffer();
    // Process names and order: one per distinct pid, in lane order.
    int64_t last_pid = INT64_MIN;
    int64_t process_rank = 0;
    for (uint32_t li : lane_order_) {
      const Lane& l = lanes_[li];
      if (l.pid != last_pid) {
        last_pid = l.pid;
        std::string name;
        if (l.group == 1) {
          name = device_name(static_cast<int32_t>(l.pid - kDevicePidBase));
        } else {
          for (const auto& [pid, n] : side_.process_names)
            if (pid == l.pid) name = n + " [" + std::to_string(pid) + "]";
          if (name.empty()) name = "process " + std::to_string(l.pid);
        }
        begin_event(b);
        b += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":";
        append_int(b, l.pid);
        b += ",\"tid\":0,\"args\":{\"name\":\"";
        append_escaped(b, name);
        b += "\"}},\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":";
        append_int(b, l.pid);
        b += ",\"tid\":0,\"args\":{\"sort_index\":";
        append_int(b, process_rank++);
        b += "}}";
        ++stats_.events;
      }
      begin_event(b);
      b += "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":";
      append_int(b, l.pid);
      b += ",\"tid\":";
      append_int(b, l.tid);
      b += ",\"args\":{\"name\":\"";
      append_escaped(b, l.name);
      b += "\"}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":";
      append_int(b, l.pid);
      b += ",\"tid\":";
      append_int(b, l.tid);
      b += ",\"args\":{\"sort_index\":";
      append_int(b, l.sort_index);
      b += "}}";
      ++stats_.events;
      out_.maybe_flush();
    }
  }

  void bucket_events() {
    size_t n = tl_.size();
    lane_begin_.assign(lanes_.size() + 1, 0);
    std::vector<uint8_t> show(n);
    for (size_t e = 0; e < n; ++e) {
      show[e] = shown(static_cast<uint32_t>(e));
      if (show[e]) ++lane_begin_[track_lane_[tl_.track[e]] + 1];
    }
    for (size_t i = 1; i < lane_begin_.size(); ++i) lane_begin_[i] += lane_begin_[i - 1];
    order_.resize(lane_begin_.back());
    std::vector<uint32_t> fill(lane_begin_.begin(), lane_begin_.end() - 1);
    for (size_t e = 0; e < n; ++e)
      if (show[e]) order_[fill[track_lane_[tl_.track[e]]]++] = static_cast<uint32_t>(e);
    auto before = [&](uint32_t x, uint32_t y) {
      if (tl_.start[x] != tl_.start[y]) return tl_.start[x] < tl_.start[y];
      if (tl_.end[x] != tl_.end[y]) return tl_.end[x] > tl_.end[y];
      return x < y;
    };
    for (size_t l = 0; l < lanes_.size(); ++l) {
      auto b = order_.begin() + lane_begin_[l], e = order_.begin() + lane_begin_[l + 1];
      if (!std::is_sorted(b, e, before)) std::sort(b, e, before);
    }
    // Flow arrows need the launch shown as well as the device work.
    if (o_.flows && o_.api_calls && o_.device_work)
      for (size_t e = 0; e < n; ++e)
        if (tl_.kind[e] == EventKind::Launch && tl_.correlation[e] != 0) launch_of_.find_or_insert(tl_.correlation[e], static_cast<uint32_t>(e));
  }

  void write_lane(uint32_t li) {
    const Lane& l = lanes_[li];
    std::string& b = out_.buffer();
    for (uint32_t i = lane_begin_[li]; i < lane_begin_[li + 1]; ++i) {
      write_event(order_[i], l);
      out_.maybe_flush();
    }
    for (uint32_t i = lane_first_projection_[li]; i < lane_first_projection_[li + 1]; ++i) {
      const Projection& p = projections_[i];
      FrameId f = tl_.frame[p.range_event];
      begin_event(b);
      b += "{\"name\":\"";
      append_escaped(b, tl_.symbols.name(f));
      b += "\",\"cat\":\"nvtx-kernel\",\"ph\":\"X\",\"ts\":";
      append_us(b, p.start);
      b += ",\"dur\":";
      append_us(b, p.end - p.start);
      b += ",\"pid\":";
      append_int(b, l.pid);
      b += ",\"tid\":";
      append_int(b, l.tid);
      int c = o_.colors.empty() ? -1 : color_of(f);
      if (c >= 0) {
        b += ",\"cname\":\"";
        append_escaped(b, o_.colors[c].second);
        b += '"';
      }
      b += '}';
      ++stats_.projections;
      out_.maybe_flush();
    }
  }

  void write_event(uint32_t e, const Lane& l) {
    std::string& b = out_.buffer();
    FrameId f = tl_.frame[e];
    EventKind k = tl_.kind[e];
    begin_event(b);
    b += '{';
    b += frame_json(f);
    if (k == EventKind::Instant) {
      b += ",\"ph\":\"i\",\"s\":\"t\",\"ts\":";
      append_us(b, tl_.start[e]);
    } else {
      b += ",\"ph\":\"X\",\"ts\":";
      append_us(b, tl_.start[e]);
      b += ",\"dur\":";
      append_us(b, tl_.end[e] - tl_.start[e]);
    }
    b += ",\"pid\":";
    append_int(b, l.pid);
    b += ",\"tid\":";
    append_int(b, l.tid);
    Activity a = activity_of(k);
    if (a == Activity::HostRange && !o_.colors.empty()) {
      int c = color_of(f);
      if (c >= 0) {
        b += ",\"cname\":\"";
        append_escaped(b, o_.colors[c].second);
        b += '"';
      }
    }
    uint64_t corr = tl_.correlation[e];
    if (a == Activity::Device) {
      const Track& tr = tl_.tracks[tl_.track[e]];
      b += ",\"args\":{\"device\":";
      append_int(b, tr.device_index);
      b += ",\"stream\":";
      append_int(b, tr.tid);
      if (corr) {
        b += ",\"correlationId\":";
        append_int(b, static_cast<int64_t>(corr & 0xFFFFFFFFull));
      }
      if (k != EventKind::Kernel) {
        uint32_t bytes = bytes_.find(e);
        if (bytes != U64Map::kMissing) {
          b += ",\"bytes\":";
          append_int(b, bytes);
        }
      }
      b += "}}";
      ++stats_.device_events;
      if (corr) {
        uint32_t launch = launch_of_.find(corr);
        if (launch != U64Map::kMissing) {
          const Lane& from = lanes_[track_lane_[tl_.track[launch]]];
          // One arrow: its start on the launching call, its end on the device op.
          auto flow_end = [&](const char* phase, int64_t pid, int64_t tid, int64_t ts_ns) {
            b += ",\n{\"name\":\"launch\",\"cat\":\"flow\",";
            b += phase;
            b += ",\"id\":";
            append_int(b, e + 1);
            b += ",\"pid\":";
            append_int(b, pid);
            b += ",\"tid\":";
            append_int(b, tid);
            b += ",\"ts\":";
            append_us(b, ts_ns);
            b += '}';
          };
          flow_end("\"ph\":\"s\"", from.pid, from.tid, tl_.start[launch]);
          flow_end("\"ph\":\"f\",\"bp\":\"e\"", l.pid, l.tid, tl_.start[e]);
          stats_.events += 2;
          ++stats_.flows;
        }
      }
    } else if (a == Activity::Api && corr) {
      b += ",\"args\":{\"correlationId\":";
      append_int(b, static_cast<int64_t>(corr & 0xFFFFFFFFull));
      b += "}}";
    } else {
      b += '}';
    }
  }
};

}  // namespace

void parse_activities(const std::string& list, ChromeTraceOptions& o) {
  o.device_work = o.host_ranges = o.range_projection = o.api_calls = false;
  size_t pos = 0;
  bool any = false;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    std::string item = list.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) continue;
    any = true;
    if (item == "kernel") o.device_work = true;
    else if (item == "nvtx") o.host_ranges = true;
    else if (item == "nvtx-kernel") o.range_projection = true;
    else if (item == "cuda-api") o.api_calls = true;
    else if (item == "all") o.device_work = o.host_ranges = o.range_projection = o.api_calls = true;
    else
      throw UsageError("--activities: unknown activity '" + item + "' (expected kernel, nvtx, nvtx-kernel, cuda-api or all)");
  }
  if (!any) throw UsageError("--activities: give at least one of kernel, nvtx, nvtx-kernel, cuda-api");
}

void parse_color_scheme(const std::string& json, ChromeTraceOptions& o) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  try {
    simdjson::ondemand::document doc = parser.iterate(padded);
    simdjson::ondemand::object obj = doc.get_object();
    for (auto field : obj) {
      std::string key(field.unescaped_key().value());
      std::string value(field.value().get_string().value());
      try {
        std::regex check(key);
      } catch (const std::regex_error& e) {
        throw UsageError("--nvtx-color: '" + key + "' is not a valid regular expression");
      }
      o.colors.emplace_back(std::move(key), std::move(value));
    }
  } catch (const simdjson::simdjson_error& e) {
    throw UsageError(std::string("--nvtx-color: expected a JSON object of \"regex\": \"colour name\" (") + e.what() + ")");
  }
}

ChromeTraceStats write_chrome_trace(const Timeline& timeline, const TraceSideInfo& side, const ChromeTraceOptions& options,
                                    OutputFile& out) {
  ChromeWriter w(timeline, side, options, out);
  return w.run();
}

}  // namespace flamefold
