// The interactive HTML flame graph: web/viewer.html with web/viewer.css and the scripts of
// web/viewer/ (joined at build time into the asset viewer.js) inline, and the profile as one
// gzip + base64 payload that the page inflates with DecompressionStream. A payload of 4 MB or
// more is several gzip members of ~4 MB, compressed on a second thread while it is built; one of
// 256 KB to 4 MB is two members, compressed at once after it is built, and a flame chart section
// of 64 KB or more is compressed at level 1 in members of its own. Each member is in base64 of
// its own, separated by '.' (DecompressionStream stops at a member's end).
// Base64 has no character that means anything to HTML, so no frame name, however hostile, can
// end the <script> element that carries it.
//
// Payload (little-endian, "varint" = unsigned LEB128), every array columnar:
//   "FFD1"
//   varint header_bytes, header JSON (title, columns, categories, facts, counters, ...)
//   varint string_count, string_count x varint utf16_length, varint blob_bytes, blob (UTF-8);
//     front-coded (header "front_coded": the big payloads written in members): string_count x
//     (varint shared, varint utf16_length), each string being the first `shared` UTF-16 units of
//     the string before it followed by utf16_length units of the blob; every string whose index
//     is a multiple of header "front_restart" shares nothing, so the page can make any string
//     from the start of its block alone (it makes names when they are first shown)
//   varint frame_count, then per frame: name[], file[], line[], category[] (each a varint array);
//     frames come sorted by name (bytes), so the names' string ids never decrease: name[] holds
//     each minus the one before (0 or 1; the first as it is), where the ids themselves took 2 of
//     the 1M-frame page's 10 compressed megabytes
//   varint node_count (node 0 = root), then for nodes 1..n-1 in depth-first order:
//     depth step[] (previous depth + 1 - depth), frame[]
//   per column: kind byte (0 = varint integers, 1 = float64), then node_count values.
//   then optional sections to the end: varint tag, varint byte_count, bytes (PayloadSection);
//   the page keeps them by tag and skips tags it does not know.
//
// Section 1, the flame chart (Profile::chart, include/flamefold/timeline/chart.h), written only
// for traced inputs. "zigzag" = a signed varint ((v << 1) ^ (v >> 63)); "text" = varint byte
// count + UTF-8; times are ns from `origin` (the trace's first event) unless said otherwise.
//   varint version (1), zigzag origin (absolute ns), varint trace_end, varint trace_events,
//   varint limit (--timeline-events), varint scope (0 all, 1 whole steps, 2 a window of time),
//   zigzag first_step, zigzag last_step, varint window_start, varint window_end,
//   varint flags (1: --steps narrowed the trace, 2: --window did)
//   varint rank_count, rank_count x text
//   varint lane_count, per lane: varint rank << 1 | device, zigzag pid, zigzag tid, text name, text process
//   varint step_count, per step (by start): varint rank, zigzag number - previous number,
//     zigzag start - previous start, varint end - start
//   zigzag busy_start, varint bucket_ns, varint bucket_count, then bucket_count x varint host busy
//     ns and bucket_count x varint device busy ns
//   varint event_count, lane_count x varint events in that lane (events come lane by lane, by start)
//   event_count x varint start - previous start in the lane (the lane's first: start)
//   event_count x varint end - start
//   event_count x zigzag node - previous event's node (nodes in the depth-first order above)
//   event_count x varint launch: 0 = none in the chart, else 1 + zigzag(launch index - the
//     previous launch index written, from 0)
// About 5 B per event after compression: starts and nodes change little from event to event.
// Frames are renumbered in name order and children are emitted in frame order, so the
// viewer gets flamegraph.pl's alphabetical layout and can merge stacks by sorting on ids.
#include "flamefold/varint.h"
#include "flamefold/utf8.h"
#include "flamefold/json_text.h"
#include "flamefold/timeline/chart.h"
#include "flamefold/writers/html.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "flamefold/compress.h"
#include "flamefold/two_threads.h"
#include "flamefold/web_assets.h"
#include "flamefold/prefetch.h"
#include "html_sections.h"

