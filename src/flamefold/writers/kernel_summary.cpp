#include "flamefold/writers/kernel_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace flamefold {

namespace {
std::string duration(double ns) {
  double a = std::fabs(ns);
  if (a >= 1e9) return fmt::format("{:.3f} s", ns / 1e9);
  if (a >= 1e6) return fmt::format("{:.3f} ms", ns / 1e6);
  if (a >= 1e3) return fmt::format("{:.3f} us", ns / 1e3);
  return fmt::format("{:.0f} ns", ns);
}
}  // namespace

DeviceOpsTotals device_ops_totals(const Profile& p, const WriteOptions& o) {
  DeviceOpsTotals t;
  for (const DeviceOpStats& s : p.device_ops) {
    t.total_ns += s.total_ns;
    t.count += s.count;
  }
  t.rows = std::min(p.device_ops.size(), o.limit ? o.limit : p.device_ops.size());
  return t;
}

void write_kernel_summary(const Profile& p, OutputFile& out, const WriteOptions& o) {
  if (p.device_ops.empty()) return;
  const DeviceOpsTotals t = device_ops_totals(p, o);
  const int64_t all = t.total_ns;
  const uint64_t ops = t.count;
  const size_t rows = t.rows;  // device_ops is sorted by total time (descending), then name
  std::string& b = out.buffer();
  b += fmt::format("\ndevice operations: {} in {} names, total {}{}\n", ops, p.device_ops.size(), duration(double(all)),
                   rows < p.device_ops.size() ? fmt::format(" (top {} by total time)", rows) : "");
  b += fmt::format("{:>7} {:>14} {:>9} {:>12} {:>12} {:>12}  {:<8} {}\n", "time%", "total", "count", "mean", "min", "max",
                   "kind", "name");
  for (size_t i = 0; i < rows; ++i) {
    const DeviceOpStats& s = p.device_ops[i];
    b += fmt::format("{:>6.2f}% {:>14} {:>9} {:>12} {:>12} {:>12}  {:<8} ", all ? 100.0 * double(s.total_ns) / double(all) : 0.0,
                     duration(double(s.total_ns)), s.count, duration(double(s.total_ns) / double(s.count)),
                     duration(double(s.min_ns)), duration(double(s.max_ns)),
                     p.symbols.category_name(p.symbols[s.frame].category));
    b += p.symbols.name(s.frame);
    b.push_back('\n');
    out.maybe_flush();
  }
}

}  // namespace flamefold
