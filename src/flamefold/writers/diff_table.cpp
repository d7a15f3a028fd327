#include "flamefold/writers/diff_table.h"

#include <algorithm>
#include <cmath>

#include "flamefold/frame_label.h"
#include "flamefold/json_text.h"
#include "flamefold/writers/folded.h"

namespace flamefold {

namespace {

double before_sum(const Profile& p, int column) {
  const int b = before_column(p, column);
  return b >= 0 ? p.total(b) : 0;
}

std::string percent_text(double part, double whole) {
  if (whole == 0) return part == 0 ? "0.00%" : "new";
  return fmt::format("{:+.2f}%", 100 * part / whole);
}

}  // namespace

std::vector<FrameChange> regressions(const Profile& p, int column, double percent) {
  const double limit = percent / 100 * before_sum(p, column);
  std::vector<FrameChange> out;
  for (const FrameChange& c : frame_changes(p, column))
    if (c.after_total - c.before_total > limit) out.push_back(c);
  std::stable_sort(out.begin(), out.end(), [](const FrameChange& a, const FrameChange& b) {
    return a.after_total - a.before_total > b.after_total - b.before_total;
  });
  return out;
}

std::string regression_report(const Profile& p, int column, const std::vector<FrameChange>& grew) {
  const double whole = before_sum(p, column);
  const std::string& unit = p.columns[column].unit;
  std::string out;
  for (const FrameChange& c : grew) {
    const double d = c.after_total - c.before_total;
    out += "flamefold: regression: " + frame_label(p.symbols, c.frame) + " grew by ";
    append_weight(out, d);
    out += " " + unit + " (" + percent_text(d, whole) + " of the before total; " ;
    append_weight(out, c.before_total);
    out += " -> ";
    append_weight(out, c.after_total);
    out += ")\n";
  }
  return out;
}

void write_diff_table(const Profile& p, int column, OutputFile& out, const WriteOptions& o) {
  std::vector<FrameChange> all = frame_changes(p, column);
  const int b = before_column(p, column);
  const double before_total = b >= 0 ? p.total(b) : 0, after_total = p.total(column);
  const std::string& unit = p.columns[column].unit;
  auto by_growth = [&](bool total) {
    std::vector<FrameChange> v = all;
    std::stable_sort(v.begin(), v.end(), [&](const FrameChange& x, const FrameChange& y) {
      double dx = total ? x.after_total - x.before_total : x.after_self - x.before_self;
      double dy = total ? y.after_total - y.before_total : y.after_self - y.before_self;
      return dx > dy;
    });
    return v;
  };
  std::vector<FrameChange> ranked = by_growth(o.sort != "self");
  const bool total_key = o.sort != "self";
  auto delta = [&](const FrameChange& c) { return total_key ? c.after_total - c.before_total : c.after_self - c.before_self; };
  const size_t limit = o.limit ? o.limit : ranked.size();
  std::vector<FrameChange> grew, shrank;
  for (const FrameChange& c : ranked)
    if (delta(c) > 0 && grew.size() < limit) grew.push_back(c);
  for (auto it = ranked.rbegin(); it != ranked.rend(); ++it)
    if (delta(*it) < 0 && shrank.size() < limit) shrank.push_back(*it);

  std::string& s = out.buffer();
  if (o.json) {
    s += "{\"weight\":";
    append_json_string(s, p.columns[column].name);
    s += ",\"unit\":";
    append_json_string(s, unit);
    s += fmt::format(",\"before_total\":{},\"after_total\":{},\"sort\":", before_total, after_total);
    append_json_string(s, total_key ? "total" : "self");
    auto rows = [&](const char* key, const std::vector<FrameChange>& v) {
      s += ",\"";
      s += key;
      s += "\":[";
      for (size_t i = 0; i < v.size(); ++i) {
        const FrameChange& c = v[i];
        if (i) s.push_back(',');
        s += "\n{\"frame\":";
        append_json_string(s, frame_label(p.symbols, c.frame));
        s += fmt::format(",\"before_self\":{},\"after_self\":{},\"before_total\":{},\"after_total\":{},\"delta\":{}}}",
                         c.before_self, c.after_self, c.before_total, c.after_total, delta(c));
      }
      s += "\n]";
    };
    rows("grew", grew);
    rows("shrank", shrank);
    s += "}\n";
    out.maybe_flush();
    return;
  }
  s += p.columns[column].name + (unit == p.columns[column].name ? "" : " (" + unit + ")") + ": before ";
  append_weight(s, before_total);
  s += ", after ";
  append_weight(s, after_total);
  s += " (" + percent_text(after_total - before_total, before_total) + ")\n";
  auto table = [&](const char* title, const std::vector<FrameChange>& v) {
    s += fmt::format("\n{} (by {}):\n{:>14} {:>14} {:>14} {:>9}  frame\n", title, total_key ? "total" : "self", "delta", "before",
                     "after", "of before");
    for (const FrameChange& c : v) {
      double before = total_key ? c.before_total : c.before_self, after = total_key ? c.after_total : c.after_self;
      std::string d, bb, aa;
      append_weight(d, after - before);
      append_weight(bb, before);
      append_weight(aa, after);
      s += fmt::format("{:>14} {:>14} {:>14} {:>9}  {}\n", (after > before ? "+" : "") + d, bb, aa,
                       percent_text(after - before, before_total), frame_label(p.symbols, c.frame));
      out.maybe_flush();
    }
    if (v.empty()) s += "  (none)\n";
  };
  table("grew", grew);
  table("shrank", shrank);
  out.maybe_flush();
}

}  // namespace flamefold
