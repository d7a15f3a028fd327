// Commands beyond the foundation. Each section belongs to one feature; keep them apart.
#include "cli/commands.h"
#include "flamefold/errors.h"
#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "flamefold/readers/ascend.h"
#include "flamefold/readers/nsys.h"
#include "flamefold/writers/chrome_trace.h"
#include "flamefold/readers/pstats.h"
#include "flamefold/writers/pstats.h"

using namespace flamefold;

namespace {
CLI::App* convert_cmd = nullptr;
CLI::App* callgraph_cmd = nullptr;
CLI::App* merge_gpu_cmd = nullptr;
// convert -> Chrome JSON (nsys / Ascend databases)
std::string trace_activities, trace_colors;
std::vector<std::string> trace_prefixes;
bool trace_no_flows = false;
}  // namespace

void register_more_commands(CLI::App& app, std::vector<std::string>& inputs, std::string& output, ReadOptions& r,
                            WriteOptions& w) {
  // ---- convert: traces to Chrome JSON (.json), profiles to pstats (.prof) -------------------
  convert_cmd = app.add_subcommand("convert", "convert to Chrome trace JSON (-o x.json) or pstats (-o x.prof)");
  convert_cmd->add_option("inputs", inputs, "input files")->required();
  convert_cmd->add_option("-o,--output", output, "output file: .json (Chrome/Perfetto trace) or .prof (pstats)")
      ->required();
  convert_cmd->add_option("--format", r.format, "input format (default: sniffed)");
  convert_cmd->add_option("--activities", trace_activities,
                          "Chrome JSON from nsys/Ascend DBs: kernel,nvtx,nvtx-kernel,cuda-api or all "
                          "(default: kernel,nvtx-kernel for nsys, all for Ascend)");
  convert_cmd->add_option("--nvtx-prefix", trace_prefixes, "keep only NVTX ranges whose name starts with this (repeatable)");
  convert_cmd->add_option("--nvtx-color", trace_colors,
                          "colour NVTX ranges: JSON object of regex -> Chrome colour name, e.g. '{\"send\":\"thread_state_iowait\"}'");
  convert_cmd->add_flag("--no-flows", trace_no_flows, "leave out the launch -> kernel arrows");

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
    // pstats output (.prof / .pstats): cProfile statistics from the call tree, or a pstats input's own.
    if (output_extension(output) == "prof" || output_extension(output) == "pstats") {
      CallStats st = read_call_stats(inputs, r);
      if (st.from_samples)
        std::fprintf(stderr, "flamefold: note: sampled input: tottime/cumtime in %s are sample weights%s, "
                             "ncalls counts call paths\n", output.c_str(), st.time_unit == "s" ? "" : " (not seconds)");
      OutputFile file(output);
      write_pstats(st, file);
      file.commit();
      std::fprintf(stderr, "flamefold: wrote %s (%zu functions, %zu caller edges)\n", output.c_str(),
                   st.functions.size(), st.callers.size());
      return 0;
    }
    // Chrome trace JSON from an nsys or Ascend database.
    if (output_extension(output) == "json") {
      if (inputs.size() != 1) throw UsageError("convert -o x.json takes one input database");
      Format f = r.format.empty() ? Format::Unknown : parse_format(r.format);
      if (f == Format::Unknown) {
        Input in = Input::open(inputs[0]);
        f = sniff_format(in.head(), inputs[0]);
      }
      if (f == Format::Nsys || f == Format::Ascend) {
        ChromeTraceOptions co;
        if (!trace_activities.empty()) parse_activities(trace_activities, co);
        else parse_activities(f == Format::Nsys ? "kernel,nvtx-kernel" : "all", co);
        co.name_prefixes = trace_prefixes;
        if (!trace_colors.empty()) parse_color_scheme(trace_colors, co);
        co.flows = !trace_no_flows;
        Timeline tl;
        TraceSideInfo side;
        if (f == Format::Nsys) {
          NsysOptions no;
          no.device_work = co.device_work || co.range_projection;
          no.api_calls = co.api_calls || co.range_projection;
          no.nvtx = co.host_ranges || co.range_projection;
          NsysTrace t = read_nsys_trace(inputs[0], r, no);
          tl = std::move(t.timeline);
          side = std::move(t.side);
        } else {
          AscendOptions ao;
          ao.cann_launches = true;
          AscendTrace t = read_ascend_trace(inputs[0], r, ao);
          tl = std::move(t.timeline);
          side = std::move(t.side);
        }
        OutputFile file(output);
        ChromeTraceStats st = write_chrome_trace(tl, side, co, file);
        file.commit();
        for (const Counter& c : tl.counters)
          std::fprintf(stderr, "flamefold: warning: %s: %llu\n", c.what.c_str(), static_cast<unsigned long long>(c.count));
        std::fprintf(stderr, "flamefold: wrote %s (%llu trace events: %llu device, %llu range projections, %llu flows)\n",
                     output.c_str(), static_cast<unsigned long long>(st.events),
                     static_cast<unsigned long long>(st.device_events), static_cast<unsigned long long>(st.projections),
                     static_cast<unsigned long long>(st.flows));
        return 0;
      }
    }
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
