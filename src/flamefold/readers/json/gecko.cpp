// Firefox Profiler (gecko) profiles -> Profile (include/flamefold/readers/json/gecko.h).
#include "flamefold/readers/json/gecko.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "json_profile.h"

namespace flamefold {

namespace {

using namespace json_profile;

struct Meta {
  double interval_ms = 1;
  std::vector<std::string> categories;
  std::vector<std::string> shared_strings;  // processed format: profile.shared.stringArray
};

struct Thread {
  std::string name, pid, tid, process_name, process_type;
  size_t meta = 0;  // which profile (main or sub-process) it belongs to
  bool has_strings = false;
  std::vector<std::string> strings;
  // samples
  std::vector<int64_t> sample_stack;
  std::vector<double> sample_time;  // ms
  bool time_deltas = false;
  std::vector<double> sample_weight;
  std::string weight_type = "samples";
  // stackTable
  std::vector<int64_t> stack_prefix, stack_frame;
  // frameTable: processed (func) or Gecko's own (location, a string)
  std::vector<int64_t> frame_func, frame_location, frame_line, frame_category;
  // funcTable (processed)
  std::vector<int64_t> func_name, func_file, func_line;
};

constexpr int kMaxProcessNesting = 16;

class Reader {
 public:
  Reader(Input& input, const ReadOptions& o) : d_(input), o_(o) {}

  Profile read() {
    d_.run([&] {
      metas_.emplace_back();
      read_profile(d_, object(d_, d_.doc().get_value(), "the document"), 0, 0);
    });
    if (threads_.empty()) d_.fail("", "no \"threads\": not a Firefox (gecko) profile");
    build();
    return std::move(p_);
  }

 private:
  Document d_;
  const ReadOptions& o_;
  Profile p_;
  std::vector<Meta> metas_;
  std::vector<Thread> threads_;
  uint64_t no_stack_ = 0, backwards_ = 0, bad_refs_ = 0, processed_threads_ = 0;

  // ---- reading ----

  // A profile object: the top one, a sub-process one, or DevTools' wrapper around one.
  void read_profile(Document& d, sj::object obj, size_t meta, int depth) {
    if (depth > kMaxProcessNesting) d.fail(d.here(), "sub-processes nested too deeply");
    for (sj::field f : obj) {
      std::string_view k = key_of(f);
      if (k == "profile") {  // Firefox DevTools' "Recorded Performance Data" wrapper
        sj::value v = f.value();
        if (is_null(v)) continue;
        read_profile(d, object(d, v, "profile"), meta, depth + 1);
      } else if (k == "meta") {
        read_meta(d, f.value(), metas_[meta]);
      } else if (k == "shared") {
        for (sj::field g : object(d, f.value(), "shared"))
          if (key_of(g) == "stringArray") read_strings(d, g.value(), metas_[meta].shared_strings, "shared.stringArray");
      } else if (k == "threads") {
        for (sj::value t : array(d, f.value(), "threads")) read_thread(d, t, meta);
      } else if (k == "processes") {
        size_t i = 0;
        for (sj::value pv : array(d, f.value(), "processes")) {
          size_t sub = metas_.size();
          metas_.emplace_back();
          std::string_view text;
          if (!pv.get_string().get(text)) {  // old Firefox: a sub-process profile as JSON text
            Document sd(d.name(), text, 0, fmt::format("{} processes[{}] (JSON text),", d.here(), i));
            sd.run([&] { read_profile(sd, object(sd, sd.doc().get_value(), "a sub-process profile"), sub, depth + 1); });
          } else {
            read_profile(d, object(d, pv, "processes[]"), sub, depth + 1);
          }
          ++i;
        }
      }
    }
  }

