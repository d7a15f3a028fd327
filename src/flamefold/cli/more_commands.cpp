// Commands beyond the foundation. Each section belongs to one feature; keep them apart.
#include "cli/commands.h"
#include "flamefold/errors.h"
#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "flamefold/readers/sqlite/ascend.h"
#include "flamefold/readers/sqlite/nsys.h"
#include "flamefold/writers/chrome_trace.h"
#include "flamefold/readers/marshal/pstats.h"
#include "flamefold/writers/pstats.h"
#include "flamefold/writers/speedscope.h"
#include "flamefold/writers/callgraph.h"
#include "flamefold/readers/text/gpu_cpu_merge.h"
#include "flamefold/writers/pprof.h"

using namespace flamefold;

namespace {
CLI::App* convert_cmd = nullptr;
CLI::App* callgraph_cmd = nullptr;
CLI::App* merge_gpu_cmd = nullptr;
// convert -> Chrome JSON (nsys / Ascend databases)
std::string trace_activities, trace_colors;
std::vector<std::string> trace_prefixes;
bool trace_no_flows = false;
// callgraph
CallGraphOptions callgraph_opts;
// merge-gpu
std::string merge_cpu, merge_gpu, merge_weight = "count";
GpuMergeOptions merge_opts;
bool merge_summary = false;
std::string callgraph_to;  // --to: dot, svg, png or pdf ("" = by the output's extension)
std::string convert_to;  // --to: chrome, pstats, speedscope or pprof ("" = by the output's extension)
uint64_t convert_timeline_events = 1000000;
CLI::Option* convert_timeline_events_option = nullptr;
}  // namespace

void register_more_commands(CLI::App& app, std::vector<std::string>& inputs, std::string& output, ReadOptions& r,
                            WriteOptions& w) {
  // ---- convert: traces to Chrome JSON (.json), profiles to pstats (.prof) -------------------
  convert_cmd = app.add_subcommand(
      "convert", "convert to Chrome trace JSON (-o x.json), pstats (-o x.prof), speedscope (-o x.speedscope.json) or pprof (-o x.pb.gz)");
  convert_cmd->add_option("inputs", inputs, "input files")->required();
  convert_cmd->add_option("-o,--output", output,
                          "output file: .json (Chrome/Perfetto trace), .prof (pstats), .speedscope.json, .pb.gz or .pb (pprof)")
      ->required();
  // The read options of every command (--format, --steps, --thread, --window, --weight: the pprof
  // default sample type ...): they shape the profile written as .prof, .speedscope.json or .pb.gz.
  add_read_options(convert_cmd, r);
  convert_cmd->add_option("--activities,--activity-type", trace_activities,
                          "Chrome JSON from nsys/Ascend DBs: kernel,nvtx,nvtx-kernel,cuda-api or all "
                          "(default: kernel,nvtx-kernel for nsys, all for Ascend)");
  convert_cmd->add_option("--nvtx-prefix,--nvtx-event-prefix", trace_prefixes, "keep only NVTX ranges whose name starts with this (repeatable)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  convert_cmd->add_option("--nvtx-color,--nvtx-color-scheme", trace_colors,
                          "colour NVTX ranges: JSON object of regex -> Chrome colour name, e.g. '{\"send\":\"thread_state_iowait\"}'");
  convert_cmd->add_flag("--no-flows", trace_no_flows, "leave out the launch -> kernel arrows");
  convert_timeline_events_option = convert_cmd->add_option("--timeline-events", convert_timeline_events,
                          "speedscope output of traces: events kept for the time-ordered profiles (the first "
                          "ProfilerSteps, else the first stretch of time, that fit); 0 = none (default 1000000; 100000 for "
                          "Nsight Systems and Ascend databases and traces of over 2000000 events)");
  convert_cmd->add_option("--to", convert_to,
                          "the output kind, for an output whose name does not say it (-, /dev/stdout, a pipe): chrome, "
                          "pstats, speedscope or pprof (gzipped)")
      ->check(CLI::IsMember({"chrome", "pstats", "speedscope", "pprof"}));
  add_name_options(convert_cmd, w);

  // ---- callgraph: gprof2dot-style call graph ---------------------------------------------
  callgraph_cmd = app.add_subcommand("callgraph", "draw a call graph: -o x.dot, x.svg or x.png (Graphviz)");
  callgraph_cmd->add_option("inputs", inputs, "input files")->required();
  callgraph_cmd->add_option("-o,--output", output,
                            "output file: .dot, .svg, .png or .pdf (default: DOT on stdout, as gprof2dot writes it)")
      ->default_val("-");
  callgraph_cmd->add_option("--to", callgraph_to,
                            "the output kind, for an output whose name does not say it (-, /dev/stdout, a pipe): dot, "
                            "svg, png or pdf")
      ->check(CLI::IsMember({"dot", "svg", "png", "pdf"}));
  callgraph_cmd->add_option("--format", r.format, "input format (default: sniffed)");
  callgraph_cmd->add_option("--node-thres", callgraph_opts.node_thres, "drop functions under this % of the total (default 0.5)");
  callgraph_cmd->add_option("--edge-thres", callgraph_opts.edge_thres, "drop calls under this % of the total (default 0.1)");
  callgraph_cmd->add_option("--weight", r.weight, "which time column of a trace: cpu (default), gpu, ...");
  add_name_options(callgraph_cmd, w);

  // ---- merge-gpu: CPU launch stacks + CUPTI kernels -> folded -----------------------------
  merge_gpu_cmd = app.add_subcommand("merge-gpu", "merge CPU stacks at kernel launches with CUPTI kernels (folded)");
  merge_gpu_cmd->add_option("-c,--cpu", merge_cpu, "CPU stacks: `ts_ns comm pid tid cpu f1;f2;...` lines")->required();
  merge_gpu_cmd->add_option("-g,--gpu", merge_gpu, "GPU trace: CUPTI JSON (or a Kineto trace)")->required();
  merge_gpu_cmd->add_option("-o,--output", output, "folded output (- for stdout)")->required();
  merge_gpu_cmd->add_option("-t,--tolerance", merge_opts.tolerance_ms, "launch matching tolerance in ms (default 10)");
  merge_gpu_cmd->add_option("--weight", merge_weight, "count (stacks, the seed's) or gpu (kernel ns)")
      ->check(CLI::IsMember({"count", "gpu"}));
  merge_gpu_cmd->add_flag("-s,--summary", merge_summary, "print the summary statistics");

  // ---- merge: many profiles into one (cli/merge.cpp) ---------------------------------------
  register_merge_command(app, inputs, output, r, w);
}

