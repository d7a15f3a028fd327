// flamefold's command line: parses options, picks the reader and writer, reports errors.
// Everything else lives in the library (src/flamefold/{model,io,readers,build,writers}).
#include <malloc.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "flamefold/readable_names.h"
#include "flamefold/source_lines.h"
#include "flamefold/writers/folded.h"
#include "flamefold/writers/kernel_summary.h"
#include "flamefold/writers/top.h"
#include "flamefold/readers/marshal/pstats.h"
#include "flamefold/writers/pstats_table.h"
#include "flamefold/writers/speedscope.h"
#include "cli/commands.h"

using namespace flamefold;

namespace {

const char* kExamples = R"(
Examples:
  perf script | flamefold collapse > out.folded        drop-in for stackcollapse-perf.pl
  flamefold flamegraph perf.txt -o flame.html          interactive, single file, opens offline
  flamefold flamegraph out.folded -o flame.svg         drop-in for flamegraph.pl
  flamefold collapse perf.txt | flamefold flamegraph > flame.svg   no -o: SVG on stdout, as flamegraph.pl
  flamefold top perf.txt                               the hottest frames as a table
  flamefold info perf.txt                              detected format, samples, threads, stacks

  flamefold flamegraph trace.pt.trace.json.gz -o flame.html   PyTorch trace: CPU and GPU views in one file
  flamefold collapse trace.json --weight gpu > gpu.folded     GPU ns per Python/op stack, kernel as leaf
  flamefold top trace.json --weight gpu                       hottest stacks and a kernel summary
  flamefold flamegraph rank*.json -o all.html                 many ranks in one view, with a rank filter
  flamefold convert report.sqlite -o report.json              Nsight Systems -> Chrome/Perfetto trace
  flamefold flamegraph ascend_pytorch_profiler_0.db -o f.html Ascend DB: host op stacks (--weight npu: device)
  flamefold convert trace.json -o trace.prof                  pstats for snakeviz / python -m pstats
  flamefold convert perf.txt -o perf.speedscope.json          speedscope: one profile per thread and weight
  flamefold flamegraph app.cpuprofile -o f.html               also speedscope, DevTools and Firefox profiles in
  flamefold convert trace.json -o trace.pb.gz                 pprof for go tool pprof, Pyroscope, Grafana
  flamefold merge rank*.pb.gz -o job.pb.gz                    many profiles (any formats) -> one, associative
  flamefold diff before.json after.json -o diff.html          what changed between two runs (any formats)
  flamefold diff base.prof new.prof --fail-above 2%           CI gate: exit 3 when a frame grew by > 2%
  flamefold top program.prof --sort cumulative                the table python -m pstats prints
  flamefold callgraph program.prof -o calls.svg               gprof2dot-style call graph via Graphviz
  flamefold merge-gpu --cpu cpu.txt --gpu gpu.json -o merged.folded --summary

Input formats are recognised from their content (--format overrides); .gz and .zst inputs
are read transparently; - is standard input. Output kind follows -o's extension, or --to
(html, svg, folded, speedscope, pprof) for -, /dev/stdout and names without one.
)";

}  // namespace

