// Shared pieces of the CLI: reporting, `info`, and the commands added by later features.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "flamefold/options.h"
#include "flamefold/profile.h"

// One summary line per recoverable oddity the reader counted.
void report_counters(const flamefold::Profile& profile);
void print_info(const flamefold::Profile& profile);

// The options every reading command takes, and those of the graph writers (cli/main.cpp).
void add_read_options(CLI::App* app, flamefold::ReadOptions& r);
void add_graph_options(CLI::App* app, flamefold::WriteOptions& w);  // includes the name options
// --source-root: throws UsageError when a folder is missing; notes that only HTML uses them.
void check_source_roots(const flamefold::WriteOptions& w, const std::string& output);
// --short-names and --merge-modules (readable ML stacks): every command that writes a profile.
void add_name_options(CLI::App* app, flamefold::WriteOptions& w);

// diff: two runs compared (cli/diff.cpp). Exit status 3 when --fail-above finds a regression.
CLI::App* register_diff_command(CLI::App& app, std::vector<std::string>& inputs, std::string& output,
                                flamefold::ReadOptions& r, flamefold::WriteOptions& w);
int run_diff_command(std::vector<std::string>& inputs, std::string& output, flamefold::ReadOptions& r,
                     flamefold::WriteOptions& w);

// convert, callgraph, merge-gpu ... (cli/more_commands.cpp)
void register_more_commands(CLI::App& app, std::vector<std::string>& inputs, std::string& output,
                            flamefold::ReadOptions& r, flamefold::WriteOptions& w);
int run_more_commands(CLI::App& app, std::vector<std::string>& inputs, std::string& output,
                      flamefold::ReadOptions& r, flamefold::WriteOptions& w);

// merge: many profiles into one (cli/merge.cpp); registered and run from more_commands.cpp.
void register_merge_command(CLI::App& app, std::vector<std::string>& inputs, std::string& output,
                            flamefold::ReadOptions& r, flamefold::WriteOptions& w);
bool merge_command_parsed();
int run_merge_command(std::vector<std::string>& inputs, std::string& output, flamefold::ReadOptions& r,
                      flamefold::WriteOptions& w);
