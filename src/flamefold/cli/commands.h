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

// convert, callgraph, merge-gpu ... (cli/more_commands.cpp)
void register_more_commands(CLI::App& app, std::vector<std::string>& inputs, std::string& output,
                            flamefold::ReadOptions& r, flamefold::WriteOptions& w);
int run_more_commands(CLI::App& app, std::vector<std::string>& inputs, std::string& output,
                      flamefold::ReadOptions& r, flamefold::WriteOptions& w);
