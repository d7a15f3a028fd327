#include <string>

#include "flamefold/errors.h"
#include "flamefold/merge.h"
#include "flamefold/pipeline.h"
#include "flamefold/readers/text/folded.h"
#include "flamefold/readers/json/kineto.h"
#include "flamefold/readers/text/perf_script.h"
#include "flamefold/readers/sqlite/nsys.h"
#include "flamefold/readers/sqlite/ascend.h"
#include "flamefold/readers/marshal/pstats.h"

namespace flamefold {

namespace {

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Profile read_one(const std::string& path, const ReadOptions& o) {
  Input input = Input::open(path);
  return read_profile(input, o);
}

bool all_kineto(const std::vector<std::string>& paths, const ReadOptions& o) {
  if (!o.format.empty()) return parse_format(o.format) == Format::Kineto;
  for (const std::string& path : paths) {
    if (path == "-") return false;
    Input input = Input::open(path);
    if (sniff_format(input.head(), path) != Format::Kineto) return false;
  }
  return true;
}

}  // namespace

Profile read_profile(Input& input, const ReadOptions& o) {
  Format f = o.format.empty() ? sniff_format(input.head(), input.path()) : parse_format(o.format);
  switch (f) {
    case Format::Folded: return read_folded(input, o);
    case Format::PerfScript: return read_perf_script(input, o);
    case Format::Kineto: return read_kineto(input, o);
    case Format::Nsys: return read_nsys(input.path(), o);
    case Format::Ascend: return read_ascend(input.path(), o);
    case Format::Pstats: return read_pstats(input, o);
    case Format::Unknown: break;
  }
  if (input.head().empty()) throw InputError(input.path(), "", "the file is empty");
  throw InputError(input.path(), "",
                   "cannot tell the format: not folded stacks, perf script, Chrome trace JSON, an nsys/Ascend "
                   "SQLite DB or a pstats file (use --format to say which)");
}

Profile read_profile(const std::vector<std::string>& paths, const ReadOptions& o) {
  if (paths.empty()) throw UsageError("no input file (use - for standard input)");
  if (paths.size() == 1) return read_one(paths[0], o);
  // Several Kineto traces (ranks): one timeline, one build; the rank comes from distributedInfo.
  if (all_kineto(paths, o)) return read_kineto_files(paths, o);
  // Several inputs: each becomes a top-level "rank" frame named after its file.
  Profile merged;
  for (const std::string& path : paths) {
    Profile one = read_one(path, o);
    one.inputs = {path};
    add_part(merged, one, base_name(path));
  }
  return merged;
}

}  // namespace flamefold
