#include "flamefold/json_text.h"
#include "flamefold/writers/top.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "flamefold/frame_label.h"
#include "flamefold/function_stats.h"
#include "flamefold/writers/folded.h"
#include "flamefold/writers/kernel_summary.h"

namespace flamefold {

namespace {


std::string human(double w, const std::string& unit) {
  if (unit == "ns") {
    double a = std::fabs(w);
    if (a >= 1e9) return fmt::format("{:.3f} s", w / 1e9);
    if (a >= 1e6) return fmt::format("{:.3f} ms", w / 1e6);
    if (a >= 1e3) return fmt::format("{:.3f} us", w / 1e3);
    return fmt::format("{} ns", static_cast<int64_t>(w));
  }
  std::string s;
  append_weight(s, w);
  return s;
}

// The kernel summary that `top --weight gpu|npu|kernels` prints after the frames (see
// kernel_summary.cpp), as JSON: the same rows and limit, times in ns.
void append_kernels_json(const Profile& p, std::string& b, const WriteOptions& o) {
  const DeviceOpsTotals t = device_ops_totals(p, o);
  const int64_t all = t.total_ns;
  const size_t rows = t.rows;
  b += fmt::format(",\"kernel_unit\":\"ns\",\"kernel_total\":{},\"kernel_count\":{},\"kernel_names\":{},\"kernels\":[",
                   all, t.count, p.device_ops.size());
  for (size_t i = 0; i < rows; ++i) {
    const DeviceOpStats& s = p.device_ops[i];  // sorted by total time, then name
    if (i) b.push_back(',');
    b += "\n{\"name\":";
    append_json_string(b, p.symbols.name(s.frame));
    b += ",\"kind\":";
    append_json_string(b, p.symbols.category_name(p.symbols[s.frame].category));
    b += fmt::format(",\"count\":{},\"total\":{},\"mean\":{:.1f},\"min\":{},\"max\":{},\"percent\":{:.4f}}}", s.count,
                     s.total_ns, s.count ? double(s.total_ns) / double(s.count) : 0.0, s.min_ns, s.max_ns,
                     all ? 100.0 * double(s.total_ns) / double(all) : 0.0);
  }
  b += "\n]";
}

}  // namespace

void write_top(const Profile& p, int column, OutputFile& out, const WriteOptions& o) {
  std::vector<FrameStats> stats = frame_stats(p, column);
  bool by_total = o.sort == "total" || o.sort == "cumulative" || o.sort == "cum";
  std::stable_sort(stats.begin(), stats.end(), [&](const FrameStats& a, const FrameStats& b) {
    double ka = by_total ? a.total : a.self, kb = by_total ? b.total : b.self;
    if (ka != kb) return ka > kb;
    return a.frame < b.frame;
  });
  double all = p.total(column);
  const WeightColumn& col = p.columns[column];
  size_t rows = std::min(stats.size(), o.limit ? o.limit : stats.size());
  std::string& b = out.buffer();
  if (o.json) {
    b += "{\"weight\":";
    append_json_string(b, col.name);
    b += ",\"unit\":";
    append_json_string(b, col.unit);
    b += ",\"total\":";
    append_weight(b, all);
    b += ",\"sort\":";
    append_json_string(b, by_total ? "total" : "self");
    b += ",\"frames\":[";
    for (size_t i = 0; i < rows; ++i) {
      const FrameStats& s = stats[i];
      if (i) b.push_back(',');
      b += "\n{\"name\":";
      append_json_string(b, p.symbols.name(s.frame));
      const Frame& f = p.symbols[s.frame];
      if (f.file) {
        b += ",\"file\":";
        append_json_string(b, p.symbols.strings[f.file]);
        b += fmt::format(",\"line\":{}", f.line);
      }
      if (f.category) {
        b += ",\"category\":";
        append_json_string(b, p.symbols.category_name(f.category));
      }
      b += ",\"self\":";
      append_weight(b, s.self);
      b += ",\"total\":";
      append_weight(b, s.total);
      b += fmt::format(",\"self_pct\":{:.4f},\"total_pct\":{:.4f}}}", all ? 100 * s.self / all : 0.0,
                       all ? 100 * s.total / all : 0.0);
      out.maybe_flush();
    }
    b += "\n]";
    // Device views carry the kernel summary, as the text output does.
    if (!p.device_ops.empty() && (col.name == "gpu" || col.name == "npu" || col.name == "kernels"))
      append_kernels_json(p, b, o);
    b += "}\n";
    return;
  }
  // The unit the input gives, named once in the header: "90.090 ms", "1,234 samples", "5,000 cycles".
  std::string total = human(all, col.unit);
  if (col.unit != "ns" && col.unit != "count" && !col.unit.empty()) total += " " + col.unit;
  b += fmt::format("{}: total {} ({} frames{})\n", col.name, total, stats.size(),
                   rows < stats.size() ? fmt::format(", top {} by {}", rows, by_total ? "total" : "self") : "");
  b += fmt::format("{:>14} {:>7} {:>14} {:>7}  {}\n", "self", "self%", "total", "total%", "frame");
  for (size_t i = 0; i < rows; ++i) {
    const FrameStats& s = stats[i];
    b += fmt::format("{:>14} {:>6.2f}% {:>14} {:>6.2f}%  ", human(s.self, col.unit), all ? 100 * s.self / all : 0.0,
                     human(s.total, col.unit), all ? 100 * s.total / all : 0.0);
    append_frame_label(b, p.symbols, s.frame);
    b.push_back('\n');
    out.maybe_flush();
  }
}

}  // namespace flamefold