  void read_meta(Document& d, sj::value v, Meta& m) {
    for (sj::field f : object(d, v, "meta")) {
      std::string_view k = key_of(f);
      sj::value x = f.value();
      if (k == "interval") {
        if (!is_null(x)) m.interval_ms = number(d, x, "meta.interval");
      } else if (k == "categories") {
        if (is_null(x)) continue;
        for (sj::value c : array(d, x, "meta.categories")) {
          std::string name;
          sj::object co;
          if (!c.get_object().get(co))
            for (sj::field cf : co)
              if (key_of(cf) == "name") name = std::string(string(d, cf.value(), "meta.categories[].name"));
          m.categories.push_back(name);
        }
      }
    }
  }

  void read_strings(Document& d, sj::value v, std::vector<std::string>& out, const char* what) {
    for (sj::value s : array(d, v, what)) {
      if (is_null(s)) out.emplace_back();
      else out.emplace_back(string(d, s, what));
    }
  }

  // An array of indices or nulls (-1), or of numbers.
  void read_indices(Document& d, sj::value v, std::vector<int64_t>& out, const std::string& what) {
    out.clear();
    if (is_null(v)) return;
    for (sj::value x : array(d, v, what)) out.push_back(index_or_null(d, x, what + "[]"));
  }
  void read_numbers(Document& d, sj::value v, std::vector<double>& out, const std::string& what) {
    out.clear();
    if (is_null(v)) return;
    for (sj::value x : array(d, v, what)) out.push_back(is_null(x) ? 0 : number(d, x, what + "[]"));
  }

  void read_thread(Document& d, sj::value v, size_t meta) {
    Thread t;
    t.meta = meta;
    for (sj::field f : object(d, v, "threads[]")) {
      std::string_view k = key_of(f);
      sj::value x = f.value();
      if (k == "name") t.name = is_null(x) ? "" : std::string(string(d, x, "thread name"));
      else if (k == "pid") t.pid = id_text(d, x, "thread pid");
      else if (k == "tid") t.tid = id_text(d, x, "thread tid");
      else if (k == "processName") t.process_name = is_null(x) ? "" : std::string(string(d, x, "processName"));
      else if (k == "processType") t.process_type = id_text(d, x, "processType");
      else if (k == "stringTable" || k == "stringArray") {
        sj::json_type type;
        if (!x.type().get(type) && type == sj::json_type::array) {
          read_strings(d, x, t.strings, "thread stringTable");
          t.has_strings = true;
        }
      } else if (k == "samples") {
        read_table(d, x, "samples", t);
      } else if (k == "stackTable") {
        read_table(d, x, "stackTable", t);
      } else if (k == "frameTable") {
        read_table(d, x, "frameTable", t);
      } else if (k == "funcTable") {
        read_table(d, x, "funcTable", t);
      }
    }
    threads_.push_back(std::move(t));
  }

  // Both layouts: Gecko's {schema: {column: position}, data: [[row], ...]} and the processed
  // {column: [values], ...}.
  void read_table(Document& d, sj::value v, const std::string& table, Thread& t) {
    std::map<std::string, int64_t, std::less<>> schema;
    bool has_schema = false;
    std::string_view pending_rows;  // "data" before "schema": read once the schema is known
    uint64_t pending_at = 0;
    for (sj::field f : object(d, v, table)) {
      std::string_view k = key_of(f);
      sj::value x = f.value();
      if (k == "schema") {
        has_schema = true;
        for (sj::field s : object(d, x, table + ".schema")) schema[std::string(key_of(s))] = integer(d, s.value(), table + ".schema");
      } else if (k == "data") {
        if (!has_schema) {
          sj::array rows = array(d, x, table + ".data");
          pending_rows = rows.raw_json();
          pending_at = d.offset_of(pending_rows.data());
          continue;
        }
        read_rows(d, array(d, x, table + ".data"), schema, table, t);
      } else {
        read_column(d, k, x, table, t);
      }
    }
    if (!pending_rows.empty()) {
      Document rd(d.name(), pending_rows, pending_at);
      rd.run([&] { read_rows(rd, rd.doc().get_array(), schema, table, t); });
    }
  }

