// What the readers of whole-document JSON profiles share (speedscope, Chrome .cpuprofile,
// Firefox gecko): a simdjson On-Demand walk over the mapped input whose failures become one
// InputError naming the file and the byte, typed reads that say what they expected, and the
// process/thread group frames above the stacks.
//
// These formats are tables that refer to each other in any key order (speedscope's profiles
// may come before shared.frames), so readers copy what they need into columns as the walk
// meets it and resolve the references afterwards; no DOM of the document is built.
#pragma once
#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/input.h"
#include "flamefold/profile.h"

namespace flamefold::json_profile {

namespace sj = simdjson::ondemand;

// One JSON document over bytes followed by at least simdjson::SIMDJSON_PADDING readable bytes.
class Document {
 public:
  // The whole input (mapped or decoded, with Input::kPadding zeros after it).
  explicit Document(Input& input);
  // A document inside another (a captured value: base_offset is where it starts in the file; a
  // JSON string holding JSON: `within` names it, and bytes count from its start): copied, padded.
  Document(std::string name, std::string_view text, uint64_t base_offset, std::string within = {});

  sj::document& doc() { return doc_; }
  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }
  // "byte N" where the walk is (or, at the end, the end of the text).
  std::string here();
  uint64_t offset_of(const char* p) const { return base_ + uint64_t(p - text_.data()); }
  // A truncated text is reported as such, whatever went wrong first while walking it.
  [[noreturn]] void fail(const std::string& place, const std::string& problem);

  // Runs walk(), turning simdjson's errors into an InputError at the byte where they happened.
  template <typename Walk>
  void run(Walk&& walk) {
    try {
      walk();
    } catch (const simdjson::simdjson_error& e) {
      fail_json(e.error());
    }
  }
  [[noreturn]] void fail_json(simdjson::error_code e);

 private:
  std::string name_;
  std::string owned_;   // for documents inside documents
  std::string within_;  // places inside a JSON string are "WITHIN byte N"
  std::string_view text_;
  uint64_t base_ = 0;
  bool truncated() const;
  bool iterating_ = false;  // doc_ is a document (its location can be asked)
  sj::parser parser_;
  sj::document doc_;
};

// The raw text of a key (keys of these formats need no unescaping; one that does matches none).
std::string_view key_of(sj::field& f);

// Typed reads: on a wrong type, InputError "WHAT: expected ..." at the value.
double number(Document& d, sj::value v, const std::string& what);
bool is_null(sj::value& v);
// A whole number >= 0 (also written as 3.0); -1 for null.
int64_t index_or_null(Document& d, sj::value v, const std::string& what);
int64_t integer(Document& d, sj::value v, const std::string& what);
std::string_view string(Document& d, sj::value v, const std::string& what);
// A string, or the text of a number (pids and tids come as either); "" for null.
std::string id_text(Document& d, sj::value v, const std::string& what);
sj::array array(Document& d, sj::value v, const std::string& what);
sj::object object(Document& d, sj::value v, const std::string& what);

// Seconds, milliseconds or microseconds as a double -> integer nanoseconds, rounded.
int64_t to_ns(double value, double ns_per_unit);

// A thread's place in the tree: its process and thread labels ("" when the input has none).
struct ThreadLabel {
  std::string process;
  std::string thread;
  bool operator==(const ThreadLabel&) const = default;
};

// Group frames above the stacks, chosen as the trace readers choose them (--group-by):
// "thread" (default, "auto"): a thread level, and a process level too when the threads belong
// to several processes; "process": both levels always; "none": no level (threads merged).
class ThreadGroups {
 public:
  ThreadGroups(Profile& p, const std::string& group_by, const std::vector<ThreadLabel>& threads);
  NodeId node(const ThreadLabel& label);

 private:
  Profile& p_;
  bool process_ = false, thread_ = true;
  CategoryId process_cat_, thread_cat_;
};

// "name (pid 12)", "process 12", or "" when neither is known.
std::string process_label(std::string_view name, std::string_view pid);
std::string thread_label(std::string_view name, std::string_view tid);

}  // namespace flamefold::json_profile
