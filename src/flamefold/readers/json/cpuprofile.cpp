// Chrome / V8 CPU profiles -> Profile (include/flamefold/readers/json/cpuprofile.h).
#include "flamefold/readers/json/cpuprofile.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <unordered_map>

#include "flamefold/readers/json/kineto.h"
#include "json_profile.h"

namespace flamefold {

namespace {

using namespace json_profile;

struct CpuNode {
  int64_t id = -1;
  int64_t parent_id = -1;     // "parent": an id
  int64_t parent_index = -1;  // the node it is nested in (old "head" trees), an index here
  std::string name, url;  // copies: a trace's chunks are parsed by parsers that do not outlive them
  int64_t line = -1;
  double hits = 0;
};

// One V8 profile (a .cpuprofile, or the chunks of one Profile id in a trace).
struct CpuProfile {
  bool old_format = false;  // "head" tree: lines 1-based, startTime/endTime in s, absolute timestamps
  std::vector<CpuNode> nodes;
  std::vector<std::pair<uint32_t, int64_t>> child_links;  // (node index, child id)
  std::vector<int64_t> samples;
  std::vector<double> deltas;      // µs
  std::vector<double> timestamps;  // µs (old format)
  bool has_start = false, has_end = false;
  double start = 0, end = 0;  // µs
  bool any_time() const { return !deltas.empty() || !timestamps.empty(); }
};

constexpr int kMaxNesting = 4000;  // old "head" trees are read recursively

class Reader {
 public:
  Reader(Input& input, const ReadOptions& o) : input_(input), o_(o) {}

  Profile read() {
    Document d(input_);
    doc_ = &d;
    bool trace = false;
    d.run([&] {
      sj::json_type t = d.doc().type();
      if (t == sj::json_type::array) {
        trace = true;
        read_events(d.doc().get_array());
        return;
      }
      sj::object top = object(d, d.doc().get_value(), "the document");
      CpuProfile one;
      bool events = false;
      for (sj::field f : top) {
        std::string_view k = key_of(f);
        if (k == "traceEvents") {
          events = true;
          read_events(array(d, f.value(), "traceEvents"));
        } else {
          read_profile_field(d, k, f.value(), one, 0);
        }
      }
      trace = events;
      if (!events) {
        if (one.nodes.empty()) d.fail("", "no \"nodes\" (nor \"head\"): not a .cpuprofile");
        profiles_.push_back(Entry{ThreadLabel{}, std::move(one)});
      }
    });
    if (trace && trace_profiles_.empty()) return read_as_chrome_trace();
    return build(d, trace);
  }

 private:
  Input& input_;
  const ReadOptions& o_;
  Document* doc_ = nullptr;
  Profile p_;
  struct Entry {
    ThreadLabel label;
    CpuProfile profile;
  };
  std::vector<Entry> profiles_;
  uint64_t unknown_samples_ = 0, orphans_ = 0, backwards_ = 0, chunks_without_profile_ = 0, profile_events_ = 0;

  // ---- a .cpuprofile object (also a trace's CpuProfile / ProfileChunk data) ----

  void read_profile_field(Document& d, std::string_view k, sj::value v, CpuProfile& cp, int depth) {
    if (k == "nodes") {
      for (sj::value n : array(d, v, "nodes")) read_node(d, n, cp, -1, depth);
    } else if (k == "head") {
      cp.old_format = true;
      read_node(d, v, cp, -1, depth);
    } else if (k == "samples") {
      for (sj::value s : array(d, v, "samples")) cp.samples.push_back(integer(d, s, "samples[]"));
    } else if (k == "timeDeltas") {
      for (sj::value s : array(d, v, "timeDeltas")) cp.deltas.push_back(number(d, s, "timeDeltas[]"));
    } else if (k == "timestamps") {
      for (sj::value s : array(d, v, "timestamps")) cp.timestamps.push_back(number(d, s, "timestamps[]"));
    } else if (k == "startTime") {
      if (!is_null(v)) {
        cp.start = number(d, v, "startTime");
        cp.has_start = true;
      }
    } else if (k == "endTime") {
      if (!is_null(v)) {
        cp.end = number(d, v, "endTime");
        cp.has_end = true;
      }
    }
  }

  void read_call_frame(Document& d, sj::value v, CpuNode& n) {
    for (sj::field f : object(d, v, "callFrame")) {
      std::string_view k = key_of(f);
      sj::value x = f.value();
      if (k == "functionName") n.name = string(d, x, "callFrame.functionName");
      else if (k == "url") n.url = string(d, x, "callFrame.url");
      else if (k == "lineNumber") n.line = is_null(x) ? -1 : integer(d, x, "callFrame.lineNumber");
    }
  }

