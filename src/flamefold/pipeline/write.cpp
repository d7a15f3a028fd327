#include <string>

#include "flamefold/errors.h"
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

void apply_name_options(Profile& p, const std::string& path, const WriteOptions& o) {
  if (!o.names.any()) return;
  std::string ext = output_extension(path);
  if (ext == "html" || ext == "htm") return;
  make_names_readable(p, o.names);
}

void write_profile(const Profile& p, const std::string& path, const WriteOptions& o) {
  std::string ext = output_extension(path);
  if (p.columns.empty()) throw UsageError("the profile has no weights: nothing to write");
  int column = o.column >= 0 ? o.column : p.default_column;
  OutputFile out(path);
  if (is_speedscope_path(path)) {
    write_speedscope(p, out, o);
  } else if (ext == "svg") {
    write_svg(p, column, out, o);
  } else if (ext == "html" || ext == "htm") {
    write_html(p, out, o);
  } else if (is_pprof_path(path)) {
    write_pprof(p, column, out, is_gzipped_pprof_path(path));
  } else if (ext == "folded" || ext == "collapsed" || ext == "txt" || ext == "stacks" || path == "-") {
    write_folded(p, column, out, o);
  } else {
    throw UsageError("cannot tell the output kind from '" + path +
                     "': use .html, .svg, .folded, .speedscope.json or .pb.gz (or see `flamefold --help`)");
  }
  out.commit();
}

}  // namespace flamefold