int run_more_commands(CLI::App& app, std::vector<std::string>& inputs, std::string& output, ReadOptions& r,
                      WriteOptions& w) {
  // ---- convert ----
  if (convert_cmd->parsed()) {
    // The kind: --to's, else the extension's (.speedscope.json before the plain .json).
    std::string kind = convert_to;
    if (kind.empty()) {
      const std::string ext = output_extension(output);
      kind = is_speedscope_path(output) ? "speedscope"
             : is_pprof_path(output)    ? "pprof"
             : ext == "prof" || ext == "pstats" ? "pstats"
             : ext == "json"                    ? "chrome"
                                                : "";
    }
    // speedscope: every weight, one profile per thread.
    if (kind == "speedscope") {
      r.chart_events = convert_timeline_events;  // traces: their time order as evented profiles
      r.chart_events_default = convert_timeline_events_option->count() == 0;
      Profile p = read_profile(inputs, r);
      apply_name_options(p, output, w);
      OutputFile file(output);
      SpeedscopeStats st = write_speedscope(p, file, w);
      file.commit();
      report_counters(p);
      std::fprintf(stderr, "flamefold: wrote %s (%zu profiles, %zu samples, %zu timed events, %zu frames)\n", output.c_str(),
                   st.profiles, st.samples, st.events, st.frames);
      return 0;
    }
    // pprof (.pb, .pb.gz, .pprof): every weight column a sample type; gzipped but for .pb.
    if (kind == "pprof") {
      Profile p = read_profile(inputs, r);
      const int column = choose_column(p, r.weight);
      apply_name_options(p, output, w);
      OutputFile file(output);
      PprofStats st = write_pprof(p, column, file, pprof_output_gzipped(output));
      file.commit();
      report_counters(p);
      if (st.rounded)
        std::fprintf(stderr, "flamefold: note: %llu weights were not whole numbers: rounded (pprof values are integers)\n",
                     static_cast<unsigned long long>(st.rounded));
      std::fprintf(stderr, "flamefold: wrote %s (%llu samples, %llu locations, %zu sample types, default %s)\n",
                   output.c_str(), static_cast<unsigned long long>(st.samples),
                   static_cast<unsigned long long>(st.locations), p.columns.size(), p.columns[column].name.c_str());
      return 0;
    }
    // pstats output (.prof / .pstats): cProfile statistics from the call tree, or a pstats input's own.
    if (kind == "pstats") {
      CallStats st = read_call_stats(inputs, r, w.names);
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
    if (kind == "chrome") {
      if (w.names.any())
        throw UsageError("--short-names and --merge-modules rename the frames of profiles (.prof, flame graphs, "
                         "tables); convert -o x.json writes the trace's events as recorded");
      if (inputs.size() != 1) throw UsageError("convert -o x.json takes one input database");
      for (const char* option : {"--steps", "--window", "--thread", "--weight"})
        if (convert_cmd->count(option))
          throw UsageError(std::string(option) + " selects from a profile (.prof, .speedscope.json, .pb.gz outputs); "
                           "convert -o x.json writes the database's events as recorded");
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
      throw UsageError("convert to Chrome trace JSON reads an Nsight Systems or Ascend database; " + inputs[0] + " is " +
                       std::string(format_name(f)) + " (its flame graph: flamefold flamegraph " + inputs[0] +
                       " -o flame.html)");
    }
    throw UsageError("cannot tell the output kind from '" + output +
                     "': use .json (Chrome trace), .prof (pstats), .speedscope.json or .pb.gz (pprof), or name it with "
                     "--to (chrome, pstats, speedscope, pprof)");
  }
  // ---- callgraph ----
  if (callgraph_cmd->parsed()) {
    // The kind: --to's, else the extension's, else DOT on stdout (gprof2dot's way: `| dot -Tpng`).
    std::string ext = callgraph_to.empty() ? output_extension(output) : callgraph_to;
    if (ext.empty() && names_stdout(output)) ext = "dot";
    bool known = ext == "dot" || ext == "gv" || ext == "svg" || ext == "png" || ext == "pdf";
    if (!known)
      throw UsageError("callgraph writes .dot, .svg, .png or .pdf (got '" + output + "'), or name the kind with --to");
    CallStats st = read_call_stats(inputs, r, w.names);
    std::string dot = callgraph_dot(st, callgraph_opts);
    if (ext == "dot" || ext == "gv") {
      OutputFile file(output);
      file.write(dot);
      file.commit();
    } else {
      render_dot(dot, ext, output);
    }
    if (output != "-") std::fprintf(stderr, "flamefold: wrote %s\n", output.c_str());
    return 0;
  }
  // ---- merge ----
  if (merge_command_parsed()) return run_merge_command(inputs, output, r, w);
  // ---- merge-gpu ----
  if (merge_gpu_cmd->parsed()) {
    merge_opts.weight_gpu = merge_weight == "gpu";
    OutputFile file(output);
    GpuMergeReport rep = merge_gpu_cpu(merge_cpu, merge_gpu, merge_opts, file);
    file.commit();
    std::fprintf(stderr, "flamefold: %llu CPU stacks, %llu kernels, %llu launches: %llu matched, %llu pending; "
                 "wrote %llu unique stacks to %s\n",
                 (unsigned long long)rep.cpu_stacks, (unsigned long long)rep.kernels, (unsigned long long)rep.launches,
                 (unsigned long long)rep.matched, (unsigned long long)rep.unmatched,
                 (unsigned long long)rep.unique_stacks, output.c_str());
    if (rep.malformed_lines)
      std::fprintf(stderr, "flamefold: warning: %llu malformed CPU lines skipped (first: %s)\n",
                   (unsigned long long)rep.malformed_lines, rep.first_malformed.c_str());
    if (rep.without_correlation)
      std::fprintf(stderr, "flamefold: warning: %llu GPU launches and kernels without a correlation id left out\n",
                   (unsigned long long)rep.without_correlation);
    if (rep.times_out_of_range)
      std::fprintf(stderr, "flamefold: warning: %llu GPU events with times past int64 nanoseconds left out\n",
                   (unsigned long long)rep.times_out_of_range);
    if (merge_summary) std::fputs(rep.summary.c_str(), output == "-" ? stderr : stdout);
    return 0;
  }
  (void)app, (void)inputs, (void)output, (void)r, (void)w;
  return 2;
}
