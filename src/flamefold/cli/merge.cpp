// `flamefold merge`: many profiles (any formats) into one, in any output format.
#include <cstdio>

#include "cli/commands.h"
#include "flamefold/pipeline.h"

using namespace flamefold;

namespace {
CLI::App* merge_cmd = nullptr;
std::string label_by = "file";
}  // namespace

void register_merge_command(CLI::App& app, std::vector<std::string>& inputs, std::string& output, ReadOptions& r,
                            WriteOptions& w) {
  merge_cmd = app.add_subcommand(
      "merge", "many profiles (any formats) into one: -o x.pb.gz, x.folded, x.html, x.svg ...; associative and "
               "order-independent, so per-rank profiles can be reduced in any tree shape");
  merge_cmd->add_option("inputs", inputs, "input files")->required();
  merge_cmd->add_option("-o,--output", output, "output file (kind by extension; - for folded on stdout)")->required();
  merge_cmd->add_option("--label-by", label_by,
                        "a top level per input named after its file (default), its rank ('rank N': the rank it records, "
                        "else the number in its name) or none (all stacks merged); inputs that are merges already keep "
                        "their levels")
      ->check(CLI::IsMember({"file", "rank", "none"}));
  add_read_options(merge_cmd, r);
  add_graph_options(merge_cmd, w);
}

bool merge_command_parsed() { return merge_cmd && merge_cmd->parsed(); }

int run_merge_command(std::vector<std::string>& inputs, std::string& output, ReadOptions& r, WriteOptions& w) {
  Profile p = merge_inputs(inputs, r, label_by, [](const std::string& path, const Profile& one) {
    for (const Counter& c : one.counters)
      std::fprintf(stderr, "flamefold: warning: %s: %s: %llu\n", path.c_str(), c.what.c_str(),
                   static_cast<unsigned long long>(c.count));
  });
  w.column = p.default_column;
  check_source_roots(w, output);
  apply_name_options(p, output, w);
  write_profile(p, output, w);
  if (output != "-")
    std::fprintf(stderr, "flamefold: merged %zu inputs into %s (%zu call paths)\n", inputs.size(), output.c_str(),
                 p.node_count() - 1);
  return 0;
}