  void read_column(Document& d, std::string_view k, sj::value x, const std::string& table, Thread& t) {
    std::string what = table + "." + std::string(k);
    if (table == "samples") {
      if (k == "stack") read_indices(d, x, t.sample_stack, what);
      else if (k == "time") read_numbers(d, x, t.sample_time, what);
      else if (k == "timeDeltas") {
        read_numbers(d, x, t.sample_time, what);
        t.time_deltas = true;
      } else if (k == "weight") read_numbers(d, x, t.sample_weight, what);
      else if (k == "weightType") t.weight_type = is_null(x) ? "samples" : std::string(string(d, x, what));
    } else if (table == "stackTable") {
      if (k == "prefix") read_indices(d, x, t.stack_prefix, what);
      else if (k == "frame") read_indices(d, x, t.stack_frame, what);
    } else if (table == "frameTable") {
      if (k == "func") read_indices(d, x, t.frame_func, what);
      else if (k == "line") read_indices(d, x, t.frame_line, what);
      else if (k == "category") read_indices(d, x, t.frame_category, what);
    } else if (table == "funcTable") {
      if (k == "name") read_indices(d, x, t.func_name, what);
      else if (k == "fileName") read_indices(d, x, t.func_file, what);
      else if (k == "lineNumber") read_indices(d, x, t.func_line, what);
    }
  }

  void read_rows(Document& d, sj::array rows, const std::map<std::string, int64_t, std::less<>>& schema,
                 const std::string& table, Thread& t) {
    auto pos = [&](const char* name) {
      auto it = schema.find(name);
      return it == schema.end() ? int64_t(-1) : it->second;
    };
    // Where each wanted column sits in a row, and where its values go.
    struct Want {
      int64_t at;
      std::vector<int64_t>* indices;
      std::vector<double>* numbers;
    };
    std::vector<Want> wants;
    if (table == "samples") {
      wants = {{pos("stack"), &t.sample_stack, nullptr}, {pos("time"), nullptr, &t.sample_time},
               {pos("weight"), nullptr, &t.sample_weight}};
    } else if (table == "stackTable") {
      wants = {{pos("prefix"), &t.stack_prefix, nullptr}, {pos("frame"), &t.stack_frame, nullptr}};
    } else if (table == "frameTable") {
      wants = {{pos("location"), &t.frame_location, nullptr}, {pos("line"), &t.frame_line, nullptr},
               {pos("category"), &t.frame_category, nullptr}};
    } else {
      return;
    }
    wants.erase(std::remove_if(wants.begin(), wants.end(), [](const Want& w) { return w.at < 0; }), wants.end());
    std::vector<bool> filled(wants.size());
    size_t r = 0;
    for (sj::value row : rows) {
      std::string what = fmt::format("{}.data[{}]", table, r++);
      std::fill(filled.begin(), filled.end(), false);
      int64_t col = 0;
      for (sj::value x : array(d, row, what)) {
        for (size_t w = 0; w < wants.size(); ++w) {
          if (wants[w].at != col) continue;
          if (wants[w].indices) {
            // Rows may hold other things where an index is expected (a null line): keep -1.
            sj::json_type type;
            wants[w].indices->push_back(!x.type().get(type) && type == sj::json_type::number ? index_or_null(d, x, what) : -1);
          } else {
            wants[w].numbers->push_back(is_null(x) ? 0 : number(d, x, what));
          }
          filled[w] = true;
        }
        ++col;
      }
      for (size_t w = 0; w < wants.size(); ++w)  // short rows leave trailing columns out
        if (!filled[w]) {
          if (wants[w].indices) wants[w].indices->push_back(-1);
          else wants[w].numbers->push_back(0);
        }
    }
  }

  // ---- building ----