  void read_node(Document& d, sj::value v, CpuProfile& cp, int64_t parent_index, int depth) {
    if (depth > kMaxNesting) d.fail(d.here(), "the profile's tree is nested too deeply");
    uint32_t me = uint32_t(cp.nodes.size());
    cp.nodes.emplace_back();
    cp.nodes[me].parent_index = parent_index;
    for (sj::field f : object(d, v, "a node")) {
      std::string_view k = key_of(f);
      sj::value x = f.value();
      if (k == "id") {
        cp.nodes[me].id = integer(d, x, "node id");
      } else if (k == "parent") {
        if (!is_null(x)) cp.nodes[me].parent_id = integer(d, x, "node parent");
      } else if (k == "callFrame") {
        read_call_frame(d, x, cp.nodes[me]);
      } else if (k == "functionName") {  // the old format keeps the call frame in the node
        cp.nodes[me].name = string(d, x, "functionName");
      } else if (k == "url") {
        cp.nodes[me].url = string(d, x, "url");
      } else if (k == "lineNumber") {
        cp.nodes[me].line = is_null(x) ? -1 : integer(d, x, "lineNumber");
      } else if (k == "hitCount") {
        cp.nodes[me].hits = is_null(x) ? 0 : number(d, x, "hitCount");
      } else if (k == "children") {
        for (sj::value c : array(d, x, "children")) {
          sj::json_type t;
          if (!c.type().get(t) && t == sj::json_type::object) read_node(d, c, cp, me, depth + 1);
          else cp.child_links.emplace_back(me, integer(d, c, "children[]"));
        }
      }
    }
  }

  // ---- a Chrome trace ----

  struct TraceProfile {
    std::string pid, tid;
    bool has_profile_event = false;
    CpuProfile data;
  };
  std::vector<TraceProfile> trace_profiles_;
  std::map<std::pair<std::string, std::string>, size_t> by_id_;  // (pid, id) -> trace_profiles_
  std::map<std::string, std::string> process_names_;
  std::map<std::pair<std::string, std::string>, std::string> thread_names_;
  std::vector<std::string> order_;  // thread keys in the order their profiles appear

  TraceProfile& trace_profile(const std::string& pid, const std::string& id, const std::string& tid) {
    auto [it, fresh] = by_id_.emplace(std::make_pair(pid, id), trace_profiles_.size());
    if (fresh) trace_profiles_.push_back(TraceProfile{pid, tid, false, {}});
    return trace_profiles_[it->second];
  }

  void read_events(sj::array events) {
    Document& d = *doc_;
    for (sj::value ev : events) {
      std::string_view name, ph;
      std::string pid, tid, id;
      std::string_view args;
      uint64_t args_at = 0;
      sj::object obj;
      if (ev.get_object().get(obj)) continue;  // not an event: the Chrome trace readers skip it too
      for (sj::field f : obj) {
        std::string_view k = key_of(f);
        sj::value x = f.value();
        if (k == "name") name = string(d, x, "event name");
        else if (k == "ph") ph = string(d, x, "event ph");
        else if (k == "pid") pid = id_text(d, x, "event pid");
        else if (k == "tid") tid = id_text(d, x, "event tid");
        else if (k == "id") id = id_text(d, x, "event id");
        else if (k == "args") {
          sj::object a;
          if (!x.get_object().get(a)) {
            args = a.raw_json();
            args_at = d.offset_of(args.data());
          }
        }
      }
      if (name != "Profile" && name != "ProfileChunk" && name != "CpuProfile" &&
          !(ph == "M" && (name == "thread_name" || name == "process_name")))
        continue;
      if (args.empty()) {
        if (name == "ProfileChunk" || name == "Profile") ++profile_events_;
        continue;  // a chunk without data (Chrome writes a last empty one)
      }
      Document ad(d.name(), args, args_at);
      ad.run([&] { read_event_args(ad, name, pid, tid, id); });
    }
  }

