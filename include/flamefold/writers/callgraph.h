// Call graphs in gprof2dot's conventions (its pstats reading and DOT writer, default theme):
// node "module:line:function" with total %, (self %) and calls; edge with total % and
// primitive calls; nodes under --node-thres % of the total and edges under --edge-thres %
// dropped; colours, pen widths and arrow sizes from the total fraction on gprof2dot's
// temperature colour map (dark blue -> red). Rendered to SVG/PNG/PDF by Graphviz's `dot`.
#pragma once
#include <string>
#include <string_view>

#include "flamefold/call_stats.h"

namespace flamefold {

struct CallGraphOptions {
  double node_thres = 0.5;  // percent
  double edge_thres = 0.1;  // percent
};

std::string callgraph_dot(const CallStats& stats, const CallGraphOptions& options);

// gprof2dot's colour for a weight in [0, 1]: "#rrggbb".
std::string callgraph_color(double weight);

// Runs Graphviz `dot -T<format>` on the DOT text and writes its output to path (atomically).
// Throws std::runtime_error with a clear message when Graphviz is not installed or fails.
void render_dot(const std::string& dot, std::string_view format, const std::string& path);

}  // namespace flamefold
