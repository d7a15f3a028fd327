#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/pipeline.h"
#include "flamefold/readers/text/collapse.h"
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
  // Only blank and comment lines may come before it; the line itself must not end within the window.
  size_t pos = 0;
  while (true) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) break;
    if (head[pos] == '#' || head.substr(pos, 2) == "//") {  // Austin's metadata lines
      pos = nl + 1;
      continue;
    }
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

// The keys of the top-level JSON object that the head shows (a key whose value runs past the
// head is the last one), with the head's text for a look inside values.
std::vector<std::string_view> top_level_keys(std::string_view head, size_t at) {
  std::vector<std::string_view> keys;
  int depth = 0;
  bool expect_key = false;
  for (size_t i = at; i < head.size(); ++i) {
    char c = head[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < head.size() && head[j] != '"') j += head[j] == '\\' ? 2 : 1;
      if (j >= head.size()) break;
      if (depth == 1 && expect_key) keys.push_back(head.substr(i + 1, j - i - 1));
      expect_key = false;
      i = j;
    } else if (c == '{' || c == '[') {
      ++depth;
      expect_key = depth == 1 && c == '{';
    } else if (c == '}' || c == ']') {
      if (--depth <= 0) break;
    } else if (c == ',' && depth == 1) {
      expect_key = true;
    }
  }
  return keys;
}

// A trace Chrome recorded (DevTools' Performance panel, chrome://tracing): its events name the
// V8 sampler, DevTools' timeline or Chrome's own categories early on. Its JS samples are what a
// flame graph of it shows; without them the cpuprofile reader hands it to the Chrome trace one.
bool looks_like_devtools_trace(std::string_view head) {
  for (std::string_view marker : {"\"ProfileChunk\"", "\"CpuProfile\"", "disabled-by-default-v8.cpu_profiler",
                                  "devtools.timeline", "\"TracingStartedInBrowser\"", "\"TracingStartedInPage\"",
                                  "\"toplevel\"", "blink.user_timing"})
    if (head.find(marker) != std::string_view::npos) return true;
  return false;
}

// Which JSON profile the head shows: speedscope, a .cpuprofile, a Firefox (gecko) profile, or
// else a Chrome trace (the Kineto reader, whose messages say what is wrong with other JSON).
Format sniff_json(std::string_view head, size_t at) {
  auto contains = [&](std::string_view s) { return head.find(s) != std::string_view::npos; };
  if (head[at] == '[') return looks_like_devtools_trace(head) ? Format::Cpuprofile : Format::Kineto;
  std::vector<std::string_view> keys = top_level_keys(head, at);
  auto has = [&](std::string_view k) { return std::find(keys.begin(), keys.end(), k) != keys.end(); };
  if (has("traceEvents")) return looks_like_devtools_trace(head) ? Format::Cpuprofile : Format::Kineto;
  if ((has("$schema") && contains("speedscope")) || (has("profiles") && has("shared"))) return Format::Speedscope;
  if (has("nodes") && (has("samples") || has("timeDeltas") || has("startTime") || contains("\"callFrame\"")))
    return Format::Cpuprofile;
  if (has("head") && (has("timestamps") || has("samples") || has("startTime") || contains("\"functionName\"")))
    return Format::Cpuprofile;
  if (has("meta") && (has("threads") || has("libs") || has("processes") || contains("\"preprocessedProfileVersion\"") ||
                      contains("\"stackwalk\"")))
    return Format::Gecko;
  if (has("threads") && contains("\"stackTable\"")) return Format::Gecko;
  // Firefox DevTools' "Recorded Performance Data": the gecko profile under "profile".
  if (has("profile") && (contains("\"libs\"") || contains("\"threads\"") || contains("Recorded Performance Data")))
    return Format::Gecko;
  return Format::Kineto;
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
    case Format::Speedscope: return "speedscope";
    case Format::Cpuprofile: return "cpuprofile";
    case Format::Gecko: return "gecko";
    case Format::Dtrace: return "dtrace";
    case Format::Sample: return "sample";
    case Format::Xctrace: return "xctrace";
    case Format::Vtune: return "vtune";
    case Format::Vsprof: return "vsprof";
    case Format::Ghcprof: return "ghcprof";
    case Format::Bpftrace: return "bpftrace";
    case Format::GoPprofText: return "go";
    case Format::Jstack: return "jstack";
    case Format::Stap: return "stap";
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
  if (name == "speedscope") return Format::Speedscope;
  if (name == "cpuprofile" || name == "v8" || name == "devtools") return Format::Cpuprofile;
  if (name == "gecko" || name == "firefox") return Format::Gecko;
  if (name == "dtrace") return Format::Dtrace;
  if (name == "sample") return Format::Sample;
  if (name == "xctrace" || name == "instruments") return Format::Xctrace;
  if (name == "vtune") return Format::Vtune;
  if (name == "vsprof") return Format::Vsprof;
  if (name == "ghcprof" || name == "ghc") return Format::Ghcprof;
  if (name == "bpftrace") return Format::Bpftrace;
  if (name == "go" || name == "pprof-text") return Format::GoPprofText;
  if (name == "jstack") return Format::Jstack;
  if (name == "stap" || name == "systemtap") return Format::Stap;
  if (name == "pprof" || name == "pb" || name == "proto") return Format::Pprof;
  throw UsageError("unknown input format '" + std::string(name) +
                   "' (expected folded, perf, kineto, nsys, ascend, pstats, speedscope, cpuprofile, gecko, pprof, dtrace, "
                   "sample, xctrace, vtune, vsprof, ghcprof, bpftrace, go, jstack or stap)");
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
  if (i < head.size() && (head[i] == '{' || head[i] == '[') && looks_like_json(head, i)) return sniff_json(head, i);
  if (looks_like_perf_script(head)) return Format::PerfScript;
  switch (sniff_stack_format(head)) {
    case StackFormat::Dtrace: return Format::Dtrace;
    case StackFormat::Sample: return Format::Sample;
    case StackFormat::Xctrace: return Format::Xctrace;
    case StackFormat::Vtune: return Format::Vtune;
    case StackFormat::Vsprof: return Format::Vsprof;
    case StackFormat::Ghcprof: return Format::Ghcprof;
    case StackFormat::Bpftrace: return Format::Bpftrace;
    case StackFormat::Go: return Format::GoPprofText;
    case StackFormat::Jstack: return Format::Jstack;
    case StackFormat::Stap: return Format::Stap;
    case StackFormat::None: break;
  }
  switch (cut_off_first_line(head)) {
    case CutOffLine::Folded: return Format::Folded;
    case CutOffLine::NotFolded: return Format::Unknown;
    case CutOffLine::None: break;
  }
  if (looks_like_folded(head)) return Format::Folded;
  return Format::Unknown;
}

}  // namespace flamefold
