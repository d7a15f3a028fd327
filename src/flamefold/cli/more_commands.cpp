// Commands beyond the foundation: convert, callgraph, merge-gpu.
#include "cli/commands.h"

using namespace flamefold;

void register_more_commands(CLI::App&, std::vector<std::string>&, std::string&, ReadOptions&, WriteOptions&) {}

int run_more_commands(CLI::App&, std::vector<std::string>&, std::string&, ReadOptions&, WriteOptions&) { return 2; }
