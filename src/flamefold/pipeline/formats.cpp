#include <cstring>
#include <string>

#include "flamefold/errors.h"
#include "flamefold/pipeline.h"
#include "flamefold/readers/folded.h"
#include "flamefold/readers/perf_script.h"
#include "flamefold/readers/sqlite_db.h"

namespace flamefold {

std::string_view format_name(Format f) {
  switch (f) {
    case Format::Folded: return "folded";
    case Format::PerfScript: return "perf";
    case Format::Kineto: return "kineto";
    case Format::Nsys: return "nsys";
    case Format::Ascend: return "ascend";
    case Format::Pstats: return "pstats";
    case Format::Unknown: break;
  }
  return "unknown";
}

Format parse_format(std::string_view name) {
  if (name == "folded" || name == "collapsed") return Format::Folded;
  if (name == "perf" || name == "perf-script") return Format::PerfScript;
  if (name == "kineto" || name == "chrome" || name == "json" || name == "pytorch") return Format::Kineto;
  if (name == "nsys" || name == "nsight") return Format::Nsys;
  if (name == "ascend" || name == "msprof") return Format::Ascend;
  if (name == "pstats" || name == "cprofile" || name == "prof") return Format::Pstats;
  throw UsageError("unknown input format '" + std::string(name) +
                   "' (expected folded, perf, kineto, nsys, ascend or pstats)");
}

Format sniff_format(std::string_view head, std::string_view path) {
  if (head.size() >= 16 && std::memcmp(head.data(), "SQLite format 3\0", 16) == 0) {
    // Which profiler wrote the database: its tables say (StringIds vs STRING_IDS); the name
    // only breaks the tie when the file cannot be opened (stdin ...).
    std::string_view kind = sqlite::profiler_db_kind(std::string(path));
    if (kind == "nsys") return Format::Nsys;
    if (kind == "ascend") return Format::Ascend;
    if (path.find("ascend") != std::string_view::npos || path.find("msprof") != std::string_view::npos ||
        path.find("report_") != std::string_view::npos)
      return Format::Ascend;
    return Format::Nsys;
  }
  if (!head.empty()) {
    unsigned char c0 = static_cast<unsigned char>(head[0]);
    unsigned char c1 = head.size() > 1 ? static_cast<unsigned char>(head[1]) : 0;
    // marshal: a dict ('{', with or without the FLAG_REF bit) whose first key is a tuple.
    if (c0 == 0xfb || (c0 == '{' && (c1 == '(' || c1 == ')' || c1 == 0xa8 || c1 == 0xa9))) return Format::Pstats;
  }
  size_t i = 0;
  if (head.size() >= 3 && std::memcmp(head.data(), "\xEF\xBB\xBF", 3) == 0) i = 3;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) ++i;
  if (i < head.size() && (head[i] == '{' || head[i] == '[')) return Format::Kineto;
  if (looks_like_perf_script(head)) return Format::PerfScript;
  if (looks_like_folded(head)) return Format::Folded;
  return Format::Unknown;
}

}  // namespace flamefold