namespace flamefold {

namespace {

// Front-coded strings restart (share nothing with the one before) every this many strings: the
// page makes a name from its block of 32, not from every string before it. The 1M-frame page
// grows 3.4 % (16: 6.4 %, at the same first paint).
constexpr size_t kFrontRestart = 32;

void append_html_text(std::string& out, std::string_view raw) {
  std::string s;
  append_valid_utf8(s, raw);
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
}

std::string header_json(const Profile& p, const WriteOptions& o, int default_column,
                        const std::vector<std::string_view>& categories, bool front_coded) {
  std::string j = "{\"version\":1,\"title\":";
  std::string title = o.title.empty() ? "Flame Graph" : o.title;
  append_clean_json_string(j, title);
  j += ",\"subtitle\":";
  append_clean_json_string(j, o.subtitle);
  j += ",\"countname\":";
  append_clean_json_string(j, o.countname);
  j += ",\"inverted\":";
  j += o.inverted ? "true" : "false";
  if (o.negate) j += ",\"negate\":true";  // differential hues swapped
  if (front_coded)  // the strings' layout (see the top of this file)
    j += ",\"front_coded\":true,\"front_restart\":" + std::to_string(kFrontRestart);
  // --short-names / --merge-modules: the page turns its own switches on (it keeps full names).
  if (o.names.short_names) j += ",\"short_names\":true";
  if (o.names.merge_modules) j += ",\"merge_modules\":true";
  j += ",\"source_format\":";
  append_clean_json_string(j, p.source_format);
  j += ",\"default_column\":" + std::to_string(default_column);
  j += ",\"columns\":[";
  for (size_t c = 0; c < p.columns.size(); ++c) {
    if (c) j += ',';
    j += "{\"name\":";
    append_clean_json_string(j, p.columns[c].name);
    j += ",\"unit\":";
    append_clean_json_string(j, p.columns[c].unit);
    j += '}';
  }
  j += "],\"categories\":[";
  for (size_t c = 0; c < categories.size(); ++c) {
    if (c) j += ',';
    append_clean_json_string(j, categories[c]);
  }
  j += "],\"inputs\":[";
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    if (i) j += ',';
    append_clean_json_string(j, p.inputs[i]);
  }
  j += "],\"facts\":[";
  for (size_t i = 0; i < p.facts.size(); ++i) {
    if (i) j += ',';
    j += '[';
    append_clean_json_string(j, p.facts[i].first);
    j += ',';
    append_clean_json_string(j, p.facts[i].second);
    j += ']';
  }
  j += "],\"counters\":[";
  for (size_t i = 0; i < p.counters.size(); ++i) {
    if (i) j += ',';
    j += '[';
    append_clean_json_string(j, p.counters[i].what);
    j += ',' + std::to_string(p.counters[i].count) + ']';
  }
  j += "]}";
  return j;
}

// A frame's name as sort_frames() orders it first: its first 24 bytes and its length up to 25.
struct NameKey {
  static constexpr size_t kPrefix = 24;
  uint64_t bytes[3];  // name bytes [0, 24), zero-padded, big-endian
  uint32_t left;      // name bytes, up to 25: 25 means more follow the 24
  uint32_t index;     // in order
  bool operator<(const NameKey& o) const {
    if (bytes[0] != o.bytes[0]) return bytes[0] < o.bytes[0];
    if (bytes[1] != o.bytes[1]) return bytes[1] < o.bytes[1];
    if (bytes[2] != o.bytes[2]) return bytes[2] < o.bytes[2];
    return left < o.left;
  }
  bool same_prefix(const NameKey& o) const {
    return bytes[0] == o.bytes[0] && bytes[1] == o.bytes[1] && bytes[2] == o.bytes[2] && left == o.left;
  }
};

// Sorts keys [a, a + n) by their bytes from `byte` on (all before it are equal), then by left,
// leaving them in `a`, or in `b` when `into_b`; b is room as long as a, and either may be
// overwritten. Most significant byte first, into 256 runs that go to the other buffer, and each
// run goes on from there (the buffers change roles at every level: a key is moved once per level,
// and copied back only at the end of its run, once it is small enough to sit in cache). Bytes that
// every key of a run shares are skipped in one pass; short runs are insertion-sorted. Each key is
// read a few times where std::sort compared a million keys ~20 times each (three words apiece).
void radix_sort_keys(NameKey* a, NameKey* b, size_t n, size_t byte, bool into_b) {
  while (true) {
    if (n <= 32 || byte == NameKey::kPrefix) {
      if (n <= 32) {
        for (size_t i = 1; i < n; ++i)
          for (size_t j = i; j > 0 && a[j] < a[j - 1]; --j) std::swap(a[j], a[j - 1]);
      } else {
        std::sort(a, a + n);  // by left
      }
      if (into_b) std::memcpy(b, a, n * sizeof(NameKey));
      return;
    }
    const size_t w = byte / 8;
    uint64_t differ = 0;
    for (size_t i = 1; i < n; ++i) differ |= a[i].bytes[w] ^ a[0].bytes[w];
    // Bytes of word w from its top that every key shares (those before `byte` are shared anyway).
    const size_t shared = differ == 0 ? 8 : static_cast<size_t>(__builtin_clzll(differ)) / 8;
    if (shared == 8) {  // the whole word: on to the next one
      byte = w * 8 + 8;
      continue;
    }
    byte = w * 8 + shared;  // the first byte on which keys differ (never before `byte`)
    const unsigned shift = static_cast<unsigned>(7 - byte % 8) * 8;
    size_t count[256] = {};
    for (size_t i = 0; i < n; ++i) ++count[(a[i].bytes[w] >> shift) & 255];
    size_t at[256];
    for (size_t d = 0, sum = 0; d < 256; ++d) {
      at[d] = sum;
      sum += count[d];
    }
    for (size_t i = 0; i < n; ++i) b[at[(a[i].bytes[w] >> shift) & 255]++] = a[i];
    // The runs are in b now: each is sorted on from there, and ends where it should.
    for (size_t d = 0, from = 0; d < 256; from += count[d++]) {
      if (count[d] == 1) {
        if (!into_b) a[from] = b[from];
      } else if (count[d] > 1) {
        radix_sort_keys(b + from, a + from, count[d], byte + 1, !into_b);
      }
    }
    return;
  }
}

// Sorts frames by (name, file, line, category) and gives them in that order (`sorted`, and
// `order` as their ids). Names decide nearly always, and a million of them compared with memcmp,
// one cache miss after another, took a second: each name's first 24 bytes are copied once into
// a key, as three big-endian integers, in a pass over the frames in id order (the order they are
// kept in), and the keys are sorted by radix (two threads each take half, then merge half of the
// result each); only names equal in those 24 bytes are compared further, and frames whose names
// are equal by the rest.
void sort_frames(const Symbols& sym, std::vector<FrameId>& order, std::vector<Frame>& sorted) {
  auto full = [&](FrameId a, FrameId b) {
    const Frame &fa = sym[a], &fb = sym[b];
    if (fa.name != fb.name) {
      int c = sym.strings[fa.name].compare(sym.strings[fb.name]);
      if (c) return c < 0;
    }
    if (fa.file != fb.file) {
      int c = sym.strings[fa.file].compare(sym.strings[fb.file]);
      if (c) return c < 0;
    }
    if (fa.line != fb.line) return fa.line < fb.line;
    return sym.category_name(fa.category) < sym.category_name(fb.category);
  };
  constexpr size_t kPrefix = NameKey::kPrefix;
  using Key = NameKey;
  const size_t n = order.size();
  // Fresh memory costs as much as the sort here (its pages zeroed on first touch): the keys and
  // the radix sort's room are left uninitialised, so each thread faults in its own half, and
  // the merge goes into that room instead of a buffer of its own.
  auto keys = std::make_unique_for_overwrite<Key[]>(n);
  auto spare = std::make_unique_for_overwrite<Key[]>(n);
  auto fill = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      if (i + 16 < to) sym.strings.prefetch_view(sym[order[i + 16]].name);
      if (i + 8 < to) flamefold::prefetch(sym.strings[sym[order[i + 8]].name].data());
      std::string_view name = sym.strings[sym[order[i]].name];
      char b[kPrefix] = {};
      std::memcpy(b, name.data(), std::min(name.size(), kPrefix));
      Key& k = keys[i];
      for (int w = 0; w < 3; ++w) {
        uint64_t v;
        std::memcpy(&v, b + 8 * w, 8);
        k.bytes[w] = __builtin_bswap64(v);
      }
      k.left = static_cast<uint32_t>(std::min(name.size(), kPrefix + 1));
      k.index = static_cast<uint32_t>(i);
    }
  };
  auto sort_half = [&](size_t from, size_t to) {
    fill(from, to);
    radix_sort_keys(keys.get() + from, spare.get() + from, to - from, 0, false);
  };
  // Runs of keys with the same 24 bytes: by the rest of the name, then by file, line, category.
  // Then the frames in sorted order: a random read each, fetched ahead. (Made once the keys'
  // first room is freed, where that was: the sort is the HTML writer's peak of memory.)
  std::vector<FrameId> ids;
  auto finish = [&](Key* k, size_t from, size_t to) {
    for (size_t i = from; i < to;) {
      size_t j = i + 1;
      while (j < to && k[j].same_prefix(k[i])) ++j;
      if (j - i > 1) {
        if (k[i].left > kPrefix) {
          std::sort(k + i, k + j, [&](const Key& a, const Key& b) {
            const std::string_view na = sym.strings[sym[order[a.index]].name].substr(kPrefix);
            const std::string_view nb = sym.strings[sym[order[b.index]].name].substr(kPrefix);
            if (int c = na.compare(nb)) return c < 0;
            return full(order[a.index], order[b.index]);
          });
        } else {  // the same name
          std::sort(k + i, k + j, [&](const Key& a, const Key& b) { return full(order[a.index], order[b.index]); });
        }
      }
      i = j;
    }
    for (size_t r = from; r < to; ++r) {
      if (r + 32 < to) flamefold::prefetch(&order[k[r + 32].index]);
      if (r + 16 < to) flamefold::prefetch(&sym[order[k[r + 16].index]]);
      ids[r] = order[k[r].index];
      sorted[r] = sym[ids[r]];
    }
  };
  if (n < (1 << 16)) {
    sort_half(0, n);
    ids.resize(n);
    sorted.resize(n);
    finish(keys.get(), 0, n);
  } else {
    on_two_threads([&] { sort_half(0, n / 2); }, [&] { sort_half(n / 2, n); });
    // The halves merged into the spare room on two threads, each making half of the merged
    // keys (where it starts in each half found by binary search), then finished there. The
    // second thread starts past the first's last run of keys with the same prefix.
    const Key *a = keys.get(), *b = keys.get() + n / 2;
    const size_t na = n / 2, nb = n - n / 2, mid = n / 2;
    size_t lo = mid > nb ? mid - nb : 0, hi = std::min(mid, na);  // i taken from a, mid - i from b
    while (lo < hi) {
      const size_t i = (lo + hi) / 2;
      if (b[mid - i - 1] < a[i]) hi = i;
      else lo = i + 1;
    }
    const size_t i = lo;
    Key* merged = spare.get();
    on_two_threads([&] { std::merge(a, a + i, b, b + (mid - i), merged); },
                   [&] { std::merge(a + i, a + na, b + (mid - i), b + nb, merged + mid); });
    keys.reset();
    ids.resize(n);
    sorted.resize(n);
    size_t cut = mid;
    while (cut < n && merged[cut].same_prefix(merged[cut - 1])) ++cut;
    on_two_threads([&] { finish(merged, 0, cut); }, [&] { finish(merged, cut, n); });
  }
  order.swap(ids);
}

