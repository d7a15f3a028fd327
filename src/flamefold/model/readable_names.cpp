// Readable ML stacks: short C++ names and merged nn.Module instances (readable_names.h).
// web/viewer/59-ml-names.js mirrors shortName() step by step: change both together.
#include "flamefold/readable_names.h"

#include <algorithm>
#include <string>
#include <vector>

#include "flamefold/hash.h"

namespace flamefold {

namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // …
constexpr std::string_view kAnonymous = "(anonymous namespace)::";
constexpr int kMaxKeptLevels = 3;      // single template arguments kept this many levels deep
constexpr size_t kMaxKeptArgument = 120;  // a longer single argument collapses after all

bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '~'; }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9') || c == '$'; }

// The end of an `operator…` symbol starting at i ("operator()", "operator<<", "operator new"
// is not one: only symbols count), or i when no operator starts there.
size_t operator_end(std::string_view s, size_t i) {
  constexpr std::string_view kOp = "operator";
  if (s.compare(i, kOp.size(), kOp) != 0 || (i > 0 && ident_char(s[i - 1]))) return i;
  size_t j = i + kOp.size();
  if (j < s.size() && ident_char(s[j])) return i;  // operatorFoo: an identifier
  if (s.compare(j, 2, "()") == 0 || s.compare(j, 2, "[]") == 0) return j + 2;
  size_t k = j;
  while (k < s.size() && std::string_view("<>=!+-*/%^&|~,").find(s[k]) != std::string_view::npos) ++k;
  return k > j ? k : i;
}

// Scans s at bracket depth 0 of <> () [] {} (angles count only outside () [] {}, where they
// are comparisons): calls at(i) for every depth-0 character and returns false on unbalanced
// brackets. at() returns how many characters it consumed (0: the scan treats s[i] itself).
template <typename At>
bool scan(std::string_view s, At&& at) {
  std::string open;  // expected closers
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (open.empty()) {
      size_t used = at(i);
      if (used == std::string_view::npos) return true;  // the caller is done
      if (used) {
        i += used;
        continue;
      }
    } else {
      size_t op = operator_end(s, i);
      if (op != i) {
        i = op;
        continue;
      }
    }
    bool angles = open.empty() || open.back() == '>';
    if (c == '(') open.push_back(')');
    else if (c == '[') open.push_back(']');
    else if (c == '{') open.push_back('}');
    else if (c == '<' && angles) open.push_back('>');
    else if (c == ')' || c == ']' || c == '}' || (c == '>' && angles && !(i > 0 && s[i - 1] == '-'))) {
      if (open.empty() || open.back() != c) return false;
      open.pop_back();
    }
    ++i;
  }
  return open.empty();
}

// The index of the bracket that closes the one at s[open] (the rules of scan()); npos if none.
size_t matching_close(std::string_view s, size_t open_at) {
  std::string open;
  for (size_t j = open_at; j < s.size(); ++j) {
    if (j > open_at) {
      size_t op = operator_end(s, j);
      if (op != j) {
        j = op - 1;
        continue;
      }
    }
    char c = s[j];
    bool angles = open.empty() || open.back() == '>';
    if (c == '(') open.push_back(')');
    else if (c == '[') open.push_back(']');
    else if (c == '{') open.push_back('}');
    else if (c == '<' && angles) open.push_back('>');
    else if (c == ')' || c == ']' || c == '}' || (c == '>' && angles && !(j > 0 && s[j - 1] == '-'))) {
      if (open.empty() || open.back() != c) return std::string_view::npos;
      open.pop_back();
    }
    if (open.empty()) return j;
  }
  return std::string_view::npos;
}

bool shorten_into(std::string_view s, int level, std::string& out);