  void read_event_args(Document& ad, std::string_view name, const std::string& pid, const std::string& tid,
                       const std::string& id) {
    sj::object args = object(ad, ad.doc().get_value(), std::string(name) + " args");
    if (name == "thread_name" || name == "process_name") {
      for (sj::field f : args) {
        if (key_of(f) != "name") continue;
        std::string value(string(ad, f.value(), std::string(name) + " args.name"));
        if (name == "thread_name") thread_names_[{pid, tid}] = value;
        else process_names_[pid] = value;
      }
      return;
    }
    ++profile_events_;
    for (sj::field f : args) {
      if (key_of(f) != "data") continue;
      sj::value data = f.value();
      if (is_null(data)) return;
      if (name == "Profile") {
        TraceProfile& tp = trace_profile(pid, id, tid);
        tp.has_profile_event = true;
        tp.tid = tid;  // the profiled thread (chunks come from the sampler's thread)
        for (sj::field g : object(ad, data, "Profile args.data"))
          if (key_of(g) == "startTime") read_profile_field(ad, "startTime", g.value(), tp.data, 0);
      } else if (name == "ProfileChunk") {
        TraceProfile& tp = trace_profile(pid, id, tid);
        for (sj::field g : object(ad, data, "ProfileChunk args.data")) {
          std::string_view k = key_of(g);
          if (k == "cpuProfile") {
            for (sj::field h : object(ad, g.value(), "ProfileChunk cpuProfile"))
              read_profile_field(ad, key_of(h), h.value(), tp.data, 0);
          } else if (k == "timeDeltas" || k == "endTime" || k == "startTime") {
            read_profile_field(ad, k, g.value(), tp.data, 0);
          }
        }
      } else {  // CpuProfile: a whole profile of the event's thread
        TraceProfile& tp = trace_profile(pid, "cpu-" + tid + "-" + std::to_string(trace_profiles_.size()), tid);
        tp.has_profile_event = true;
        for (sj::field g : object(ad, data, "CpuProfile args.data")) {
          std::string_view k = key_of(g);
          if (k == "cpuProfile") {
            for (sj::field h : object(ad, g.value(), "CpuProfile cpuProfile"))
              read_profile_field(ad, key_of(h), h.value(), tp.data, 0);
          } else if (k == "timeDeltas") {
            read_profile_field(ad, k, g.value(), tp.data, 0);
          }
        }
      }
      return;
    }
  }

  // A DevTools recording without V8 samples: its trace events are what it has.
  // A file is read again from disk; standard input from the bytes already read.
  Profile read_as_chrome_trace() {
    std::error_code ec;
    if (std::filesystem::is_regular_file(input_.path(), ec)) {
      Input again = Input::open(input_.path());
      return read_kineto(again, o_);
    }
    Input again = Input::from_memory(input_.path(), std::string(doc_->text()));
    return read_kineto(again, o_);
  }

  // ---- from the nodes to the tree ----

  Profile build(Document& d, bool trace) {
    p_.source_format = "cpuprofile";
    p_.inputs.push_back(d.name());
    if (trace) {
      for (TraceProfile& tp : trace_profiles_) {
        if (!tp.has_profile_event) ++chunks_without_profile_;
        auto pn = process_names_.find(tp.pid);
        auto tn = thread_names_.find({tp.pid, tp.tid});
        profiles_.push_back(Entry{ThreadLabel{process_label(pn == process_names_.end() ? "" : pn->second, tp.pid),
                                              thread_label(tn == thread_names_.end() ? "" : tn->second, tp.tid)},
                                  std::move(tp.data)});
      }
    }
    bool timed = false;
    for (const Entry& e : profiles_) timed = timed || e.profile.any_time();
    int cpu = timed ? p_.add_column("cpu", "ns") : -1;
    int samples = p_.add_column("samples", "samples");
    p_.default_column = 0;
    std::vector<ThreadLabel> labels;
    for (const Entry& e : profiles_) labels.push_back(e.label);
    ThreadGroups groups(p_, o_.group_by, labels);
    uint64_t total_samples = 0, total_nodes = 0;
    for (size_t i = 0; i < profiles_.size(); ++i) {
      NodeId base = trace ? groups.node(profiles_[i].label) : 0;
      add_profile(d, profiles_[i].profile, base, cpu, samples);
      total_samples += profiles_[i].profile.samples.size();
      total_nodes += profiles_[i].profile.nodes.size();
    }
    if (trace) p_.facts.emplace_back("profiled threads", std::to_string(profiles_.size()));
    p_.facts.emplace_back("samples", std::to_string(total_samples));
    p_.facts.emplace_back("profile nodes", std::to_string(total_nodes));
    if (unknown_samples_) p_.count("samples of nodes the profile does not have (dropped)", unknown_samples_);
    if (orphans_) p_.count("nodes whose parent the profile does not have (placed at the top)", orphans_);
    if (backwards_) p_.count("samples earlier than the one before (no time)", backwards_);
    if (chunks_without_profile_) p_.count("ProfileChunk ids without a Profile event", chunks_without_profile_);
    return std::move(p_);
  }

