// Commands beyond the foundation. Each section belongs to one feature; keep them apart.
#include "cli/commands.h"

using namespace flamefold;

namespace {
CLI::App* convert_cmd = nullptr;
CLI::App* callgraph_cmd = nullptr;
CLI::App* merge_gpu_cmd = nullptr;
}  // namespace

void register_more_commands(CLI::App& app, std::vector<std::string>& inputs, std::string& output, ReadOptions& r,
                            WriteOptions& w) {
  // ---- convert: traces to Chrome JSON (.json), profiles to pstats (.prof) -------------------
  convert_cmd = app.add_subcommand("convert", "convert to Chrome trace JSON (-o x.json) or pstats (-o x.prof)");
  convert_cmd->add_option("inputs", inputs, "input files")->required();
  convert_cmd->add_option("-o,--output", output, "output file: .json (Chrome/Perfetto trace) or .prof (pstats)")
      ->required();
  convert_cmd->add_option("--format", r.format, "input format (default: sniffed)");

  // ---- callgraph: gprof2dot-style call graph ---------------------------------------------
  callgraph_cmd = app.add_subcommand("callgraph", "draw a call graph: -o x.dot, x.svg or x.png (Graphviz)");
  callgraph_cmd->add_option("inputs", inputs, "input files")->required();
  callgraph_cmd->add_option("-o,--output", output, "output file: .dot, .svg or .png")->required();
  callgraph_cmd->add_option("--format", r.format, "input format (default: sniffed)");

  // ---- merge-gpu: CPU launch stacks + CUPTI kernels -> folded -----------------------------
  merge_gpu_cmd = app.add_subcommand("merge-gpu", "merge CPU stacks at kernel launches with CUPTI kernels (folded)");
  (void)w;
}

int run_more_commands(CLI::App& app, std::vector<std::string>& inputs, std::string& output, ReadOptions& r,
                      WriteOptions& w) {
  // ---- convert ----
  if (convert_cmd->parsed()) {
    std::fprintf(stderr, "flamefold: error: convert is not implemented yet\n");
    return 2;
  }
  // ---- callgraph ----
  if (callgraph_cmd->parsed()) {
    std::fprintf(stderr, "flamefold: error: callgraph is not implemented yet\n");
    return 2;
  }
  // ---- merge-gpu ----
  if (merge_gpu_cmd->parsed()) {
    std::fprintf(stderr, "flamefold: error: merge-gpu is not implemented yet\n");
    return 2;
  }
  (void)app, (void)inputs, (void)output, (void)r, (void)w;
  return 2;
}
