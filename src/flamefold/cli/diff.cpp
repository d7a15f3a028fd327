// `flamefold diff`: two runs compared, for any inputs flamefold reads and any of their weights.
#include <cstdio>
#include <future>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "flamefold/diff.h"
#include "flamefold/errors.h"
#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "flamefold/writers/diff_table.h"

using namespace flamefold;

namespace {
std::vector<std::string> diff_inputs, before_files, after_files;
DiffOptions diff_opts;
std::string fail_above;  // "2%" or "2"
std::string diff_sort = "total";
}  // namespace

CLI::App* register_diff_command(CLI::App& app, std::vector<std::string>& inputs, std::string& output, ReadOptions& r,
                                WriteOptions& w) {
  CLI::App* d = app.add_subcommand(
      "diff",
      "compare two runs: BEFORE AFTER (or --before F... --after F...); -o x.html, x.svg, x.folded (stack before after), "
      "or a table of the frames that grew and shrank most");
  d->add_option("inputs", diff_inputs,
                "BEFORE AFTER; with more inputs, the first half is the before side (or use --before/--after)");
  d->add_option("--before", before_files, "the before side's inputs (merged, as flamegraph merges several)")
      ->expected(1, 1 << 20);
  d->add_option("--after", after_files, "the after side's inputs")->expected(1, 1 << 20);
  d->add_option("-o,--output", output, "output file: .html, .svg or .folded (default: a table on stdout)")->default_val("-");
  d->add_flag("-n,--normalize", diff_opts.normalize,
              "scale the before side to the after side's total (difffolded.pl -n: each stack, truncated)");
  d->add_flag("-s,--strip-hex", diff_opts.strip_hex, "read hex numbers (addresses) in frame names as 0x... (difffolded.pl -s)");
  d->add_option("--fail-above", fail_above,
                "CI gate: exit 3 and name the frames whose inclusive weight grew by more than this % of the before "
                "side's total (e.g. 2%); with --normalize, shares are compared");
  d->add_option("--sort", diff_sort, "table: rank by total (default) or self")->check(CLI::IsMember({"total", "self"}));
  d->add_option("--limit", w.limit, "table: rows per list (0 = all; default 30)");
  d->add_flag("--json", w.json, "table as JSON for scripts");
  add_read_options(d, r);
  add_graph_options(d, w);
  return d;
}

int run_diff_command(std::vector<std::string>& /*inputs*/, std::string& output, ReadOptions& r, WriteOptions& w) {
  const std::vector<std::string>& inputs = diff_inputs;
  std::vector<std::string> before = before_files, after = after_files;
  if (!before.empty() || !after.empty()) {
    if (before.empty() || after.empty()) throw UsageError("diff: give both --before and --after");
    if (!inputs.empty()) throw UsageError("diff: inputs given both as --before/--after and positionally");
  } else {
    if (inputs.size() < 2 || inputs.size() % 2 != 0)
      throw UsageError("diff: expected BEFORE AFTER, an even number of inputs (first half before), or --before/--after");
    before.assign(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(inputs.size() / 2));
    after.assign(inputs.begin() + static_cast<std::ptrdiff_t>(inputs.size() / 2), inputs.end());
  }
  double percent = -1;
  if (!fail_above.empty()) {
    std::string t = fail_above;
    if (t.back() == '%') t.pop_back();
    char* end = nullptr;
    percent = std::strtod(t.c_str(), &end);
    if (t.empty() || *end != '\0' || !(percent >= 0))
      throw UsageError("--fail-above " + fail_above + ": expected a percentage such as 2 or 2%");
  }

  check_source_roots(w, output);
  // Two runs have different process and thread ids: unless asked, the sides' threads are merged
  // (group levels none), so the same code lines up.
  if (r.group_by.empty()) r.group_by = "none";
  // The two sides are read at the same time (each reader also uses the cores it can).
  auto before_side = std::async(std::launch::async, [&] { return read_profile(before, r); });
  Profile after_profile = read_profile(after, r);
  Profile d = make_diff(before_side.get(), std::move(after_profile), diff_opts);
  w.column = choose_column(d, r.weight);
  w.sort = diff_sort;
  apply_name_options(d, output, w);
  if (output == "-" && w.to.empty()) {
    OutputFile file(output);
    write_diff_table(d, w.column, file, w);
    file.commit();
  } else {
    write_profile(d, output, w);
    if (output != "-") std::fprintf(stderr, "flamefold: wrote %s\n", output.c_str());
  }
  report_counters(d);
  if (percent >= 0) {
    std::vector<FrameChange> grew = regressions(d, w.column, percent);
    if (!grew.empty()) {
      std::fputs(regression_report(d, w.column, grew).c_str(), stderr);
      return 3;
    }
  }
  return 0;
}