void add_read_options(CLI::App* app, ReadOptions& r) {
  app->add_option("--format", r.format,
                  "input format: folded, perf, kineto, nsys, ascend, pstats, speedscope, cpuprofile, gecko, pprof, dtrace, "
                  "sample, xctrace, vtune, vsprof, ghcprof, bpftrace, go, jstack, stap (default: sniffed)");
  app->add_flag("--pid", r.perf.pid, "perf: include the process id in the root frame (comm-pid)");
  app->add_flag("--tid", r.perf.tid, "perf: include process and thread id in the root frame (comm-pid/tid)");
  app->add_flag("--kernel", r.perf.kernel, "perf: annotate kernel frames with _[k]");
  app->add_flag("--jit", r.perf.jit, "perf: annotate JIT frames with _[j]");
  app->add_flag("--all", r.perf.all, "perf: all annotations (--kernel --jit)");
  app->add_flag("--addrs", r.perf.addrs, "perf: keep raw addresses of unknown symbols");
  app->add_flag("--inline", r.perf.inline_, "perf: accepted for stackcollapse-perf.pl compatibility");
  app->add_option("--event-filter", r.perf.event_filter, "perf: only samples of this event (default: the first event seen)");
  // The other collapsers' switches, under their names (docs/formats.md).
  app->add_flag("--includeoffset", r.collapse.include_offset, "dtrace: keep function offsets (but the leaf's)");
  app->add_flag("--no-modules", r.collapse.no_modules, "sample, vtune: function names without their module");
  app->add_flag_callback("--ticks", [&r] { r.collapse.ghc_source = "ticks"; }, "ghcprof: weigh cost centres by their ticks column");
  app->add_flag_callback("--bytes", [&r] { r.collapse.ghc_source = "bytes"; }, "ghcprof: weigh cost centres by their bytes column");
  app->add_flag("--include-tid", r.collapse.include_tid, "jstack: keep the thread number in thread names");
  app->add_flag("--no-include-tname", r.collapse.no_thread_name, "jstack: no thread-name frame at the root");
  app->add_flag("--shorten-pkgs", r.collapse.shorten_pkgs, "jstack: shorten package names (com.example.Foo.bar -> c.e.Foo.bar)");
  app->add_option("--stacks", r.stacks,
                  "how to build stacks when the input offers several: nsys nvtx (default) or backtrace "
                  "(CUDA_CALLCHAINS); Ascend ops (default) or callchain (adds PYTORCH_CALLCHAINS Python frames)");
  app->add_option("--max-input-bytes", r.max_input_bytes,
                  "refuse database inputs larger than this (default for Ascend DBs: 10 GiB, as MindStudio's tool)");
  app->add_option("--category-rule", r.category_rules,
                  "Ascend DBs: frame category keywords, CATEGORY=KW1,KW2 (replace) or CATEGORY+=KW1,KW2 (add), CATEGORY "
                  "one of cann, python_framework, python; case-insensitive substrings, first matching category in that "
                  "order wins, else unknown; repeatable (default: cann=cann,ascendcl,aclnn,aclrt,aclmdl,aclprof,hccl "
                  "python_framework=torch,torch_npu,aten::,c10::,aten_; python: names containing .py or python)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app->add_option("--weight", r.weight, "which weight to use: samples, cpu, gpu, npu, kernels, calls (default: the input's)");
  app->add_option("--threads-to-use,-j", r.threads_to_use, "worker threads (default: all cores)");
  app->add_option_function<std::string>(
         "--stream-traces",
         [&r](const std::string& v) { r.stream_traces = v == "always" ? 1 : v == "never" ? -1 : 0; },
         "Chrome/Kineto traces: build the flame graph as the events stream by, in memory that follows the call "
         "tree (always), or from all events at once, faster (never); auto (default) streams traces of 2 GB or more")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  // Traced inputs (Kineto, nsys, Ascend): which part of the timeline to build from.
  app->add_option("--steps", r.steps, "traces: only these ProfilerStep#N ranges, e.g. 3, 3-5 or 3,5,7-9");
  app->add_option("--thread", r.threads, "traces: only threads whose name contains this, with this tid, or 'main' (tid = pid); repeatable")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app->add_option("--categories", r.categories,
                  "traces: only events of these categories (comma separated: python_function, cpu_op, user_annotation, "
                  "cuda_runtime, kernel, memcpy, memset ...)")
      ->expected(1)
      ->allow_extra_args(false)
      ->delimiter(',')
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app->add_option("--group-by", r.group_by,
                  "traces: group levels above the stacks: process (process > thread), thread, none (threads merged) "
                  "or auto (default: Kineto and nsys by process; Ascend DBs by thread, by process when the DB holds "
                  "several); several ranks keep a rank level")
      ->check(CLI::IsMember({"process", "thread", "none", "auto"}));
  app->add_option_function<std::string>(
      "--window",
      [&r](const std::string& text) {
        try {
          parse_time_window(text, r);
        } catch (const UsageError& e) {
          throw CLI::ValidationError("--window", e.what());
        }
      },
      "traces: only START:END from the first event, in ms or with a unit (ns, us, ms, s); either side may be empty");
}

void add_name_options(CLI::App* app, WriteOptions& w) {
  app->add_flag("--short-names", w.names.short_names,
                "C++ names shortened: return types, parameter lists and template arguments dropped "
                "(at::native::elementwise_kernel<...>); in HTML the page's switch, full names in its tooltip");
  app->add_flag("--merge-modules", w.names.merge_modules,
                "module instances merged: nn.Module: Layer_0 ... Layer_23 become one nn.Module: Layer frame, "
                "their subtrees merged; in HTML the page's switch");
}

void add_graph_options(CLI::App* app, WriteOptions& w) {
  add_name_options(app, w);
  app->add_option("--source-root", w.source_roots,
                  "HTML: embed the source lines around frames' file:line from files under this folder "
                  "(repeatable; up to 4 MB of source, heaviest frames first)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app->add_option("--to", w.to,
                  "the output kind, for an output whose name does not say it (-, /dev/stdout, a pipe): html, svg, "
                  "folded, speedscope or pprof (gzipped)")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(kOutputKindNames), std::end(kOutputKindNames))));
  app->add_option("--title", w.title, "title of the graph");
  app->add_option("--subtitle", w.subtitle, "second title line");
  app->add_option("--width", w.width, "SVG width in pixels (default 1200)");
  app->add_option_function<std::string>(
      "--minwidth",
      [&w](const std::string& v) {
        // flamegraph.pl: pixels, or a percentage of the total with "%".
        bool percent = !v.empty() && v.back() == '%';
        std::string number = percent ? v.substr(0, v.size() - 1) : v;
        char* end = nullptr;
        double x = std::strtod(number.c_str(), &end);
        if (number.empty() || *end != '\0' || !(x >= 0))
          throw CLI::ValidationError("--minwidth", "expected pixels (0.1) or a percentage (0.5%), not '" + v + "'");
        (percent ? w.minwidth_percent : w.minwidth) = x;
      },
      "SVG: omit frames narrower than this many pixels, or this % of the total with a % sign (default 0.1)");
  app->add_option("--colors,--palette", w.palette,
                  "SVG palette: hot, mem, io, java, js, perl, red, green, blue, aqua, yellow, purple, orange");
  app->add_flag("--inverted", w.inverted, "icicle graph (root at the top)");
  app->add_flag("--reverse", w.reverse, "reverse stacks (merge from the leaves)");
  app->add_option("--countname", w.countname, "what one unit of weight is called (default: from the input)");
  app->add_flag("--hash")->description("SVG: colours from a hash of the name (always on: output is reproducible)");
  app->add_option("--height", w.frame_height, "SVG: frame height in pixels (default 16)");
  app->add_option("--fonttype", w.font_type, "SVG: font family (default Verdana)");
  app->add_option("--fontsize", w.font_size, "SVG: font size (default 12)");
  app->add_option("--fontwidth", w.font_width, "SVG: average glyph width / font size (default 0.59)");
  app->add_option("--nametype", w.name_type, "SVG: label before the name in the details bar (default \"Function:\")");
  app->add_option("--notes", w.notes, "SVG: notes kept in a comment at the top of the file");
  app->add_option("--bgcolors", w.bgcolors, "SVG: background: yellow, blue, green, grey or #rrggbb (default: by palette)");
  app->add_option("--search-color", w.search_color, "SVG: colour of search matches (default rgb(230,0,230))");
  app->add_flag("--negate", w.negate, "differential graphs: swap the hues (blue where a frame grew, red where it shrank)");
}