// Template arguments (between the brackets): one argument is kept, itself shortened, up to
// kMaxKeptLevels; several (or one too long or odd) become "…".
void template_arguments(std::string_view args, int level, std::string& out) {
  bool several = false;
  scan(args, [&](size_t i) -> size_t {
    if (args[i] == ',') several = true;
    return several ? std::string_view::npos : 0;
  });
  std::string_view a = args;
  while (!a.empty() && a.front() == ' ') a.remove_prefix(1);
  while (!a.empty() && a.back() == ' ') a.remove_suffix(1);
  if (a.empty()) {  // foo<>
    out += "<>";
    return;
  }
  std::string kept;
  if (!several && level < kMaxKeptLevels && shorten_into(a, level + 1, kept) &&
      kept.size() <= kMaxKeptArgument) {
    out += '<';
    out += kept;
    out += '>';
    return;
  }
  out += '<';
  out += kEllipsis;
  out += '>';
}

// s (a qualified name or a template argument) with its templates rewritten; false when s holds
// something a name or a type does not (a parenthesis, a dot, a lambda ...).
bool shorten_into(std::string_view s, int level, std::string& out) {
  size_t start = out.size();
  bool ok = true;
  bool balanced = scan(s, [&](size_t i) -> size_t {
    size_t op = operator_end(s, i);
    if (op != i) {
      out.append(s.substr(i, op - i));
      return op - i;
    }
    char c = s[i];
    if (c == '<') {
      size_t close = matching_close(s, i);
      if (close == std::string_view::npos) {
        ok = false;
        return std::string_view::npos;
      }
      template_arguments(s.substr(i + 1, close - i - 1), level, out);
      // "> >" and ">>" alike: spaces after a template are dropped.
      return close + 1 - i;
    }
    if (ident_char(c) || c == ':' || c == '*' || c == '&' || c == '-' || (c == ' ' && level > 0)) {
      if (c == ' ' && (out.size() == start || out.back() == '>')) return 1;
      out.push_back(c);
      return 1;
    }
    ok = false;
    return std::string_view::npos;
  });
  if (!ok || !balanced) {
    out.resize(start);
    return false;
  }
  return out.size() > start;
}

// Tensile (rocBLAS/hipBLASLt) kernels: Cijk_<layout>_<types>_MT<tile>_MI<instruction>_<dozens
// of tuning fields>: the fields after the macro tile and matrix instruction are cut.
std::string tensile_short(std::string_view name) {
  if (name.rfind("Cijk_", 0) != 0) return {};
  size_t mt = name.find("_MT");
  if (mt == std::string_view::npos || mt + 3 >= name.size() || !(name[mt + 3] >= '0' && name[mt + 3] <= '9')) return {};
  size_t end = name.find('_', mt + 3);
  if (end != std::string_view::npos && name.compare(end, 3, "_MI") == 0) end = name.find('_', end + 3);
  if (end == std::string_view::npos || end + 1 >= name.size()) return {};
  return std::string(name.substr(0, end + 1)) + std::string(kEllipsis);
}

}  // namespace

