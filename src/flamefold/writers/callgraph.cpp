#include "flamefold/writers/callgraph.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "flamefold/hash.h"
#include "flamefold/output.h"

namespace flamefold {

namespace {

// gprof2dot's ratio(): clamped to [0, 1], and 1 when the denominator is 0.
double ratio(double num, double den) {
  if (den == 0) return 1.0;
  double r = num / den;
  return r < 0 ? 0.0 : (r > 1 ? 1.0 : r);
}

double hue_to_rgb(double m1, double m2, double h) {
  if (h < 0.0)
    h += 1.0;
  else if (h > 1.0)
    h -= 1.0;
  if (h * 6 < 1.0) return m1 + (m2 - m1) * h * 6.0;
  if (h * 2 < 1.0) return m2;
  if (h * 3 < 2.0) return m1 + (m2 - m1) * (2.0 / 3.0 - h) * 6.0;
  return m1;
}

// DotWriter.id(): bare when alphanumeric, otherwise quoted with \\ \n \t \" escaped.
void append_id(std::string& b, std::string_view s) {
  bool alnum = !s.empty() && !(s.size() >= 2 && s[0] == '0' && s[1] == 'x');
  for (unsigned char c : s)
    if (!(std::isalnum(c) || c >= 0x80)) alnum = false;
  if (alnum) {
    b += s;
    return;
  }
  b.push_back('"');
  for (char c : s) {
    switch (c) {
      case '\\': b += "\\\\"; break;
      case '\n': b += "\\n"; break;
      case '\t': b += "\\t"; break;
      case '"': b += "\\\""; break;
      default: b.push_back(c);
    }
  }
  b.push_back('"');
}

std::string module_of(std::string_view file) {
  // os.path.basename(os.path.splitext(file)[0])
  size_t slash = file.find_last_of('/');
  size_t dot = file.find_last_of('.');
  if (dot != std::string_view::npos && (slash == std::string_view::npos || dot > slash + 1)) {
    // splitext ignores leading dots of the base name
    size_t base = slash == std::string_view::npos ? 0 : slash + 1;
    bool leading_only = true;
    for (size_t i = base; i < dot; ++i)
      if (file[i] != '.') leading_only = false;
    if (!leading_only) file = file.substr(0, dot);
  }
  slash = file.find_last_of('/');
  return std::string(slash == std::string_view::npos ? file : file.substr(slash + 1));
}

std::string calls_text(double n) { return fmt::format("{:.0f}\u00d7", n); }

}  // namespace

std::string callgraph_color(double weight) {
  weight = std::min(std::max(weight, 0.0), 1.0);
  // TEMPERATURE_COLORMAP: from (2/3, 0.80, 0.25) to (0.0, 1.0, 0.5) in HSL, gamma 1.
  double h = 2.0 / 3.0 + weight * (0.0 - 2.0 / 3.0);
  double s = 0.80 + weight * (1.0 - 0.80);
  double l = 0.25 + weight * (0.5 - 0.25);
  h = std::fmod(h, 1.0);
  if (h < 0) h += 1.0;
  double m2 = l <= 0.5 ? l * (s + 1.0) : l + s - l * s;
  double m1 = l * 2.0 - m2;
  double rgb[3] = {hue_to_rgb(m1, m2, h + 1.0 / 3.0), hue_to_rgb(m1, m2, h), hue_to_rgb(m1, m2, h - 1.0 / 3.0)};
  std::string out = "#";
  for (double c : rgb) out += fmt::format("{:02x}", std::max(0, std::min(static_cast<int>(c * 255.0 + 0.5), 255)));
  return out;
}

std::string callgraph_dot(const CallStats& st, const CallGraphOptions& o) {
  size_t nf = st.functions.size();
  // gprof2dot numbers functions as its parser meets them: each entry, then that entry's callers.
  std::vector<uint32_t> id_of(nf, kNone);
  std::vector<uint32_t> by_id;
  auto meet = [&](uint32_t fn) {
    if (id_of[fn] == kNone) {
      id_of[fn] = static_cast<uint32_t>(by_id.size());
      by_id.push_back(fn);
    }
  };
  for (uint32_t fn = 0; fn < nf; ++fn) {
    if (!st.functions[fn].listed) continue;
    meet(fn);
    for (uint32_t e = st.functions[fn].first_caller; e != kNone; e = st.callers[e].next_caller) meet(st.callers[e].caller);
  }
  double total_time = st.total_tt(), self_time = 0;
  for (const FunctionStat& f : st.functions) {
    self_time += f.tottime;
    total_time = std::max(total_time, f.cumtime);
  }
  double node_thres = o.node_thres / 100, edge_thres = o.edge_thres / 100;
  std::vector<double> weight(nf, 0);
  std::vector<bool> kept(nf, false);
  for (uint32_t fn = 0; fn < nf; ++fn) {
    weight[fn] = ratio(st.functions[fn].cumtime, total_time);
    kept[fn] = id_of[fn] != kNone && weight[fn] >= node_thres;
  }
  // Outgoing calls of each kept function, by callee id.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> calls(nf);  // (callee id, edge)
  for (uint32_t e = 0; e < st.callers.size(); ++e) {
    const CallerEdge& c = st.callers[e];
    if (!kept[c.caller] || !kept[c.callee]) continue;
    if (ratio(c.cumtime, total_time) < edge_thres) continue;
    calls[c.caller].emplace_back(id_of[c.callee], e);
  }

  std::string b;
  b += "digraph {\n";
  b += "\tgraph [fontname=Arial, nodesep=0.125, ranksep=0.25];\n";
  b += "\tnode [fontcolor=white, fontname=Arial, height=0, shape=box, style=filled, width=0];\n";
  b += "\tedge [fontname=Arial];\n";
  for (uint32_t id = 0; id < by_id.size(); ++id) {
    uint32_t fn = by_id[id];
    if (!kept[fn]) continue;
    const FunctionStat& f = st.functions[fn];
    std::string name = fmt::format("{}:{}:{}", module_of(f.file), f.line, f.name);
    if (name.size() >= 4096) name = name.substr(0, 4095) + "\u2026";
    double w = weight[fn];
    std::string label = fmt::format("{}\n{:.2f}%\n({:.2f}%)\n{}", name, 100 * w, 100 * ratio(f.tottime, self_time),
                                    calls_text(f.ncalls));
    std::string color = callgraph_color(w);
    fmt::format_to(std::back_inserter(b), "\t{} [color=\"{}\", fontcolor=\"#ffffff\", fontsize=\"{:.2f}\", label=", id, color,
                   std::max(w * w * 10.0, 10.0));
    append_id(b, label);
    b += ", tooltip=";
    append_id(b, f.file);
    b += "];\n";
    std::sort(calls[fn].begin(), calls[fn].end());
    for (auto [callee_id, e] : calls[fn]) {
      const CallerEdge& c = st.callers[e];
      double cw = ratio(c.cumtime, total_time);
      std::string ccolor = callgraph_color(cw);
      double pen = std::max(cw * 4.0, 0.5);
      fmt::format_to(std::back_inserter(b),
                     "\t{} -> {} [arrowsize=\"{:.2f}\", color=\"{}\", fontcolor=\"{}\", fontsize=\"{:.2f}\", label=", id,
                     callee_id, 0.5 * std::sqrt(pen), ccolor, ccolor, std::max(cw * cw * 10.0, 10.0));
      append_id(b, fmt::format("{:.2f}%\n{}", 100 * cw, calls_text(c.pcalls)));
      fmt::format_to(std::back_inserter(b), ", labeldistance=\"{:.2f}\", penwidth=\"{:.2f}\"];\n", pen, pen);
    }
  }
  b += "}\n";
  return b;
}

namespace {

std::string find_program(const char* name) {
  const char* path = std::getenv("PATH");
  std::string_view p = path ? path : "/usr/bin:/bin";
  while (true) {
    size_t colon = p.find(':');
    std::string dir(p.substr(0, colon));
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) break;
    p = p.substr(colon + 1);
  }
  return {};
}

}  // namespace

