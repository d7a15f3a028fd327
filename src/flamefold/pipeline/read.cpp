#include <string>

#include "flamefold/bundle.h"
#include "flamefold/errors.h"
#include "flamefold/merge.h"
#include "flamefold/pipeline.h"
#include "flamefold/readers/text/collapse.h"
#include "flamefold/readers/text/folded.h"
#include "flamefold/readers/json/kineto.h"
#include "flamefold/readers/text/perf_script.h"
#include "flamefold/readers/sqlite/nsys.h"
#include "flamefold/readers/sqlite/ascend.h"
#include "flamefold/readers/marshal/pstats.h"
#include "flamefold/readers/json/speedscope.h"
#include "flamefold/readers/json/cpuprofile.h"
#include "flamefold/readers/json/gecko.h"
#include "flamefold/readers/proto/pprof.h"

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
    case Format::Speedscope: return read_speedscope(input, o);
    case Format::Cpuprofile: return read_cpuprofile(input, o);
    case Format::Gecko: return read_gecko(input, o);
    case Format::Dtrace: return read_dtrace(input, o);
    case Format::Sample: return read_mac_sample(input, o);
    case Format::Xctrace: return read_xctrace(input, o);
    case Format::Vtune: return read_vtune(input, o);
    case Format::Vsprof: return read_vsprof(input, o);
    case Format::Ghcprof: return read_ghcprof(input, o);
    case Format::Bpftrace: return read_bpftrace(input, o);
    case Format::GoPprofText: return read_go_pprof_text(input, o);
    case Format::Jstack: return read_jstack(input, o);
    case Format::Stap: return read_stap(input, o);
    case Format::Pprof: return read_pprof(input, o);
    case Format::Unknown: break;
  }
  if (input.head().empty()) throw InputError(input.path(), "", "the file is empty");
  throw InputError(input.path(), "",
                   "cannot tell the format: not folded stacks, perf script, Chrome trace JSON, an nsys/Ascend "
                   "SQLite DB, a pstats file, speedscope JSON, a .cpuprofile, a Firefox profile or a stack format "
                   "FlameGraph collapses, or a pprof profile (use --format to say which)");
}

namespace {

bool all_kineto(const std::vector<std::string>& paths, const ReadOptions& o) {
  if (!o.format.empty()) return parse_format(o.format) == Format::Kineto;
  for (const std::string& path : paths) {
    if (path == "-") return false;
    Input input = Input::open(path);
    if (sniff_format(input.head(), path) != Format::Kineto) return false;
  }
  return true;
}

// What read_profile reads once bundles are unpacked: each input with the label of its rank frame.
Profile read_files(const std::vector<std::string>& paths, const std::vector<std::string>& labels, const ReadOptions& o) {
  if (paths.size() == 1) return read_one(paths[0], o);
  // Several Kineto traces (ranks): one timeline, one build; the rank comes from distributedInfo.
  if (all_kineto(paths, o)) return read_kineto_files(paths, o);
  // Several inputs: each becomes a top-level "rank" frame named after its file.
  Profile merged;
  CategoryId rank_cat = merged.symbols.category(category::kRank);
  for (size_t i = 0; i < paths.size(); ++i) {
    Profile one = read_one(paths[i], o);
    if (merged.source_format.empty()) merged.source_format = one.source_format;
    if (merged.columns.empty()) merged.default_column = one.default_column;
    NodeId at = merged.child(0, merged.symbols.frame(labels[i], {}, 0, rank_cat));
    graft(merged, at, one);
    merged.inputs.push_back(paths[i]);
  }
  return merged;
}

}  // namespace

Profile read_profile(const std::vector<std::string>& paths, const ReadOptions& o) {
  if (paths.empty()) throw UsageError("no input file (use - for standard input)");
  // A bundle (.tar.gz, .zip ...) stands for the files it holds, as if each had been given here.
  std::vector<Bundle> bundles;
  std::vector<std::string> files, labels, shown;
  for (const std::string& path : paths) {
    if (path != "-" && is_bundle(Input::open(path).head())) {
      bundles.emplace_back(path);
      for (const Bundle::Member& m : bundles.back().members()) {
        files.push_back(m.file);
        labels.push_back(m.name);
        shown.push_back(path + ":" + m.name);
      }
    } else {
      files.push_back(path);
      labels.push_back(base_name(path));
      shown.push_back(path);
    }
  }
  if (bundles.empty()) return read_files(files, labels, o);
  // Messages and the profile name members as bundle:member, not as their unpacked copies.
  Profile p;
  try {
    p = read_files(files, labels, o);
  } catch (const InputError& e) {
    for (size_t i = 0; i < files.size(); ++i)
      if (e.file() == files[i]) throw InputError(shown[i], e.place(), e.problem());
    throw;
  }
  for (std::string& in : p.inputs)
    for (size_t i = 0; i < files.size(); ++i)
      if (in == files[i]) in = shown[i];
  for (const Bundle& b : bundles) {
    p.facts.emplace_back("bundle", b.path() + " (" + std::to_string(b.members().size()) + " profiles)");
    for (const std::string& s : b.skipped()) p.facts.emplace_back("left out of the bundle", s);
  }
  return p;
}

}  // namespace flamefold