  FrameId frame_of(const CpuProfile& cp, const CpuNode& n) {
    std::string_view name = n.name.empty() ? std::string_view("(anonymous)") : n.name;
    int64_t line = cp.old_format ? n.line : n.line + 1;  // DevTools protocol lines are 0-based
    return p_.symbols.frame(name, n.url, line > 0 && line < int64_t(UINT32_MAX) ? uint32_t(line) : 0);
  }

  void add_profile(Document& d, CpuProfile& cp, NodeId base, int cpu, int samples) {
    const size_t n = cp.nodes.size();
    std::unordered_map<int64_t, uint32_t> index;
    index.reserve(n);
    for (uint32_t i = 0; i < n; ++i) index.emplace(cp.nodes[i].id, i);  // the first of duplicate ids wins
    std::vector<int64_t> parent(n, -1);
    for (uint32_t i = 0; i < n; ++i) {
      const CpuNode& c = cp.nodes[i];
      if (c.parent_index >= 0) {
        parent[i] = c.parent_index;
      } else if (c.parent_id >= 0) {
        auto it = index.find(c.parent_id);
        if (it != index.end()) parent[i] = it->second;
        else ++orphans_;
      }
    }
    for (auto [from, child_id] : cp.child_links) {
      auto it = index.find(child_id);
      if (it != index.end() && parent[it->second] < 0) parent[it->second] = from;
    }
    // Tree nodes, parents first; "(root)" at the top is the base itself.
    constexpr NodeId kPending = kNone - 1;
    std::vector<NodeId> node(n, kNone);
    std::vector<uint32_t> chain;
    for (uint32_t i = 0; i < n; ++i) {
      if (node[i] != kNone) continue;
      chain.clear();
      int64_t v = i;
      while (v >= 0 && node[size_t(v)] == kNone) {
        node[size_t(v)] = kPending;
        chain.push_back(uint32_t(v));
        v = parent[size_t(v)];
      }
      if (v >= 0 && node[size_t(v)] == kPending)
        d.fail("", fmt::format("node {} is its own ancestor (the nodes' parents form a cycle)", cp.nodes[size_t(v)].id));
      NodeId at = v >= 0 ? node[size_t(v)] : base;
      for (size_t k = chain.size(); k-- > 0;) {
        const CpuNode& c = cp.nodes[chain[k]];
        bool top = parent[chain[k]] < 0;
        at = top && c.name == "(root)" ? base : p_.child(at, frame_of(cp, c));
        node[chain[k]] = at;
      }
    }
    if (cp.samples.empty()) {  // hit counts only
      for (uint32_t i = 0; i < n; ++i)
        if (cp.nodes[i].hits) p_.add(node[i], samples, cp.nodes[i].hits);
      return;
    }
    // Sample i lasts from its time to the next sample's; the last one until endTime.
    const size_t m = cp.samples.size();
    std::vector<int64_t> t(m, 0);
    bool timed = cp.any_time() && cpu >= 0;
    if (timed) {
      if (cp.old_format || !cp.timestamps.empty()) {
        for (size_t i = 0; i < m; ++i) t[i] = i < cp.timestamps.size() ? to_ns(cp.timestamps[i], 1e3) : (i ? t[i - 1] : 0);
      } else {
        int64_t at = cp.has_start ? to_ns(cp.start, 1e3) : 0;
        for (size_t i = 0; i < m; ++i) {
          if (i < cp.deltas.size()) at += to_ns(cp.deltas[i], 1e3);
          t[i] = at;
        }
      }
    }
    // startTime/endTime are seconds in the old format.
    int64_t end = cp.has_end ? to_ns(cp.end, cp.old_format ? 1e9 : 1e3) : (m ? t[m - 1] : 0);
    for (size_t i = 0; i < m; ++i) {
      auto it = index.find(cp.samples[i]);
      if (it == index.end()) {
        ++unknown_samples_;
        continue;
      }
      NodeId v = node[it->second];
      p_.add(v, samples, 1);
      if (!timed) continue;
      int64_t next = i + 1 < m ? t[i + 1] : std::max(end, t[i]);
      if (next < t[i]) {
        ++backwards_;
        continue;
      }
      p_.add(v, cpu, double(next - t[i]));
    }
  }
};

}  // namespace

Profile read_cpuprofile(Input& input, const ReadOptions& options) { return Reader(input, options).read(); }

}  // namespace flamefold
