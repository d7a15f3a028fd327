#include "flamefold/readers/text/collapse_common.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

#include "flamefold/hash.h"
#include "flamefold/readers/text/stack_table.h"

namespace flamefold::collapse {

bool Lines::next(std::string_view& line) {
  while (pos_ >= chunk_.size()) {
    if (!src_.next(chunk_)) return false;
    pos_ = 0;
  }
  size_t nl = chunk_.find('\n', pos_);
  size_t end = nl == std::string_view::npos ? chunk_.size() : nl;
  line = chunk_.substr(pos_, end - pos_);
  pos_ = nl == std::string_view::npos ? chunk_.size() : nl + 1;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ++number_;
  return true;
}

std::string read_text(Input& input) {
  TextSource src(input);
  std::string text;
  std::string_view chunk;
  while (src.next(chunk)) text.append(chunk);
  return text;
}

size_t StackCounts::Hash::operator()(std::string_view s) const { return static_cast<size_t>(hash_bytes(s)); }

void StackCounts::add(std::string_view stack, double count) {
  auto it = counts_.find(stack);
  if (it == counts_.end())
    counts_.emplace(std::string(stack), count);
  else
    it->second += count;
}

void StackCounts::set(std::string_view stack, double count) {
  auto it = counts_.find(stack);
  if (it == counts_.end())
    counts_.emplace(std::string(stack), count);
  else
    it->second = count;
}

Profile StackCounts::build(const Input& input, std::string_view source_format, std::string_view unit) {
  Symbols symbols;
  stack_table::StackTable table;
  std::vector<FrameId> ids;
  for (const auto& [stack, count] : counts_) {
    if (count == 0) continue;  // a zero count draws nothing (flamegraph.pl skips it too)
    ids.clear();
    size_t pos = 0;
    while (true) {  // every frame, empty ones too: the same text comes back out
      size_t semi = stack.find(';', pos);
      std::string_view f = std::string_view(stack).substr(pos, semi == std::string::npos ? std::string::npos : semi - pos);
      ids.push_back(symbols.frame(f));
      if (semi == std::string::npos) break;
      pos = semi + 1;
    }
    table.add(ids.data(), static_cast<uint32_t>(ids.size()), stack_table::hash_frames(ids.data(), ids.size()), count);
  }
  counts_.clear();
  Profile p;
  stack_table::build_profile(stack_table::SymbolFrames(symbols), table, p);
  if (!p.columns.empty()) p.columns[0].unit = std::string(unit);
  p.source_format = std::string(source_format);
  p.inputs.push_back(input.path());
  return p;
}

bool is_unicode_space(uint32_t c) {
  return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0x85 || c == 0xa0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

namespace {

// The code point that starts at s[i] and its length in bytes (a stray byte counts as itself).
uint32_t decode_at(std::string_view s, size_t i, size_t& len) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  if (i + static_cast<size_t>(n) > s.size()) n = 1;
  uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : (c & 0x07);
  for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0x3f);
  len = static_cast<size_t>(n);
  return cp;
}

// Where the code point ending just before s[end] starts.
size_t start_before(std::string_view s, size_t end) {
  size_t i = end - 1;
  while (i > 0 && end - i < 4 && (static_cast<unsigned char>(s[i]) & 0xc0) == 0x80) --i;
  return i;
}

}  // namespace

std::string_view trim_start(std::string_view s) {
  size_t i = 0, len = 0;
  while (i < s.size() && is_unicode_space(decode_at(s, i, len))) i += len;
  return s.substr(i);
}

std::string_view trim_end(std::string_view s) {
  size_t end = s.size(), len = 0;
  while (end > 0) {
    size_t b = start_before(s, end);
    if (!is_unicode_space(decode_at(s, b, len)) || b + len != end) break;
    end = b;
  }
  return s.substr(0, end);
}

std::string_view trim(std::string_view s) { return trim_end(trim_start(s)); }

std::string_view perl_trim_start(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  return s.substr(i);
}

bool parse_usize(std::string_view s, uint64_t& v) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool parse_f64(std::string_view s, double& v) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s[0] == '+' || s[0] == '-') return false;
  // from_chars takes what Rust takes but hex floats (not produced here) and "infinity"'s case.
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec == std::errc::result_out_of_range) {
    v = std::strtod(std::string(s).c_str(), nullptr);  // Rust rounds to inf or 0 as strtod does
  } else if (r.ec != std::errc() || r.ptr != s.data() + s.size()) {
    return false;
  }
  if (negative) v = -v;
  return true;
}

bool perl_count_line(std::string_view line, std::string_view& digits) {
  size_t i = 0;
  while (i < line.size() && is_space(line[i])) ++i;
  size_t b = i;
  while (i < line.size() && is_digit(line[i])) ++i;
  if (i == b || i != line.size()) return false;
  digits = line.substr(b);
  return true;
}

double perl_number(std::string_view digits) {
  double v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  return v;
}

double as_usize(double v) {
  if (!(v > 0)) return 0;
  if (v >= 18446744073709551615.0) return 18446744073709551615.0;
  return std::trunc(v);
}

namespace {

bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

}  // namespace

std::string fix_rust_symbol(std::string_view symbol) {
  constexpr size_t kHash = 17;  // "h" and 16 hex digits
  if (symbol.size() < kHash) return std::string(symbol);
  std::string_view hash = symbol.substr(symbol.size() - kHash);
  if (hash[0] != 'h') return std::string(symbol);
  for (char c : hash.substr(1))
    if (!is_hex(c)) return std::string(symbol);
  std::string_view rest = symbol.substr(0, symbol.size() - kHash);
  if (rest.size() >= 2 && rest.substr(rest.size() - 2) == "::") rest.remove_suffix(2);
  if (rest.substr(0, 2) == "_$") rest.remove_prefix(1);
  static const std::pair<std::string_view, std::string_view> kEscapes[] = {
      {"$SP$", "@"},  {"$BP$", "*"},  {"$RF$", "&"},  {"$LT$", "<"},   {"$GT$", ">"},   {"$LP$", "("},  {"$RP$", ")"},
      {"$C$", ","},   {"$u7e$", "~"}, {"$u20$", " "}, {"$u27$", "'"},  {"$u3d$", "="},  {"$u5b$", "["}, {"$u5d$", "]"},
      {"$u7b$", "{"}, {"$u7d$", "}"}, {"$u3b$", ";"}, {"$u2b$", "+"},  {"$u21$", "!"},  {"$u22$", "\""}};
  std::string out;
  while (!rest.empty()) {
    if (rest[0] == '.') {
      bool pair = rest.size() > 1 && rest[1] == '.';
      out += pair ? "::" : ".";
      rest.remove_prefix(pair ? 2 : 1);
    } else if (rest[0] == '$') {
      bool known = false;
      for (const auto& [from, to] : kEscapes)
        if (rest.substr(0, from.size()) == from) {
          out += to;
          rest.remove_prefix(from.size());
          known = true;
          break;
        }
      if (!known) {  // an escape it does not know: the rest as it is
        out += rest;
        break;
      }
    } else {
      size_t n = rest.find_first_of("$.");
      if (n == std::string_view::npos) n = rest.size();
      out += rest.substr(0, n);
      rest.remove_prefix(n);
    }
  }
  return out;
}

}  // namespace flamefold::collapse