// The binary payload described at the top of this file.
// Tags of the payload's optional sections (after the columns); numbers are never reused.
enum class PayloadSection : uint64_t {
  kTimeline = 1,  // the time-ordered flame chart's events (issue 13)
  kSources = 2,   // source lines around frames' file:line (--source-root)
  kDeviceOps = 3,  // per-kernel count, total, min, max: the kernels table (html_sections.h)
};

void put_section(std::string& payload, PayloadSection tag, std::string_view bytes) {
  put_varint(payload, static_cast<uint64_t>(tag));
  put_varint(payload, bytes.size());
  payload += bytes;
}

void put_zigzag(std::string& out, int64_t v) {
  put_varint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

void put_text(std::string& out, std::string_view raw) {
  std::string s;
  append_valid_utf8(s, raw);
  put_varint(out, s.size());
  out += s;
}

// Section kTimeline (layout at the top of this file). position[node] = the node's depth-first index.
std::string timeline_section(const TimelineChart& c, const std::vector<uint32_t>& position) {
  const int64_t origin = c.trace_start;
  // Relative times; none is before the origin (the trace's first event), except steps, whose
  // events may have been left out by --categories.
  auto rel = [&](int64_t t) { return static_cast<uint64_t>(t - origin); };
  std::string out;
  put_varint(out, 1);
  put_zigzag(out, origin);
  put_varint(out, rel(c.trace_end));
  put_varint(out, c.trace_events);
  put_varint(out, c.limit);
  put_varint(out, static_cast<uint64_t>(c.scope));
  put_zigzag(out, c.first_step);
  put_zigzag(out, c.last_step);
  put_varint(out, rel(c.window_start));
  put_varint(out, rel(c.window_end));
  put_varint(out, (c.steps_option ? 1 : 0) | (c.window_option ? 2 : 0));
  put_varint(out, c.ranks.size());
  for (const std::string& r : c.ranks) put_text(out, r);
  put_varint(out, c.lanes.size());
  for (const TimelineChart::Lane& l : c.lanes) {
    put_varint(out, uint64_t(l.rank) << 1 | (l.device ? 1 : 0));
    put_zigzag(out, l.pid);
    put_zigzag(out, l.tid);
    put_text(out, l.name);
    put_text(out, l.process);
  }
  put_varint(out, c.steps.size());
  int64_t number = 0, start = origin;
  for (const TimelineChart::Step& s : c.steps) {
    put_varint(out, s.rank);
    put_zigzag(out, s.number - number);
    put_zigzag(out, s.start - start);
    put_varint(out, static_cast<uint64_t>(s.end - s.start));
    number = s.number;
    start = s.start;
  }
  put_zigzag(out, c.busy_start - origin);
  put_varint(out, static_cast<uint64_t>(c.bucket_ns));
  put_varint(out, c.host_busy.size());
  for (int64_t v : c.host_busy) put_varint(out, static_cast<uint64_t>(v));
  for (int64_t v : c.device_busy) put_varint(out, static_cast<uint64_t>(v));

  const size_t n = c.events.size();
  put_varint(out, n);
  {
    std::vector<uint64_t> per_lane(c.lanes.size(), 0);
    for (const TimelineChart::Event& e : c.events) ++per_lane[e.lane];
    for (uint64_t k : per_lane) put_varint(out, k);
  }
  out.reserve(out.size() + n * 10);
  int64_t previous = 0;
  for (size_t i = 0; i < n; ++i) {
    const TimelineChart::Event& e = c.events[i];
    const int64_t s = e.start - origin;
    if (i == 0 || c.events[i - 1].lane != e.lane) previous = 0;
    put_varint(out, static_cast<uint64_t>(s - previous));
    previous = s;
  }
  for (const TimelineChart::Event& e : c.events) put_varint(out, static_cast<uint64_t>(e.end - e.start));
  int64_t node = 0;
  for (const TimelineChart::Event& e : c.events) {
    const int64_t v = e.node < position.size() ? position[e.node] : 0;
    put_zigzag(out, v - node);
    node = v;
  }
  int64_t launch = 0;
  for (const TimelineChart::Event& e : c.events) {
    if (e.launch == kNone) {
      out.push_back(0);
      continue;
    }
    const int64_t d = static_cast<int64_t>(e.launch) - launch;
    put_varint(out, 1 + ((static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63)));
    launch = e.launch;
  }
  return out;
}

// Whether the nodes are in depth-first order already, each one's children in frame rank order
// (the canonical trees of the folded reader are): the payload's order then, found in one pass,
// with each node's depth.
bool in_payload_order(const Profile& p, const std::vector<uint32_t>& rank, std::vector<uint32_t>& depth) {
  const size_t n = p.node_count();
  std::vector<NodeId> path{0};       // from the root to the node before
  std::vector<uint32_t> last_rank{0};  // per depth: the rank of the last child under the node above
  std::vector<uint8_t> has_last{0};
  for (size_t i = 1; i < n; ++i) {
    if (i + 16 < n) flamefold::prefetch(&rank[p.frame[i + 16]]);
    const NodeId parent = p.parent[i];
    while (!path.empty() && path.back() != parent) path.pop_back();
    if (path.empty()) return false;
    const size_t d = path.size();
    const uint32_t r = rank[p.frame[i]];
    if (last_rank.size() <= d + 1) {
      last_rank.resize(d + 2, 0);
      has_last.resize(d + 2, 0);
    }
    if (has_last[d] && last_rank[d] >= r) return false;
    last_rank[d] = r;
    has_last[d] = 1;
    has_last[d + 1] = 0;  // its children come next
    depth[i] = static_cast<uint32_t>(d);
    path.push_back(static_cast<NodeId>(i));
  }
  return true;
}

// The nodes in depth-first order, each one's children in frame rank order, and their depths.
void depth_first_by_rank(const Profile& p, const std::vector<uint32_t>& rank, size_t ranks, std::vector<NodeId>& dfs,
                         std::vector<uint32_t>& depth) {
  const size_t n = p.node_count();
  // Children of every node sorted by frame rank: a counting sort by rank, then a stable
  // counting sort by parent, gives each node's children as one sorted run (CSR).
  std::vector<uint32_t> by_rank_start(ranks + 1, 0);
  for (size_t i = 1; i < n; ++i) ++by_rank_start[rank[p.frame[i]] + 1];
  for (size_t r = 0; r < ranks; ++r) by_rank_start[r + 1] += by_rank_start[r];
  std::vector<NodeId> by_rank(n > 0 ? n - 1 : 0);
  for (size_t i = 1; i < n; ++i) by_rank[by_rank_start[rank[p.frame[i]]]++] = static_cast<NodeId>(i);
  std::vector<uint32_t> child_start(n + 1, 0);
  for (size_t i = 1; i < n; ++i) ++child_start[p.parent[i] + 1];
  for (size_t i = 0; i < n; ++i) child_start[i + 1] += child_start[i];
  std::vector<NodeId> children(by_rank.size());
  {
    std::vector<uint32_t> fill(child_start.begin(), child_start.end() - 1);
    for (NodeId c : by_rank) children[fill[p.parent[c]]++] = c;
  }
  std::vector<NodeId>().swap(by_rank);  // (`= {}` would keep its memory)
  dfs.clear();
  dfs.reserve(n);
  std::vector<NodeId> stack{0};
  while (!stack.empty()) {
    NodeId v = stack.back();
    stack.pop_back();
    dfs.push_back(v);
    for (uint32_t k = child_start[v + 1]; k > child_start[v]; --k) {
      NodeId c = children[k - 1];
      depth[c] = depth[v] + 1;
      stack.push_back(c);
    }
  }
}

// Strings in use come in frame order, not in the order they are kept: their views are gathered
// in that order as they are numbered, and for string k the text of the one kStringsAhead later
// is requested (a cache miss each).
constexpr size_t kStringsAhead = 16;

// Front-codes strings [from, to) of `strings` (in that order; `from` starts a block of
// kFrontRestart): per string, the UTF-16 units it shares with the one before and the units of
// the rest into `lengths`, the rest's UTF-8 into `blob`. Text that is not valid UTF-8 is cleaned
// first. With `members` (whose buffer() is `blob`), full members are cut as it goes. Returns the
// bytes added to `blob`.
size_t front_code(const std::vector<std::string_view>& strings, size_t from, size_t to, std::string& lengths,
                  std::string& blob, GzipMembers* members) {
  std::string cleaned[2];  // the string before and this one, when not valid UTF-8 as kept
  auto valid = [&](size_t k) {
    std::string_view s = strings[k];
    if (is_valid_utf8(s)) return s;
    std::string& c = cleaned[k & 1];
    c.clear();
    append_valid_utf8(c, s);
    return std::string_view(c);
  };
  std::string_view before;
  size_t bytes = 0;
  // The lengths are written through a pointer, into room made for a block of strings at a time.
  constexpr size_t kRoomFor = 1024;
  char* w = nullptr;
  size_t room_left = 0;
  for (size_t k = from; k < to; ++k) {
    if (room_left == 0) {
      const size_t at = w ? static_cast<size_t>(w - lengths.data()) : lengths.size();
      lengths.resize(at + kRoomFor * 20);
      w = lengths.data() + at;
      room_left = kRoomFor;
    }
    --room_left;
    if (k % kFrontRestart == 0) before = {};  // a block starts: this string is whole
    if (k + kStringsAhead < to) flamefold::prefetch(strings[k + kStringsAhead].data());
    const std::string_view s = valid(k);
    size_t shared = 0;
    const size_t most = std::min(before.size(), s.size());
    for (uint64_t a, b; shared + 8 <= most && (std::memcpy(&a, before.data() + shared, 8),
                                               std::memcpy(&b, s.data() + shared, 8), a == b);)
      shared += 8;
    while (shared < most && before[shared] == s[shared]) ++shared;
    while (shared > 0 && shared < s.size() && (static_cast<unsigned char>(s[shared]) & 0xC0) == 0x80) --shared;
    const std::string_view suffix = s.substr(shared);
    w = put_varint(w, utf16_units(s.substr(0, shared)));
    w = put_varint(w, utf16_units(suffix));
    blob += suffix;
    bytes += suffix.size();
    before = s;
    if (members && (k & 1023) == 1023) members->cut_if_full();  // `before` stays where it is kept
  }
  if (w) lengths.resize(static_cast<size_t>(w - lengths.data()));
  return bytes;
}

// The tree, column by column: the node count, each node's depth step and frame rank, then each
// weight column (varints when every weight is a whole number, else doubles).
void put_tree(std::string& out, const Profile& p, const std::vector<NodeId>& dfs, const std::vector<uint32_t>& depth,
              const std::vector<uint32_t>& rank) {
  put_varint(out, dfs.size());
  const size_t steps = dfs.empty() ? 0 : dfs.size() - 1;
  put_varints(out, steps, [&](size_t k) { return depth[dfs[k]] + 1 - depth[dfs[k + 1]]; });
  put_varints(out, steps, [&](size_t k) { return rank[p.frame[dfs[k + 1]]]; });
  for (const WeightColumn& col : p.columns) {
    bool integral = true;
    for (double v : col.self)
      if (!(v >= 0 && v < 9007199254740992.0 && v == std::floor(v))) {
        integral = false;
        break;
      }
    out.push_back(integral ? 0 : 1);
    if (integral) {
      put_varints(out, dfs.size(), [&](size_t k) { return static_cast<uint64_t>(col.self[dfs[k]]); });
    } else {
      for (size_t k = 0; k < dfs.size(); ++k) {
        char b[8];
        std::memcpy(b, &col.self[dfs[k]], 8);
        out.append(b, 8);
      }
    }
  }
}

// The tree's columns of a profile with this many nodes or more are made on a second thread
// while the frames and strings are.
constexpr size_t kTreeAside = size_t(1) << 16;

// Front-coded strings are split between two threads from this many on.
constexpr size_t kSplitStrings = size_t(1) << 16;

// Payloads of at least this many bytes are compressed at level 1 rather than 6, and, when that
// is known before they are built, front-coded and in members of kMemberBytes on a second thread
// while they are. A million-node profile makes ~46 MB: 4x faster, 0.40 -> ~0.1 s, for a file
// ~10 % larger. From 16 MB down to 4 MB (2026-11-28): a 16 MB payload of 449k nodes took 0.4 s
// to compress whole at level 6, and its page gets smaller too (5.25 -> 4.93 MB), front-coded.
constexpr size_t kFastCompressionFrom = size_t(4) << 20;
constexpr size_t kMemberBytes = size_t(4) << 20;

// Builds the payload into `whole`, or, when it is known to reach kFastCompressionFrom before any of
// it is written, hands it to `emit` as gzip members instead (then returns true). timeline: where
// the flame chart's section lies in `whole` (empty when there is none).
bool build_payload(const Profile& p, const WriteOptions& o, std::string& whole, const GzipMembers::Emit& emit,
                   std::pair<size_t, size_t>& timeline) {
  const Symbols& sym = p.symbols;
  const size_t n = p.node_count();
  const size_t frame_count = sym.frame_count();

  // Frames in use, renumbered in (name, file, line, category) order.
  std::vector<uint8_t> used(frame_count, 0);
  for (size_t i = 1; i < n; ++i) used[p.frame[i]] = 1;
  std::vector<FrameId> order;
  for (FrameId f = 0; f < frame_count; ++f)
    if (used[f]) order.push_back(f);
  std::vector<Frame> in_order;  // the frames in that order
  sort_frames(sym, order, in_order);
  std::vector<uint32_t> rank(frame_count, 0);
  for (uint32_t r = 0; r < order.size(); ++r) rank[order[r]] = r;

  // The nodes in depth-first order, each one's children in frame rank order, and their depths,
  // then the tree's columns (`tree`, which follows the frames in the payload); for a big tree on
  // a second thread, while the frames and strings are made here.
  std::vector<NodeId> dfs;
  std::vector<uint32_t> depth(n, 0);
  std::string tree;
  auto make_tree = [&] {
    if (!in_payload_order(p, rank, depth)) {
      depth_first_by_rank(p, rank, order.size(), dfs, depth);
    } else {
      dfs.resize(n);
      for (size_t i = 0; i < n; ++i) dfs[i] = static_cast<NodeId>(i);
    }
    put_tree(tree, p, dfs, depth, rank);
  };
  std::future<void> tree_made;  // joins in its destructor, before what it uses goes
  if (n >= kTreeAside) tree_made = std::async(std::launch::async, make_tree);
  else make_tree();

  // Strings and categories actually referred to, in first-use order.
  std::vector<uint32_t> string_index(sym.strings.size(), UINT32_MAX);
  std::vector<std::string_view> strings;  // their texts, as kept
  size_t string_bytes = 0;  // of those strings, as kept (cleaned UTF-8 is no shorter)
  auto intern = [&](StrId s) {
    if (string_index[s] == UINT32_MAX) {
      string_index[s] = static_cast<uint32_t>(strings.size());
      strings.push_back(sym.strings[s]);
      string_bytes += strings.back().size();
    }
    return string_index[s];
  };
  intern(0);  // "" is string 0: unknown file
  std::vector<uint32_t> category_index(sym.category_count(), UINT32_MAX);
  std::vector<std::string_view> categories{""};
  category_index[0] = 0;
  std::string frames_out;
  put_varint(frames_out, order.size());
  uint32_t previous_name = 0;  // names are written as the difference from the one before
  put_varints(frames_out, in_order.size(), [&](size_t r) {  // called in order
    if (r + 16 < in_order.size()) {
      flamefold::prefetch(&string_index[in_order[r + 16].name]);
      sym.strings.prefetch_view(in_order[r + 16].name);
    }
    const uint32_t name = intern(in_order[r].name), step = name - previous_name;
    previous_name = name;
    return step;
  });
  put_varints(frames_out, in_order.size(), [&](size_t r) { return intern(in_order[r].file); });
  put_varints(frames_out, in_order.size(), [&](size_t r) { return in_order[r].line; });
  put_varints(frames_out, in_order.size(), [&](size_t r) {
    const CategoryId c = in_order[r].category;
    if (category_index[c] == UINT32_MAX) {
      category_index[c] = static_cast<uint32_t>(categories.size());
      categories.push_back(sym.category_name(c));
    }
    return category_index[c];
  });

  std::vector<Frame>().swap(in_order);  // (`= {}` would keep its memory)

  int default_column = o.column >= 0 && o.column < static_cast<int>(p.columns.size()) ? o.column
                                                                                        : p.default_column;

  // Would the payload reach kFastCompressionFrom? It has at least one byte per string's length,
  // the strings, the frames, and one byte per node for its depth step, its frame and each column.
  const size_t at_least = strings.size() + string_bytes + frames_out.size() + (n + 1) * (2 + p.columns.size());
  std::string second_blob;  // the strings' second half when front-coded on two threads
  std::optional<GzipMembers> members;  // after the bytes it compresses in place: stops before they go
  if (at_least >= kFastCompressionFrom) members.emplace(1, kMemberBytes, emit, "the HTML payload");
  std::string& payload = members ? members->buffer() : whole;
  std::string head = "FFD1";
  {
    const std::string header = header_json(p, o, default_column, categories, /*front_coded=*/members.has_value());
    put_varint(head, header.size());
    head += header;
  }
  put_varint(head, strings.size());

  const size_t string_count = strings.size();
  std::string lengths;
  if (members) {
    // Front-coded: the names come sorted, and each shares a long prefix with the one before
    // (half the bytes of a million Python frames): a string is its prefix's length in UTF-16
    // units, its suffix's, and the suffix in the blob. The strings go straight into members,
    // compressed while the rest is read; the part before them (the lengths, the blob's byte
    // count) takes its place in the stream once known.
    const size_t head_member = members->reserve();
    // Two halves on two threads (a string's cost is mostly two cache misses, where it is kept
    // and its text): the first straight into members, the second into a blob of its own that
    // follows it, kept until finish(). The second half starts at a block (kFrontRestart), so
    // the bytes are those of one pass.
    const size_t half = string_count >= kSplitStrings ? string_count / 2 / kFrontRestart * kFrontRestart : string_count;
    std::string second_lengths;
    size_t second_bytes = 0;  // at most: the second half's strings whole (room made once)
    for (size_t k = half; k < string_count; ++k) second_bytes += strings[k].size();
    second_blob.reserve(second_bytes);
    size_t blob_bytes = 0;
    auto first = [&] { blob_bytes = front_code(strings, 0, half, lengths, members->buffer(), &*members); };
    if (half < string_count)
      on_two_threads(first, [&] { front_code(strings, half, string_count, second_lengths, second_blob, nullptr); });
    else
      first();
    head += lengths;
    head += second_lengths;
    put_varint(head, blob_bytes + second_blob.size());
    members->fill(head_member, std::move(head));
    members->add_stable(second_blob);
    members->add_stable(frames_out);
  } else {
    std::string blob;
    blob.reserve(string_bytes);
    for (size_t k = 0; k < strings.size(); ++k) {
      if (k + kStringsAhead < string_count) flamefold::prefetch(strings[k + kStringsAhead].data());
      put_varint(lengths, append_valid_utf8(blob, strings[k]));
    }
    head += lengths;
    put_varint(head, blob.size());
    // The whole payload at once: no regrowing copies of the strings.
    if (tree_made.valid()) tree_made.get();
    payload.reserve(head.size() + blob.size() + frames_out.size() + tree.size());
    payload += head;
    payload += blob;
    std::string().swap(blob);
    payload += frames_out;
  }

  if (tree_made.valid()) tree_made.get();
  if (members) members->add_stable(tree);
  else payload += tree;
  if (p.chart) {
    std::vector<uint32_t> position(n, 0);
    for (size_t k = 0; k < dfs.size(); ++k) position[dfs[k]] = static_cast<uint32_t>(k);
    timeline.first = payload.size();
    put_section(payload, PayloadSection::kTimeline, timeline_section(*p.chart, position));
    timeline.second = payload.size();
  }
  if (!p.device_ops.empty()) put_section(payload, PayloadSection::kDeviceOps, html_sections::device_ops(p, rank, used));
  if (!o.source_roots.empty())
    put_section(payload, PayloadSection::kSources,
                html_sections::sources(p, default_column, rank, used, o.source_roots));
  if (members) members->finish();
  return members.has_value();
}

// A payload built whole (too small for members while it is built) of this many bytes or more is
// still compressed as two members, one by GzipMembers' worker and one by the writer: level 6
// takes 10-15 ms for the 0.8 MB of a 1M-call Ascend DB, with nothing else to run beside it.
constexpr size_t kTwoMembersFrom = size_t(256) << 10;

// A flame chart section of this many bytes or more is compressed at level 1, in members of its
// own: its varint deltas gain 3 % from level 6 at 5x the time (the 1M-call Ascend DB's 0.73 MB:
// 478 against 464 KB, 1.5 against 7.6 ms on one core).
constexpr size_t kFastTimelineFrom = size_t(64) << 10;

void append_base64(std::string& out, std::string_view in) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  size_t n = in.size(), i = 0, o = out.size();
  out.resize(o + (n + 2) / 3 * 4);
  char* d = out.data() + o;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = uint32_t(p[i]) << 16 | uint32_t(p[i + 1]) << 8 | p[i + 2];
    *d++ = kAlphabet[v >> 18];
    *d++ = kAlphabet[(v >> 12) & 63];
    *d++ = kAlphabet[(v >> 6) & 63];
    *d++ = kAlphabet[v & 63];
  }
  if (i < n) {
    uint32_t v = uint32_t(p[i]) << 16 | (i + 1 < n ? uint32_t(p[i + 1]) << 8 : 0);
    *d++ = kAlphabet[v >> 18];
    *d++ = kAlphabet[(v >> 12) & 63];
    *d++ = i + 1 < n ? kAlphabet[(v >> 6) & 63] : '=';
    *d++ = '=';
  }
}

