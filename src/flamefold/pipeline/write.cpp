#include <iterator>
#include <string>

#include "flamefold/errors.h"
#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "flamefold/readable_names.h"
#include "flamefold/writers/folded.h"
#include "flamefold/writers/html.h"
#include "flamefold/writers/speedscope.h"
#include "flamefold/writers/pprof.h"
#include "flamefold/writers/svg.h"
#include "flamefold/writers/top.h"

namespace flamefold {

int choose_column(const Profile& p, std::string_view weight) {
  if (p.columns.empty()) throw UsageError("the profile has no weights");
  if (weight.empty()) return p.default_column;
  int c = p.column(weight);
  if (c >= 0) return c;
  // Friendly aliases.
  if (weight == "count") c = p.column("kernels");
  if (weight == "time") c = p.column("cpu");
  if (c >= 0) return c;
  std::string have;
  for (const WeightColumn& col : p.columns) have += (have.empty() ? "" : ", ") + col.name;
  throw UsageError("this profile has no '" + std::string(weight) + "' weight (it has: " + have + ")");
}

OutputKind output_kind(const std::string& path, std::string_view to, OutputKind on_stdout) {
  for (size_t i = 0; i < std::size(kOutputKindNames); ++i)
    if (to == kOutputKindNames[i]) return static_cast<OutputKind>(i + 1);
  if (!to.empty()) throw UsageError("--to " + std::string(to) + ": expected html, svg, folded, speedscope or pprof");
  // .speedscope.json before .json, .pb.gz before .gz.
  if (is_speedscope_path(path)) return OutputKind::Speedscope;
  if (is_pprof_path(path)) return OutputKind::Pprof;
  const std::string ext = output_extension(path);
  if (ext == "html" || ext == "htm") return OutputKind::Html;
  if (ext == "svg") return OutputKind::Svg;
  if (ext == "folded" || ext == "collapsed" || ext == "txt" || ext == "stacks") return OutputKind::Folded;
  if (names_stdout(path)) return on_stdout;
  return OutputKind::Unknown;
}

void apply_name_options(Profile& p, const std::string& path, const WriteOptions& o) {
  if (!o.names.any()) return;
  if (output_kind(path, o.to) == OutputKind::Html) return;
  make_names_readable(p, o.names);
}

void write_profile(const Profile& p, const std::string& path, const WriteOptions& o, OutputKind on_stdout) {
  const OutputKind kind = output_kind(path, o.to, on_stdout);
  if (kind == OutputKind::Unknown)
    throw UsageError("cannot tell the output kind from '" + path +
                     "': use .html, .svg, .folded, .speedscope.json or .pb.gz, or name it with --to (html, svg, "
                     "folded, speedscope, pprof)");
  if (p.columns.empty()) throw UsageError("the profile has no weights: nothing to write");
  int column = o.column >= 0 ? o.column : p.default_column;
  OutputFile out(path);
  switch (kind) {
    case OutputKind::Speedscope: write_speedscope(p, out, o); break;
    case OutputKind::Svg: write_svg(p, column, out, o); break;
    case OutputKind::Html: write_html(p, out, o); break;
    case OutputKind::Pprof: write_pprof(p, column, out, pprof_output_gzipped(path)); break;
    case OutputKind::Folded: write_folded(p, column, out, o); break;
    case OutputKind::Unknown: break;
  }
  out.commit();
}

}  // namespace flamefold