  // "name (file:line:col)" -> name, file, line; text without a source location stays the name.
  static void parse_location(std::string_view loc, std::string_view& name, std::string_view& file, int64_t& line) {
    name = loc;
    file = {};
    line = -1;
    if (loc.size() < 4 || loc.back() != ')') return;
    size_t open = loc.rfind(" (");
    if (open == std::string_view::npos || open == 0) return;
    std::string_view inner = loc.substr(open + 2, loc.size() - open - 3);
    if (inner.empty() || inner.substr(0, 3) == "in ") return;  // "(in libxul.so)": a library, not a file
    int64_t numbers[2] = {-1, -1};
    int found = 0;
    for (int k = 0; k < 2; ++k) {
      size_t colon = inner.rfind(':');
      if (colon == std::string_view::npos || colon + 1 == inner.size()) break;
      std::string_view digits = inner.substr(colon + 1);
      if (digits.find_first_not_of("0123456789") != std::string_view::npos || digits.size() > 9) break;
      numbers[k] = std::stoll(std::string(digits));
      inner = inner.substr(0, colon);
      ++found;
    }
    if (found == 0 || inner.empty()) return;
    name = loc.substr(0, open);
    file = inner;
    line = found == 2 ? numbers[1] : numbers[0];  // file:line:column, or file:line
  }

  void build() {
    p_.source_format = "gecko";
    p_.inputs.push_back(d_.name());
    std::vector<ThreadLabel> labels;
    for (const Thread& t : threads_) {
      std::string process = t.process_name.empty() ? t.process_type : t.process_name;
      labels.push_back(ThreadLabel{process_label(process, t.pid), thread_label(t.name.empty() ? "thread" : t.name, t.tid)});
    }
    ThreadGroups groups(p_, o_.group_by, labels);
    uint64_t samples = 0;
    for (size_t i = 0; i < threads_.size(); ++i) {
      add_thread(threads_[i], groups.node(labels[i]), i);
      samples += threads_[i].sample_stack.size();
    }
    if (p_.columns.empty()) p_.add_column("samples", "samples");
    p_.default_column = 0;
    p_.facts.emplace_back("threads", std::to_string(threads_.size()));
    if (metas_.size() > 1) p_.facts.emplace_back("sub-process profiles", std::to_string(metas_.size() - 1));
    p_.facts.emplace_back("samples", std::to_string(samples));
    if (processed_threads_) p_.facts.emplace_back("layout", "processed (profiler.firefox.com)");
    else p_.facts.emplace_back("layout", "Gecko's own (schema and data rows)");
    if (no_stack_) p_.count("samples without a stack (not drawn)", no_stack_);
    if (backwards_) p_.count("samples earlier than the one before (no time)", backwards_);
    if (bad_refs_) p_.count("table references out of range (frames or stacks dropped)", bad_refs_);
  }

  int column(const char* name, const char* unit) {
    int c = p_.column(name);
    return c >= 0 ? c : p_.add_column(name, unit);
  }