void render_dot(const std::string& dot, std::string_view format, const std::string& path) {
  std::string program = find_program("dot");
  if (program.empty())
    throw std::runtime_error(
        "Graphviz's `dot` program is not installed (or not on PATH): install graphviz (apt install graphviz) to "
        "draw ." + std::string(format) + " files, or write the graph as -o FILE.dot");
  char dot_file[] = "/tmp/flamefold-callgraph-XXXXXX";
  int fd = mkstemp(dot_file);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for the DOT graph");
  bool ok = ::write(fd, dot.data(), dot.size()) == static_cast<ssize_t>(dot.size());
  ::close(fd);
  if (!ok) {
    ::unlink(dot_file);
    throw std::runtime_error("cannot write the temporary DOT file");
  }
  std::string cmd = fmt::format("'{}' -T{} '{}' 2>&1", program, format, dot_file);
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) {
    ::unlink(dot_file);
    throw std::runtime_error("cannot run Graphviz's dot");
  }
  std::string rendered;
  char buf[1 << 16];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) rendered.append(buf, n);
  int rc = pclose(pipe);
  ::unlink(dot_file);
  if (rc != 0)
    throw std::runtime_error("Graphviz's dot failed: " + rendered.substr(0, 400));
  OutputFile out(path);
  out.write(rendered);
  out.commit();
}

}  // namespace flamefold