namespace {

}  // namespace

// --source-root: the folders must exist (said before a long read), and only HTML uses them.
void check_source_roots(const WriteOptions& w, const std::string& output) {
  if (w.source_roots.empty()) return;
  SourceRoots roots(w.source_roots);
  if (output_kind(output, w.to) != OutputKind::Html)
    std::fprintf(stderr, "flamefold: note: --source-root only adds to HTML output (%s is not)\n", output.c_str());
}

namespace {

int run_collapse(const std::vector<std::string>& inputs, ReadOptions& r, WriteOptions& w, const std::string& out) {
  Profile p = read_profile(inputs, r);
  w.column = choose_column(p, r.weight);
  make_names_readable(p, w.names);
  OutputFile file(out);
  write_folded(p, w.column, file, w);
  file.commit();
  report_counters(p);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Buffers of 1 MB and more (timeline columns, sort keys, call-tree arrays) get mappings of
  // their own and go back to the OS when freed. Left adaptive, glibc raises this threshold after
  // the first such free and keeps later big buffers in the heap, so RSS stays at its high-water mark.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  remove_unfinished_outputs_on_signals();  // Ctrl-C leaves no half-written file behind
  CLI::App app{"flamefold — flame graphs and traces from the profiles you already have"};
  app.footer(kExamples);
  app.require_subcommand(1);
  app.set_version_flag("--version", "flamefold 0.1.0");

  std::vector<std::string> inputs;
  std::string output;
  ReadOptions r;
  WriteOptions w;

  auto* collapse = app.add_subcommand("collapse", "write folded stacks (stackcollapse-perf.pl compatible)");
  collapse->add_option("inputs", inputs, "input files (- for stdin)")->default_val(std::vector<std::string>{"-"});
  collapse->add_option("-o,--output", output, "output file (default: stdout)")->default_val("-");
  add_read_options(collapse, r);
  add_name_options(collapse, w);

  auto* flamegraph = app.add_subcommand("flamegraph", "render a flame graph: -o x.html (interactive) or x.svg (default: SVG on stdout)");
  flamegraph->add_option("inputs", inputs, "input files (- for stdin)")->default_val(std::vector<std::string>{"-"});
  flamegraph->add_option("-o,--output", output,
                         "output file: .html, .svg, .folded, .speedscope.json or .pb.gz (default: SVG on stdout, as "
                         "flamegraph.pl and inferno write it; --to names another kind)")
      ->default_val("-");
  add_read_options(flamegraph, r);
  add_graph_options(flamegraph, w);
  uint64_t timeline_events = 1000000;
  CLI::Option* timeline_events_option = flamegraph->add_option("--timeline-events", timeline_events,
                         "HTML (and speedscope) of traces: events kept for the flame chart view (speedscope's time order); past it, the first ProfilerSteps "
                         "(else the first stretch of time) that fit, which the page names (--steps/--window choose "
                         "others); 0 = no flame chart (default 1000000; 100000 for Nsight Systems and Ascend databases and traces of over 2000000 events)");

  auto* top = app.add_subcommand("top", "the hottest frames as a table");
  top->add_option("inputs", inputs, "input files (- for stdin)")->default_val(std::vector<std::string>{"-"});
  top->add_option("-o,--output", output, "output file (default: stdout)")->default_val("-");
  top->add_option("--sort", w.sort, "self or total (default self); or a pstats key (cumulative, tottime, ncalls, ...) for the python -m pstats table");
  top->add_option("-n,--limit", w.limit, "rows to print (0 = all; default 30)");
  top->add_flag("--json", w.json, "JSON output for scripts");
  add_read_options(top, r);
  add_name_options(top, w);

  auto* info = app.add_subcommand("info", "detected format, samples, threads, stacks");
  info->add_option("inputs", inputs, "input files (- for stdin)")->default_val(std::vector<std::string>{"-"});
  add_read_options(info, r);

  register_more_commands(app, inputs, output, r, w);
  CLI::App* diff = register_diff_command(app, inputs, output, r, w);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  r.progress = isatty(2);

  try {
    if (collapse->parsed()) return run_collapse(inputs, r, w, output);
    if (flamegraph->parsed()) {
      // Only the HTML viewer draws the flame chart: other outputs do not pay for its events.
      // Without -o or --to, the SVG flamegraph.pl writes goes to stdout.
      const OutputKind kind = output_kind(output, w.to, OutputKind::Svg);
      if (kind == OutputKind::Html || kind == OutputKind::Speedscope) {
        r.chart_events = timeline_events;
        r.chart_events_default = timeline_events_option->count() == 0;
      }
      check_source_roots(w, output);
      Profile p = read_profile(inputs, r);
      w.column = choose_column(p, r.weight);
      apply_name_options(p, output, w);
      write_profile(p, output, w, OutputKind::Svg);
      report_counters(p);
      if (output != "-") std::fprintf(stderr, "flamefold: wrote %s\n", output.c_str());
      return 0;
    }
    if (top->parsed() && is_pstats_sort_key(w.sort) && !w.json) {  // the `python -m pstats` table
      CallStats st = read_call_stats(inputs, r, w.names);
      if (st.from_samples)
        std::fprintf(stderr, "flamefold: note: sampled input: tottime/cumtime are sample weights, ncalls counts call paths\n");
      OutputFile file(output);
      write_pstats_table(st, w.sort, w.limit, file);
      file.commit();
      return 0;
    }
    if (top->parsed()) {
      Profile p = read_profile(inputs, r);
      w.column = choose_column(p, r.weight);
      make_names_readable(p, w.names);
      OutputFile file(output);
      write_top(p, w.column, file, w);
      const std::string& shown = p.columns[w.column].name;
      if (!w.json && (shown == "gpu" || shown == "npu" || shown == "kernels")) write_kernel_summary(p, file, w);
      file.commit();
      report_counters(p);
      return 0;
    }
    if (info->parsed()) {
      Profile p = read_profile(inputs, r);
      print_info(p);
      return 0;
    }
    if (diff->parsed()) return run_diff_command(inputs, output, r, w);
    return run_more_commands(app, inputs, output, r, w);
  } catch (const InputError& e) {
    std::fprintf(stderr, "flamefold: error: %s\n", e.what());
    return 2;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "flamefold: error: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "flamefold: error: out of memory\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "flamefold: error: %s\n", e.what());
    return 2;
  }
}
