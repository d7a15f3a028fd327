#include "json_profile.h"

#include <algorithm>
#include <cmath>

namespace flamefold::json_profile {

static_assert(Input::kPadding >= simdjson::SIMDJSON_PADDING, "Input pads for simdjson");

Document::Document(Input& input) : name_(input.path()) {
  text_ = input.whole();
  if (text_.find_first_not_of(" \t\r\n") == std::string_view::npos) fail("", "the file is empty");
  auto r = parser_.iterate(simdjson::padded_string_view(text_.data(), text_.size(), text_.size() + Input::kPadding));
  if (r.error()) fail_json(r.error());
  doc_ = std::move(r.value_unsafe());
  iterating_ = true;
}

Document::Document(std::string name, std::string_view text, uint64_t base_offset, std::string within)
    : name_(std::move(name)), owned_(text), within_(std::move(within)), base_(base_offset) {
  owned_.append(simdjson::SIMDJSON_PADDING, ' ');
  text_ = std::string_view(owned_.data(), text.size());
  auto r = parser_.iterate(simdjson::padded_string_view(owned_.data(), text.size(), owned_.size()));
  if (r.error()) fail_json(r.error());
  doc_ = std::move(r.value_unsafe());
  iterating_ = true;
}

// Whether the text ends inside a string or with arrays/objects still open: then the walk ran
// off its end, and that, not what it was reading there, is the problem. Only on the error path.
bool Document::truncated() const {
  std::vector<char> open;  // closers expected, innermost last
  for (size_t i = 0; i < text_.size(); ++i) {
    char c = text_[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < text_.size() && text_[j] != '"') j += text_[j] == '\\' ? 2 : 1;
      if (j >= text_.size()) return true;
      i = j;
    } else if (c == '{' || c == '[') {
      open.push_back(c == '{' ? '}' : ']');
    } else if (c == '}' || c == ']') {
      if (open.empty() || open.back() != c) return false;  // malformed, not cut off
      open.pop_back();
    }
  }
  return !open.empty();
}

void Document::fail(const std::string& place, const std::string& problem) {
  if (truncated())
    throw InputError(name_, (within_.empty() ? "" : within_ + " ") + "byte " + std::to_string(base_ + text_.size()),
                     "the JSON ends early (a truncated file?)");
  throw InputError(name_, place, problem);
}

std::string Document::here() {
  const char* at = nullptr;
  std::string prefix = within_.empty() ? "byte " : within_ + " byte ";
  if (!iterating_ || doc_.current_location().get(at) || at < text_.data() || at > text_.data() + text_.size())
    return prefix + std::to_string(base_ + text_.size());
  return prefix + std::to_string(offset_of(at));
}

void Document::fail_json(simdjson::error_code e) {
  const char* at = nullptr;
  bool at_end = !iterating_ || doc_.current_location().get(at) != simdjson::SUCCESS || at >= text_.data() + text_.size();
  switch (e) {
    case simdjson::EMPTY: fail("", "the file is empty");
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
    case simdjson::UNCLOSED_STRING:
      fail(here(), "the JSON ends early (a truncated file?)");
    case simdjson::DEPTH_ERROR: fail(here(), "JSON nested too deeply");
    case simdjson::UTF8_ERROR: fail(here(), "the text is not valid UTF-8");
    case simdjson::CAPACITY: fail("", "the file is too large for the JSON parser (4 GB at most)");
    default: break;
  }
  if (at_end && (e == simdjson::TAPE_ERROR || e == simdjson::OUT_OF_BOUNDS))
    fail(here(), "the JSON ends early (a truncated file?)");
  fail(here(), std::string("malformed JSON: ") + simdjson::error_message(e));
}

std::string_view key_of(sj::field& f) {
  const char* k = f.key().raw();  // the text up to the closing quote (the document is padded)
  const char* e = k;
  while (*e != '"') e += *e == '\\' ? 2 : 1;
  return std::string_view(k, size_t(e - k));
}

namespace {
const char* type_name(sj::json_type t) {
  switch (t) {
    case sj::json_type::array: return "an array";
    case sj::json_type::object: return "an object";
    case sj::json_type::number: return "a number";
    case sj::json_type::string: return "a string";
    case sj::json_type::boolean: return "true or false";
    case sj::json_type::null: return "null";
  }
  return "something else";
}
[[noreturn]] void wrong(Document& d, sj::value& v, const std::string& what, const char* expected) {
  sj::json_type t;
  std::string got = v.type().get(t) ? "" : std::string(", not ") + type_name(t);
  d.fail(d.here(), what + ": expected " + expected + got);
}
}  // namespace