std::string_view asset(std::string_view name) {
  std::string_view a = web_asset(name);
  if (a.empty()) throw std::runtime_error("the HTML viewer asset web/" + std::string(name) + " is missing from this build");
  return a;
}

}  // namespace

void write_html(const Profile& profile, OutputFile& out, const WriteOptions& options) {
  if (profile.columns.empty()) throw std::runtime_error("the profile has no weights to draw");
  // The template is copied verbatim up to each of its markers, which come in this order.
  std::string_view page = asset("viewer.html");
  auto up_to = [&](std::string_view marker) {
    size_t at = page.find(marker);
    if (at == std::string_view::npos) throw std::runtime_error("web/viewer.html lacks the marker " + std::string(marker));
    out.write(page.substr(0, at));
    page.remove_prefix(at + marker.size());
  };
  up_to("<!--FF:TITLE-->");
  append_html_text(out.buffer(), options.title.empty() ? "Flame Graph" : options.title);
  up_to("/*FF:STYLE*/");
  out.write(asset("viewer.css"));
  up_to("<!--FF:DATA-->");
  // A big payload is written as it is compressed: each gzip member in base64 of its own, the
  // members separated by '.' (the page inflates them one by one and joins them).
  size_t members = 0;
  auto emit = [&](std::string_view member) {
    if (members++) out.put('.');
    append_base64(out.buffer(), member);
    out.maybe_flush();
  };
  std::string payload;
  std::pair<size_t, size_t> timeline{0, 0};
  if (!build_payload(profile, options, payload, emit, timeline)) {
    // Level 1 only when the payload outgrew the estimate it was built by.
    const size_t n = payload.size();
    GzipMembers whole(n >= kFastCompressionFrom ? 1 : 6, n >= kTwoMembersFrom ? (n + 1) / 2 : n, emit, "the HTML payload");
    const std::string_view all = payload;
    if (timeline.second - timeline.first >= kFastTimelineFrom) {
      whole.add_stable(all.substr(0, timeline.first));
      whole.add_stable(all.substr(timeline.first, timeline.second - timeline.first), 1);
      whole.add_stable(all.substr(timeline.second));
    } else {
      whole.add_stable(all);
    }
    whole.finish();
  }
  up_to("/*FF:SCRIPT*/");
  out.write(asset("viewer.js"));
  out.write(page);
}

}  // namespace flamefold