std::string short_name(std::string_view raw) {
  if (raw.find('<') == std::string_view::npos && raw.find('(') == std::string_view::npos) {
    std::string t = tensile_short(raw);
    return t.empty() ? std::string(raw) : t;
  }
  std::string text;
  std::string_view s = raw;
  if (raw.find(kAnonymous) != std::string_view::npos) {
    for (size_t at = 0;;) {
      size_t next = raw.find(kAnonymous, at);
      text.append(raw.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
      if (next == std::string_view::npos) break;
      at = next + kAnonymous.size();
    }
    s = text;
  }
  // The name: from after the last depth-0 space (a return type before it) to the parameter
  // list, a '(' right after an identifier or a template's '>'. A '(' anywhere else (after a
  // space: "Memset (Device)"), or a '<' after a space, means this is not a C++ name.
  size_t name_start = 0, name_end = s.size(), operator_at = std::string_view::npos;
  bool odd = false;
  bool balanced = scan(s, [&](size_t i) -> size_t {
    size_t op = operator_end(s, i);
    if (op != i) {
      operator_at = op;  // "operator()" ends where its parameter list starts
      return op - i;
    }
    char c = s[i];
    if (c == ' ') name_start = i + 1;
    bool after_name = i > 0 && (ident_char(s[i - 1]) || s[i - 1] == '>' || i == operator_at);
    if (c == '(') {
      if (!after_name) odd = true;
      else name_end = i;
      return std::string_view::npos;
    }
    if (c == '<' && !after_name) {
      odd = true;
      return std::string_view::npos;
    }
    return 0;
  });
  if (odd || !balanced || name_start >= name_end || !(ident_start(s[name_start]) || s[name_start] == ':'))
    return std::string(raw);
  std::string out;
  if (!shorten_into(s.substr(name_start, name_end - name_start), 0, out)) return std::string(raw);
  return out;
}

std::string_view module_class(std::string_view name) {
  constexpr std::string_view kModule = "nn.Module: ";
  if (name.rfind(kModule, 0) != 0) return {};
  size_t under = name.rfind('_');
  if (under == std::string_view::npos || under <= kModule.size() || under + 1 == name.size()) return {};
  for (size_t i = under + 1; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return {};
  return name.substr(0, under);
}

std::string readable_name(std::string_view name, const NameOptions& o) {
  if (o.merge_modules) {
    std::string_view m = module_class(name);
    if (!m.empty()) return std::string(m);
  }
  return o.short_names ? short_name(name) : std::string(name);
}

void make_names_readable(Profile& p, const NameOptions& o) {
  if (!o.any()) return;
  const Symbols& from = p.symbols;
  Profile out;
  for (size_t c = 1; c < from.category_count(); ++c) out.symbols.category(from.category_name(static_cast<CategoryId>(c)));
  std::vector<FrameId> frame_map(from.frame_count());
  size_t renamed = 0, modules = 0;
  for (FrameId f = 0; f < from.frame_count(); ++f) {
    const Frame& fr = from[f];
    std::string_view name = from.name(f);
    std::string name2 = from.is_group(f) ? std::string(name) : readable_name(name, o);
    if (name2 != name) {
      ++renamed;
      if (o.merge_modules && !module_class(name).empty()) ++modules;
    }
    frame_map[f] = out.symbols.frame(name2, from.file(f), fr.line, fr.category);
  }
  if (renamed == 0) return;

  for (const WeightColumn& c : p.columns) out.add_column(c.name, c.unit);
  out.default_column = p.default_column;
  out.source_format = std::move(p.source_format);
  out.inputs = std::move(p.inputs);
  out.facts = std::move(p.facts);
  out.counters = std::move(p.counters);
  const size_t n = p.node_count(), columns = p.columns.size();
  for (size_t c = 0; c < columns; ++c) out.columns[c].self[0] = p.columns[c].self[0];
  // Nodes come after their parents: each lands under its parent's new node, and nodes that now
  // share a frame under one parent become one (their children then meet under it in turn).
  std::vector<NodeId> node_map(n, 0);
  for (NodeId v = 1; v < n; ++v) {
    NodeId m = out.child(node_map[p.parent[v]], frame_map[p.frame[v]]);
    node_map[v] = m;
    for (size_t c = 0; c < columns; ++c)
      if (double w = p.columns[c].self[v]; w != 0) out.columns[c].self[m] += w;
  }
  // Kernel statistics of frames that now share a name merge.
  U64Map index(64);
  for (const DeviceOpStats& s : p.device_ops) {
    FrameId f = frame_map[s.frame];
    uint32_t at = index.find_or_insert(f, static_cast<uint32_t>(out.device_ops.size()));
    if (at == out.device_ops.size()) {
      out.device_ops.push_back(DeviceOpStats{f, s.count, s.total_ns, s.min_ns, s.max_ns});
      continue;
    }
    DeviceOpStats& d = out.device_ops[at];
    d.count += s.count;
    d.total_ns += s.total_ns;
    d.min_ns = std::min(d.min_ns, s.min_ns);
    d.max_ns = std::max(d.max_ns, s.max_ns);
  }
  std::sort(out.device_ops.begin(), out.device_ops.end(), [&](const DeviceOpStats& a, const DeviceOpStats& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return out.symbols.name(a.frame) < out.symbols.name(b.frame);
  });
  if (modules) out.facts.emplace_back("module instances merged (--merge-modules)", std::to_string(modules));
  if (renamed > modules) out.facts.emplace_back("names shortened (--short-names)", std::to_string(renamed - modules));
  p = std::move(out);
}

}  // namespace flamefold