double number(Document& d, sj::value v, const std::string& what) {
  double x;
  if (v.get_double().get(x)) wrong(d, v, what, "a number");
  if (!std::isfinite(x)) d.fail(d.here(), what + ": the number is out of range");
  return x;
}

bool is_null(sj::value& v) {
  bool null = false;
  return !v.is_null().get(null) && null;
}

int64_t index_or_null(Document& d, sj::value v, const std::string& what) {
  if (is_null(v)) return -1;
  uint64_t u;
  if (!v.get_uint64().get(u)) {
    if (u > uint64_t(INT64_MAX)) d.fail(d.here(), what + ": index out of range");
    return int64_t(u);
  }
  double x;
  if (v.get_double().get(x)) wrong(d, v, what, "an index (a whole number)");
  if (!(x >= 0) || x != std::floor(x) || x > 9e15) d.fail(d.here(), what + ": expected an index (a whole number >= 0)");
  return int64_t(x);
}

int64_t integer(Document& d, sj::value v, const std::string& what) {
  int64_t i;
  if (!v.get_int64().get(i)) return i;
  double x;
  if (v.get_double().get(x)) wrong(d, v, what, "a whole number");
  if (x != std::floor(x) || std::fabs(x) > 9e15) d.fail(d.here(), what + ": expected a whole number");
  return int64_t(x);
}

std::string_view string(Document& d, sj::value v, const std::string& what) {
  std::string_view s;
  if (v.get_string().get(s)) wrong(d, v, what, "a string");
  return s;
}

std::string id_text(Document& d, sj::value v, const std::string& what) {
  if (is_null(v)) return "";
  std::string_view s;
  if (!v.get_string().get(s)) return std::string(s);
  sj::json_type t;
  if (!v.type().get(t) && t == sj::json_type::number) {
    std::string_view raw = v.raw_json_token();
    while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
      raw.remove_suffix(1);
    return std::string(raw);
  }
  wrong(d, v, what, "a string or a number");
}

sj::array array(Document& d, sj::value v, const std::string& what) {
  sj::array a;
  if (v.get_array().get(a)) wrong(d, v, what, "an array");
  return a;
}

sj::object object(Document& d, sj::value v, const std::string& what) {
  sj::object o;
  if (v.get_object().get(o)) wrong(d, v, what, "an object");
  return o;
}

int64_t to_ns(double value, double ns_per_unit) {
  double ns = value * ns_per_unit;
  if (!(std::fabs(ns) < 9.2e18)) return ns < 0 ? INT64_MIN / 2 : INT64_MAX / 2;
  return std::llround(ns);
}

ThreadGroups::ThreadGroups(Profile& p, const std::string& group_by, const std::vector<ThreadLabel>& threads) : p_(p) {
  process_cat_ = p.symbols.category(category::kProcess);
  thread_cat_ = p.symbols.category(category::kThread);
  if (group_by == "none") {
    thread_ = false;
  } else if (group_by == "process") {
    process_ = true;
  } else if (group_by.empty() || group_by == "auto" || group_by == "thread") {
    if (group_by != "thread")
      for (const ThreadLabel& t : threads) process_ = process_ || t.process != threads.front().process;
  } else {
    throw UsageError("--group-by " + group_by + ": expected process, thread, none or auto");
  }
}

NodeId ThreadGroups::node(const ThreadLabel& label) {
  NodeId n = 0;
  if (process_ && !label.process.empty()) n = p_.child(n, p_.symbols.frame(label.process, {}, 0, process_cat_));
  if (thread_ && !label.thread.empty()) n = p_.child(n, p_.symbols.frame(label.thread, {}, 0, thread_cat_));
  return n;
}

std::string process_label(std::string_view name, std::string_view pid) {
  if (!name.empty()) return pid.empty() ? std::string(name) : std::string(name) + " (pid " + std::string(pid) + ")";
  return pid.empty() ? std::string() : "process " + std::string(pid);
}

std::string thread_label(std::string_view name, std::string_view tid) {
  if (!name.empty()) return tid.empty() ? std::string(name) : std::string(name) + " (tid " + std::string(tid) + ")";
  return tid.empty() ? std::string() : "thread " + std::string(tid);
}

}  // namespace flamefold::json_profile