  void add_thread(Thread& t, NodeId base, size_t which) {
    const Meta& meta = metas_[t.meta];
    const std::vector<std::string>& strings = t.has_strings ? t.strings : meta.shared_strings;
    const bool processed = !t.frame_func.empty() || (t.frame_location.empty() && !t.func_name.empty());
    processed_threads_ += processed;
    auto str = [&](int64_t i) -> std::string_view {
      return i >= 0 && size_t(i) < strings.size() ? std::string_view(strings[size_t(i)]) : std::string_view();
    };
    auto at = [](const std::vector<int64_t>& v, int64_t i) { return i >= 0 && size_t(i) < v.size() ? v[size_t(i)] : int64_t(-1); };
    // Frames of the frame table, made when first used.
    std::vector<FrameId> frames(std::max(t.frame_func.size(), t.frame_location.size()), kNone);
    auto frame_of = [&](int64_t f) -> FrameId {
      if (f < 0 || size_t(f) >= frames.size()) return kNone;
      FrameId& id = frames[size_t(f)];
      if (id != kNone) return id;
      std::string_view name, file;
      int64_t line = at(t.frame_line, f);
      if (processed) {
        int64_t func = at(t.frame_func, f);
        name = str(at(t.func_name, func));
        file = str(at(t.func_file, func));
        if (line < 0) line = at(t.func_line, func);
      } else {
        int64_t parsed_line;
        parse_location(str(at(t.frame_location, f)), name, file, parsed_line);
        if (line < 0) line = parsed_line;
      }
      if (name.empty()) name = "(unknown)";
      int64_t c = at(t.frame_category, f);
      std::string_view cat = c >= 0 && size_t(c) < meta.categories.size() ? std::string_view(meta.categories[size_t(c)]) : "";
      if (category::is_group(cat)) cat = {};  // a frame is never a thread or process frame
      id = p_.symbols.frame(name, file, line > 0 && line < int64_t(UINT32_MAX) ? uint32_t(line) : 0, p_.symbols.category(cat));
      return id;
    };
    // Nodes of the stack table: a stack is its prefix's node plus its frame.
    const size_t ns = std::min(t.stack_prefix.size(), t.stack_frame.size());
    constexpr NodeId kPending = kNone - 1;
    std::vector<NodeId> node(ns, kNone);
    std::vector<int64_t> chain;
    auto node_of = [&](int64_t s) -> NodeId {
      if (s < 0 || size_t(s) >= ns) return kNone;
      if (node[size_t(s)] != kNone && node[size_t(s)] != kPending) return node[size_t(s)];
      chain.clear();
      int64_t v = s;
      while (v >= 0 && size_t(v) < ns && node[size_t(v)] == kNone) {
        node[size_t(v)] = kPending;
        chain.push_back(v);
        v = t.stack_prefix[size_t(v)];
      }
      if (v >= 0 && size_t(v) < ns && node[size_t(v)] == kPending)
        d_.fail("", fmt::format("threads[{}].stackTable: stack {} is its own prefix (a cycle)", which, v));
      if (v >= 0 && size_t(v) >= ns) ++bad_refs_;
      NodeId n = v >= 0 && size_t(v) < ns ? node[size_t(v)] : base;
      for (size_t k = chain.size(); k-- > 0;) {
        int64_t sk = chain[k];
        FrameId f = frame_of(t.stack_frame[size_t(sk)]);
        bool bottom = t.stack_prefix[size_t(sk)] < 0;
        if (f == kNone) ++bad_refs_;
        else if (!(bottom && p_.symbols.name(f) == "(root)")) n = p_.child(n, f);  // Gecko's (root): the thread itself
        node[size_t(sk)] = n;
      }
      return n;
    };
    // Weights as the file has them.
    const std::string& wt = t.weight_type;
    const size_t m = t.sample_stack.size();
    const bool has_weight = t.sample_weight.size() >= m && m > 0;
    std::vector<double> time(t.sample_time.begin(), t.sample_time.end());
    if (t.time_deltas)
      for (size_t i = 1; i < time.size(); ++i) time[i] += time[i - 1];
    const bool timed = time.size() >= m && m > 0 && wt == "samples";
    int samples_col = -1, cpu_col = -1, bytes_col = -1;
    if (wt == "tracing-ms") cpu_col = column("cpu", "ns");
    else if (wt == "bytes") bytes_col = column("bytes", "bytes");
    else {
      samples_col = column("samples", "samples");
      if (timed) cpu_col = column("cpu", "ns");
    }
    for (size_t i = 0; i < m; ++i) {
      NodeId n = node_of(t.sample_stack[i]);
      if (n == kNone) {
        ++no_stack_;
        continue;
      }
      double w = has_weight ? t.sample_weight[i] : 1;
      if (wt == "tracing-ms") {
        p_.add(n, cpu_col, double(to_ns(w, 1e6)));
      } else if (wt == "bytes") {
        p_.add(n, bytes_col, w);
      } else {
        p_.add(n, samples_col, w);
        if (!timed) continue;
        // A sample lasts until the thread's next one; the last one, the sampling interval.
        int64_t start = to_ns(time[i], 1e6);
        int64_t end = i + 1 < m ? to_ns(time[i + 1], 1e6) : start + to_ns(meta.interval_ms, 1e6);
        if (end < start) {
          ++backwards_;
          continue;
        }
        p_.add(n, cpu_col, double(end - start));
      }
    }
  }
};

}  // namespace

Profile read_gecko(Input& input, const ReadOptions& options) { return Reader(input, options).read(); }

}  // namespace flamefold
