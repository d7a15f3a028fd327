#include <cstring>
#include <string>

#include "flamefold/errors.h"
#include "flamefold/pipeline.h"
#include "flamefold/readers/proto/pprof.h"
#include "flamefold/readers/text/folded.h"
#include "flamefold/readers/text/perf_script.h"
#include "flamefold/readers/sqlite/sqlite_db.h"
#include "flamefold/readers/text/text_source.h"

namespace flamefold {

namespace {

constexpr size_t kHeadWindow = 1 << 16;  // what Input::head() shows at most

// JSON (a Chrome trace) starts with an object or an array of objects. A folded stack can
// start with '[' too ("[unknown];main 3"), so the character after the bracket decides.
bool looks_like_json(std::string_view head, size_t at) {
  char open = head[at];
  size_t i = at + 1;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) ++i;
  if (i == head.size()) return true;  // nothing else in view: let the JSON reader say what is wrong
  char c = head[i];
  return open == '{' ? (c == '"' || c == '}') : (c == '{' || c == ']' || c == '[' || c == '"');
}

// Whether `s` has a perf-style timestamp ("12345.678901:") among its first words.
bool has_timestamp_colon(std::string_view s) {
  s = s.substr(0, 256);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '.') continue;
    size_t a = i, b = i + 1;
    while (a > 0 && s[a - 1] >= '0' && s[a - 1] <= '9') --a;
    while (b < s.size() && s[b] >= '0' && s[b] <= '9') ++b;
    if (a < i && b > i + 1 && b < s.size() && s[b] == ':' && (a == 0 || s[a - 1] == ' ')) return true;
  }
  return false;
}

enum class CutOffLine { None, Folded, NotFolded };

// The first stack is longer than the head window (deep Java/Python stacks), so its count is
// out of sight: judge it by its start. None when the first line ends within the window (then
// looks_like_folded judges whole lines).
CutOffLine cut_off_first_line(std::string_view head) {
  if (head.size() < kHeadWindow) return CutOffLine::None;
  std::string decoded;
  head = head_as_utf8(head, decoded);
  // Only blank lines may come before it; the line itself must not end within the window.
  size_t pos = 0;
  while (true) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) break;
    for (size_t i = pos; i < nl; ++i)
      if (head[i] != ' ' && head[i] != '\t' && head[i] != '\r') return CutOffLine::None;  // a whole line
    pos = nl + 1;
  }
  std::string_view line = head.substr(pos);
  if (line.size() < 1024) return CutOffLine::None;
  char c0 = line[0];
  if (c0 == ' ' || c0 == '\t' || c0 == '#') return CutOffLine::NotFolded;  // perf's frames, comments
  if ((c0 == '{' || c0 == '[') && looks_like_json(line, 0)) return CutOffLine::NotFolded;
  // Frames separated by ';' in text: no control characters (a binary file), no perf header.
  bool separator = false;
  for (char c : line) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\r') return CutOffLine::NotFolded;
    separator |= c == ';';
  }
  return separator && !has_timestamp_colon(line) ? CutOffLine::Folded : CutOffLine::NotFolded;
}

}  // namespace

std::string_view format_name(Format f) {
  switch (f) {
    case Format::Folded: return "folded";
    case Format::PerfScript: return "perf";
    case Format::Kineto: return "kineto";
    case Format::Nsys: return "nsys";
    case Format::Ascend: return "ascend";
    case Format::Pstats: return "pstats";
    case Format::Pprof: return "pprof";
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
  if (name == "pprof" || name == "pb" || name == "proto") return Format::Pprof;
  throw UsageError("unknown input format '" + std::string(name) +
                   "' (expected folded, perf, kineto, nsys, ascend, pstats or pprof)");
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
  // pprof: protobuf fields of profile.proto, before the text formats (its first byte, 0x0a,
  // is a newline to them).
  if (looks_like_pprof(head, kHeadWindow)) return Format::Pprof;
  size_t i = 0;
  if (head.size() >= 3 && std::memcmp(head.data(), "\xEF\xBB\xBF", 3) == 0) i = 3;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) ++i;
  if (i < head.size() && (head[i] == '{' || head[i] == '[') && looks_like_json(head, i)) return Format::Kineto;
  if (looks_like_perf_script(head)) return Format::PerfScript;
  switch (cut_off_first_line(head)) {
    case CutOffLine::Folded: return Format::Folded;
    case CutOffLine::NotFolded: return Format::Unknown;
    case CutOffLine::None: break;
  }
  if (looks_like_folded(head)) return Format::Folded;
  return Format::Unknown;
}

}  // namespace flamefold
