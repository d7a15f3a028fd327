// Options that travel from the CLI to readers and writers. Each reader/writer reads only
// the fields that concern it; defaults match the tools flamefold replaces.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace flamefold {

// stackcollapse-perf.pl's switches.
struct PerfOptions {
  bool pid = false;     // --pid: comm-pid as the root frame
  bool tid = false;     // --tid: comm-pid/tid as the root frame
  bool kernel = false;  // --kernel: annotate kernel frames with _[k]
  bool jit = false;     // --jit: annotate JIT frames with _[j]
  bool all = false;     // --all: both annotations
  bool addrs = false;   // --addrs: keep raw addresses for unknown symbols
  bool inline_ = false; // --inline (addr2line is not run; kept for compatibility)
  std::string event_filter;  // only samples of this event; default: the first event seen
};

// The switches of the other collapsers (stackcollapse-*.pl, inferno-collapse-*), off by default
// as theirs are.
struct CollapseOptions {
  bool include_offset = false;  // dtrace --includeoffset: keep function offsets (but the leaf's)
  bool no_modules = false;      // sample, vtune --no-modules: function names without their module
  std::string ghc_source;       // ghcprof: "" or "time" (%time), "ticks", "bytes" (--ticks, --bytes)
  bool include_tid = false;     // jstack --include-tid: thread names keep their "-N"
  bool no_thread_name = false;  // jstack --no-include-tname: no thread frame
  bool shorten_pkgs = false;    // jstack --shorten-pkgs: com.example.Foo.bar -> c.e.Foo.bar
};

struct ReadOptions {
  std::string format;  // empty = sniff from content
  PerfOptions perf;
  CollapseOptions collapse;
  // Which weight the writers use: "" = the reader's default; "samples", "cpu", "gpu",
  // "npu", "kernels" (device op count), "calls".
  std::string weight;
  std::string stacks;                // how to build stacks when a format offers several
  std::string steps;                 // ProfilerStep selection: "3", "3-5", "3,5"
  std::vector<std::string> threads;  // thread names or ids to keep; empty = all
  std::vector<std::string> categories;  // event categories to keep; empty = all
  // Traces: the group levels above the stacks: "process" (process > thread), "thread" (threads
  // only), "none" (no level: threads merged), "" = the format's default (BuildOptions).
  // Several input ranks keep their rank level in every mode.
  std::string group_by;
  int64_t window_start_ns = std::numeric_limits<int64_t>::min();
  int64_t window_end_ns = std::numeric_limits<int64_t>::max();
  uint64_t max_input_bytes = 0;  // 0 = no cap
  // Ascend DBs: --category-rule CATEGORY=KW,KW (replace) or CATEGORY+=KW,KW (add); CATEGORY is
  // cann, python_framework or python (MindStudio flamegraph.py's keyword rules).
  std::vector<std::string> category_rules;
  bool progress = false;         // show a progress line on stderr
  unsigned threads_to_use = 0;   // worker threads; 0 = all cores
  // Streaming readers: the memory each of their spools (external sorts) holds before it spills
  // sorted runs to a temporary file; 0 = the default (spool.h). Tests make it tiny.
  size_t spool_bytes = 0;
  // Traces: events kept for the HTML viewer's flame chart (Profile::chart), at most this many;
  // 0 = no chart (what every output but HTML asks for). See timeline/chart.h.
  uint64_t chart_events = 0;
  // chart_events is the CLI's default, not the user's choice: the streamed database readers
  // (TraceBuilder) then keep at most kStreamedChartEvents, so that the chart does not cost more
  // memory than their flame graph (a 1M-call Ascend DB: ~35 MB without a chart, 80 MB with 1M
  // chart events, 39 MB with 100k); so do traces read as a timeline that hold more than
  // big_trace_events events (a 1 GB Kineto trace -> HTML: 177 MB with 1M chart events, 147 MB
  // with 100k, as without a chart). Tests lower big_trace_events.
  bool chart_events_default = false;
  uint64_t big_trace_events = 2000000;
  // Chrome/Kineto traces: build the profile as the events stream by (TraceBuilder: memory that
  // follows the call tree) instead of from a timeline of every event (37 B per event, faster).
  // 0: when the trace is 2 GB or more (readers/json/kineto.h); 1: always; -1: never. Traces
  // whose events need the whole file first (see kineto.cpp) are read as a timeline either way.
  int stream_traces = 0;
};

inline constexpr uint64_t kStreamedChartEvents = 100000;

// The flame chart's bound for a reader: what the user asked, or, when that is the CLI's default
// and the chart would cost more memory than the flame graph (a streamed input, or a timeline of
// more than big_trace_events events), kStreamedChartEvents.
inline uint64_t chart_event_bound(const ReadOptions& r, bool streamed_or_big) {
  return r.chart_events_default && streamed_or_big ? std::min(r.chart_events, kStreamedChartEvents) : r.chart_events;
}

// Readable ML stacks (readable_names.h): what --short-names and --merge-modules ask for.
struct NameOptions {
  bool short_names = false;    // C++ templates and parameter lists collapsed
  bool merge_modules = false;  // nn.Module: X_0 ... X_23 -> nn.Module: X, subtrees merged
  bool any() const { return short_names || merge_modules; }
};

struct WriteOptions {
  std::string title;      // empty = a title from the input
  std::string subtitle;
  std::string countname;  // "samples", "ns" ... empty = from the column's unit
  std::string palette = "hot";
  int width = 1200;
  double minwidth = 0.1;  // SVG: omit frames narrower than this many pixels
  double minwidth_percent = 0;  // SVG: ... or than this % of the total, when > 0 (--minwidth 0.5%)
  bool inverted = false;  // icicle
  bool reverse = false;   // reverse stacks (leaf first)
  bool json = false;      // top: JSON for scripts
  std::string sort = "self";  // top: self | total (| cumulative, tottime, calls ...)
  size_t limit = 30;          // top: rows
  int column = -1;            // weight column; -1 = the profile's default
  // SVG only (flamegraph.pl's switches of the same names).
  int frame_height = 16;              // --height
  std::string font_type = "Verdana";  // --fonttype
  double font_size = 12;              // --fontsize
  double font_width = 0.59;           // --fontwidth: average glyph width / font size
  std::string name_type = "Function:";  // --nametype: label before the name in the details bar
  std::string notes;                  // --notes: put in a comment at the top of the SVG
  std::string bgcolors;               // --bgcolors: yellow, blue, green, grey, #rrggbb; "" = by palette
  std::string search_color = "rgb(230,0,230)";  // --search-color
  bool negate = false;                // --negate: differential hues swapped (blue = grew)
  // Profile transforms applied before any writer; the HTML page keeps the full names and turns
  // its own switches on instead (pipeline/write.cpp).
  NameOptions names;
  // HTML: folders whose source files give the lines around frames' file:line (--source-root).
  std::vector<std::string> source_roots;
  // --to: the output kind by name (html, svg, folded, speedscope, pprof), for paths whose
  // extension does not say it (-, /dev/stdout, a pipe); "" = by the extension.
  std::string to;
};

// "--window 100:250" (ms), "1.5s:2s", ":300ms", "20us:" -> the window fields of `r` (ns from the
// first event). Throws UsageError on text it cannot read. Shared by the CLI and the bindings.
void parse_time_window(const std::string& text, ReadOptions& r);

}  // namespace flamefold
