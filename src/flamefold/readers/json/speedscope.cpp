// speedscope JSON -> Profile (include/flamefold/readers/json/speedscope.h).
#include "flamefold/readers/json/speedscope.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "json_profile.h"

namespace flamefold {

namespace {

using namespace json_profile;

struct FrameSpec {
  std::string_view name, file;
  uint32_t line = 0;
};

enum class Unit { None, Nanoseconds, Microseconds, Milliseconds, Seconds, Bytes };

struct Event {
  double at;
  uint32_t frame;
  bool open;
};

// One entry of "profiles", as read; frame indices are checked once shared.frames is known.
struct RawProfile {
  bool evented = false;
  bool has_type = false;
  std::string name;
  Unit unit = Unit::None;
  bool unknown_unit = false;
  double start = 0;
  std::vector<uint32_t> offsets{0};  // sampled: stack k is frames[offsets[k] .. offsets[k + 1])
  std::vector<uint32_t> frames;
  std::vector<double> weights;
  bool has_samples = false, has_weights = false, has_events = false;
  std::vector<Event> events;
  // What flamefold wrote about the profile (writers/speedscope.h), when it did.
  bool has_ext = false;
  bool timeline = false;  // flamefold's time-ordered copy of a thread: its weight is in the sampled ones
  std::string ext_weight, ext_unit;
  std::vector<std::pair<std::string, std::string>> ext_groups;  // (name, category), outermost first
};

Unit parse_unit(std::string_view u, bool& known) {
  known = true;
  if (u == "none") return Unit::None;
  if (u == "nanoseconds") return Unit::Nanoseconds;
  if (u == "microseconds") return Unit::Microseconds;
  if (u == "milliseconds") return Unit::Milliseconds;
  if (u == "seconds") return Unit::Seconds;
  if (u == "bytes") return Unit::Bytes;
  known = false;
  return Unit::None;
}

double ns_per(Unit u) {
  switch (u) {
    case Unit::Nanoseconds: return 1;
    case Unit::Microseconds: return 1e3;
    case Unit::Milliseconds: return 1e6;
    case Unit::Seconds: return 1e9;
    default: return 0;  // not a time
  }
}

class Reader {
 public:
  Reader(Input& input, const ReadOptions& o) : d_(input), o_(o) {}

  Profile read() {
    d_.run([&] { walk(); });
    if (!saw_profiles_) d_.fail("", "no \"profiles\": not a speedscope file");
    if (!saw_shared_) d_.fail("", "no \"shared\" frame table: not a speedscope file");
    build();
    return std::move(p_);
  }

 private:
  Document d_;
  const ReadOptions& o_;
  Profile p_;
  std::vector<FrameSpec> frames_;
  std::vector<RawProfile> profiles_;
  bool saw_profiles_ = false, saw_shared_ = false;
  std::string exporter_, file_name_;
  int64_t active_ = -1;

  void walk() {
    sj::object top = object(d_, d_.doc().get_value(), "the document");
    for (sj::field f : top) {
      std::string_view k = key_of(f);
      if (k == "shared") {
        saw_shared_ = true;
        for (sj::field g : object(d_, f.value(), "shared")) {
          if (key_of(g) != "frames") continue;
          size_t i = 0;
          for (sj::value fr : array(d_, g.value(), "shared.frames")) read_frame(fr, i++);
        }
      } else if (k == "profiles") {
        saw_profiles_ = true;
        size_t i = 0;
        for (sj::value pr : array(d_, f.value(), "profiles")) read_profile(pr, i++);
      } else if (k == "exporter") {
        sj::value v = f.value();
        if (!is_null(v)) exporter_ = std::string(string(d_, v, "exporter"));
      } else if (k == "name") {
        sj::value v = f.value();
        if (!is_null(v)) file_name_ = std::string(string(d_, v, "name"));
      } else if (k == "flamefold") {
        read_file_extension(f.value());
      } else if (k == "activeProfileIndex") {
        sj::value v = f.value();
        active_ = index_or_null(d_, v, "activeProfileIndex");
      }
    }
  }

  // flamefold's own: every weight column in order, and the default.
  std::vector<std::pair<std::string, std::string>> ext_columns_;
  int64_t ext_default_ = -1;
  void read_file_extension(sj::value v) {
    for (sj::field f : object(d_, v, "flamefold")) {
      std::string_view k = key_of(f);
      if (k == "weights") {
        for (sj::value w : array(d_, f.value(), "flamefold.weights")) {
          std::pair<std::string, std::string> col;
          for (sj::field g : object(d_, w, "flamefold.weights[]")) {
            std::string_view gk = key_of(g);
            if (gk == "name") col.first = std::string(string(d_, g.value(), "flamefold.weights[].name"));
            else if (gk == "unit") col.second = std::string(string(d_, g.value(), "flamefold.weights[].unit"));
          }
          if (!col.first.empty()) ext_columns_.push_back(std::move(col));
        }
      } else if (k == "default") {
        ext_default_ = index_or_null(d_, f.value(), "flamefold.default");
      }
    }
  }

  void read_frame(sj::value v, size_t i) {
    std::string where = fmt::format("shared.frames[{}]", i);
    FrameSpec fs;
    bool named = false;
    for (sj::field f : object(d_, v, where)) {
      std::string_view k = key_of(f);
      sj::value x = f.value();
      if (k == "name") {
        fs.name = string(d_, x, where + ".name");
        named = true;
      } else if (k == "file") {
        if (!is_null(x)) fs.file = string(d_, x, where + ".file");
      } else if (k == "line") {
        if (!is_null(x)) {
          double line = number(d_, x, where + ".line");
          fs.line = line >= 1 && line < 4e9 ? uint32_t(line) : 0;
        }
      }
    }
    if (!named) d_.fail(d_.here(), where + ": a frame without a name");
    frames_.push_back(fs);
  }

  void read_profile(sj::value v, size_t i) {
    std::string where = fmt::format("profiles[{}]", i);
    RawProfile rp;
    rp.name = "profile " + std::to_string(i + 1);
    for (sj::field f : object(d_, v, where)) {
      std::string_view k = key_of(f);
      sj::value x = f.value();
      if (k == "type") {
        std::string_view t = string(d_, x, where + ".type");
        if (t != "sampled" && t != "evented")
          d_.fail(d_.here(), where + ".type: expected \"sampled\" or \"evented\", not \"" + std::string(t) + "\"");
        rp.evented = t == "evented";
        rp.has_type = true;
      } else if (k == "name") {
        if (!is_null(x)) rp.name = std::string(string(d_, x, where + ".name"));
      } else if (k == "unit") {
        bool known;
        rp.unit = parse_unit(string(d_, x, where + ".unit"), known);
        rp.unknown_unit = !known;
      } else if (k == "startValue") {
        rp.start = number(d_, x, where + ".startValue");
      } else if (k == "samples") {
        rp.has_samples = true;
        size_t s = 0;
        for (sj::value stack : array(d_, x, where + ".samples")) {
          for (sj::value fr : array(d_, stack, fmt::format("{}.samples[{}]", where, s))) {
            int64_t idx = index_or_null(d_, fr, where + ".samples[" + std::to_string(s) + "]");
            if (idx < 0 || idx > int64_t(UINT32_MAX - 1))
              d_.fail(d_.here(), fmt::format("{}.samples[{}]: expected frame indices", where, s));
            rp.frames.push_back(uint32_t(idx));
          }
          rp.offsets.push_back(uint32_t(rp.frames.size()));
          if (rp.frames.size() >= UINT32_MAX / 2) d_.fail(d_.here(), where + ": too many sampled frames");
          ++s;
        }
      } else if (k == "weights") {
        rp.has_weights = true;
        size_t w = 0;
        for (sj::value x2 : array(d_, x, where + ".weights")) {
          double wt = number(d_, x2, fmt::format("{}.weights[{}]", where, w));
          if (wt < 0) d_.fail(d_.here(), fmt::format("{}.weights[{}]: a negative weight ({})", where, w, wt));
          rp.weights.push_back(wt);
          ++w;
        }
      } else if (k == "events") {
        rp.has_events = true;
        size_t e = 0;
        for (sj::value ev : array(d_, x, where + ".events")) read_event(ev, rp, fmt::format("{}.events[{}]", where, e++));
      } else if (k == "flamefold") {
        read_extension(x, rp, where + ".flamefold");
      }
    }
    if (!rp.has_type) d_.fail(d_.here(), where + ": no \"type\" (sampled or evented)");
    if (rp.evented && !rp.has_events) d_.fail(d_.here(), where + ": an evented profile without \"events\"");
    if (!rp.evented && (!rp.has_samples || !rp.has_weights))
      d_.fail(d_.here(), where + ": a sampled profile needs \"samples\" and \"weights\"");
    if (!rp.evented && rp.weights.size() != rp.offsets.size() - 1)
      d_.fail(d_.here(), fmt::format("{}: {} samples but {} weights", where, rp.offsets.size() - 1, rp.weights.size()));
    profiles_.push_back(std::move(rp));
  }

  void read_event(sj::value v, RawProfile& rp, const std::string& where) {
    Event ev{0, 0, true};
    bool has_at = false, has_frame = false, has_type = false;
    for (sj::field f : object(d_, v, where)) {
      std::string_view k = key_of(f);
      sj::value x = f.value();
      if (k == "type") {
        std::string_view t = string(d_, x, where + ".type");
        if (t != "O" && t != "C") d_.fail(d_.here(), where + ".type: expected \"O\" or \"C\", not \"" + std::string(t) + "\"");
        ev.open = t == "O";
        has_type = true;
      } else if (k == "at") {
        ev.at = number(d_, x, where + ".at");
        has_at = true;
      } else if (k == "frame") {
        int64_t idx = index_or_null(d_, x, where + ".frame");
        if (idx < 0 || idx > int64_t(UINT32_MAX - 1)) d_.fail(d_.here(), where + ".frame: expected a frame index");
        ev.frame = uint32_t(idx);
        has_frame = true;
      }
    }
    if (!has_type || !has_at || !has_frame) d_.fail(d_.here(), where + ": an event needs \"type\", \"at\" and \"frame\"");
    rp.events.push_back(ev);
  }

  void read_extension(sj::value v, RawProfile& rp, const std::string& where) {
    rp.has_ext = true;
    for (sj::field f : object(d_, v, where)) {
      std::string_view k = key_of(f);
      sj::value x = f.value();
      if (k == "weight") {
        rp.ext_weight = std::string(string(d_, x, where + ".weight"));
      } else if (k == "unit") {
        rp.ext_unit = std::string(string(d_, x, where + ".unit"));
      } else if (k == "timeline") {
        rp.timeline = true;
      } else if (k == "groups") {
        for (sj::value g : array(d_, x, where + ".groups")) {
          std::pair<std::string, std::string> ng;
          for (sj::field gf : object(d_, g, where + ".groups[]")) {
            std::string_view gk = key_of(gf);
            if (gk == "name") ng.first = std::string(string(d_, gf.value(), where + ".groups[].name"));
            else if (gk == "category") ng.second = std::string(string(d_, gf.value(), where + ".groups[].category"));
          }
          rp.ext_groups.push_back(std::move(ng));
        }
      }
    }
    if (rp.ext_weight.empty()) rp.has_ext = false;  // not ours after all
  }

  // ---- from the tables to the tree ----

  std::vector<FrameId> frame_ids_;
  FrameId frame_id(uint32_t i) {
    if (frame_ids_[i] == kNone) {
      const FrameSpec& fs = frames_[i];
      frame_ids_[i] = p_.symbols.frame(fs.name, fs.file, fs.line);
    }
    return frame_ids_[i];
  }

  void check_frame(uint32_t f, const std::string& where) {
    if (f >= frames_.size())
      d_.fail(where, fmt::format("frame {} is not in shared.frames ({} frames)", f, frames_.size()));
  }

  struct Column {
    int index;
    double ns_per_unit;  // 0: values as they are
  };

  Column column_for(const RawProfile& rp) {
    std::string name, unit;
    double scale = ns_per(rp.unit);
    if (rp.has_ext) {
      name = rp.ext_weight;
      unit = rp.ext_unit.empty() ? (scale ? "ns" : "samples") : rp.ext_unit;
    } else if (scale) {
      name = "cpu";
      unit = "ns";
    } else if (rp.unit == Unit::Bytes) {
      name = unit = "bytes";
    } else {
      name = unit = "samples";
    }
    int c = p_.column(name);
    if (c < 0) c = p_.add_column(name, unit);
    return Column{c, scale};
  }

  void build() {
    p_.source_format = "speedscope";
    // flamefold's time-ordered profiles repeat the sampled ones' weight: left out.
    if (std::any_of(profiles_.begin(), profiles_.end(), [](const RawProfile& rp) { return rp.timeline; })) {
      std::vector<RawProfile> kept;
      int64_t active = -1;
      for (size_t i = 0; i < profiles_.size(); ++i) {
        if (profiles_[i].timeline) continue;
        if (int64_t(i) == active_) active = int64_t(kept.size());
        kept.push_back(std::move(profiles_[i]));
      }
      profiles_ = std::move(kept);
      active_ = active;
    }
    p_.inputs.push_back(d_.name());
    frame_ids_.assign(frames_.size(), kNone);
    for (const auto& [name, unit] : ext_columns_)
      if (p_.column(name) < 0) p_.add_column(name, unit);
    // Group frames: flamefold's own, else one thread frame per profile (same names get a number).
    std::map<std::pair<std::string, int>, int> seen;
    std::vector<ThreadLabel> labels;
    std::vector<Column> columns;
    for (const RawProfile& rp : profiles_) {
      columns.push_back(column_for(rp));
      std::string label = rp.name;
      if (!rp.has_ext) {
        int n = ++seen[{rp.name, columns.back().index}];
        if (n > 1) label += " (" + std::to_string(n) + ")";
      }
      labels.push_back(ThreadLabel{"", label});
    }
    ThreadGroups groups(p_, o_.group_by, labels);
    size_t total_samples = 0, total_events = 0, unknown_units = 0;
    for (size_t i = 0; i < profiles_.size(); ++i) {
      const RawProfile& rp = profiles_[i];
      NodeId base = 0;
      if (rp.has_ext) {
        if (o_.group_by != "none")
          for (const auto& [name, cat] : rp.ext_groups) base = p_.child(base, p_.symbols.frame(name, {}, 0, p_.symbols.category(cat)));
      } else {
        base = groups.node(labels[i]);
      }
      std::string where = fmt::format("profiles[{}]", i);
      if (rp.evented) add_events(rp, base, columns[i], where);
      else add_samples(rp, base, columns[i], where);
      total_samples += rp.offsets.size() - 1;
      total_events += rp.events.size();
      unknown_units += rp.unknown_unit;
    }
    if (p_.columns.empty()) p_.add_column("samples", "samples");
    p_.default_column = 0;
    if (active_ >= 0 && size_t(active_) < columns.size()) p_.default_column = columns[size_t(active_)].index;
    if (ext_default_ >= 0 && size_t(ext_default_) < ext_columns_.size())
      p_.default_column = p_.column(ext_columns_[size_t(ext_default_)].first);
    p_.facts.emplace_back("profiles", std::to_string(profiles_.size()));
    if (total_samples) p_.facts.emplace_back("samples", std::to_string(total_samples));
    if (total_events) p_.facts.emplace_back("events", std::to_string(total_events));
    if (!exporter_.empty()) p_.facts.emplace_back("exporter", exporter_);
    if (!file_name_.empty()) p_.facts.emplace_back("name", file_name_);
    if (unknown_units) p_.count("profiles with an unknown unit (read as \"none\")", unknown_units);
  }

  void add_samples(const RawProfile& rp, NodeId base, Column col, const std::string& where) {
    for (size_t s = 0; s + 1 < rp.offsets.size(); ++s) {
      NodeId n = base;
      for (uint32_t k = rp.offsets[s]; k < rp.offsets[s + 1]; ++k) {
        check_frame(rp.frames[k], fmt::format("{}.samples[{}]", where, s));
        n = p_.child(n, frame_id(rp.frames[k]));
      }
      double w = rp.weights[s];
      p_.add(n, col.index, col.ns_per_unit ? double(to_ns(w, col.ns_per_unit)) : w);
    }
  }

  // The weight between two events goes to the innermost open frame (speedscope's own rule);
  // time with no frame open belongs to no frame.
  void add_events(const RawProfile& rp, NodeId base, Column col, const std::string& where) {
    struct Open {
      NodeId node;
      uint32_t frame;
      double at;
    };
    std::vector<Open> stack;
    double last = rp.start;
    int64_t last_ns = col.ns_per_unit ? to_ns(last, col.ns_per_unit) : 0;
    for (size_t e = 0; e < rp.events.size(); ++e) {
      const Event& ev = rp.events[e];
      auto place = [&] { return fmt::format("{}.events[{}]", where, e); };
      check_frame(ev.frame, place());
      if (ev.at < last && e > 0)
        d_.fail(place(), fmt::format("the events go back in time ({} after {})", ev.at, last));
      if (!stack.empty()) {
        if (col.ns_per_unit) {
          int64_t ns = to_ns(ev.at, col.ns_per_unit);
          p_.add(stack.back().node, col.index, double(ns - last_ns));
        } else {
          p_.add(stack.back().node, col.index, ev.at - last);
        }
      }
      if (col.ns_per_unit) last_ns = to_ns(ev.at, col.ns_per_unit);
      last = ev.at;
      if (ev.open) {
        NodeId parent = stack.empty() ? base : stack.back().node;
        stack.push_back(Open{p_.child(parent, frame_id(ev.frame)), ev.frame, ev.at});
        continue;
      }
      if (stack.empty())
        d_.fail(place(), fmt::format("the events do not balance: closes frame {} ('{}') when no frame is open", ev.frame,
                                     frames_[ev.frame].name));
      if (stack.back().frame != ev.frame)
        d_.fail(place(), fmt::format("the events do not balance: closes frame {} ('{}') while frame {} ('{}') is the "
                                     "innermost open one",
                                     ev.frame, frames_[ev.frame].name, stack.back().frame, frames_[stack.back().frame].name));
      stack.pop_back();
    }
    if (!stack.empty())
      d_.fail(where + ".events", fmt::format("the events do not balance: frame {} ('{}'), opened at {}, is never closed",
                                             stack.back().frame, frames_[stack.back().frame].name, stack.back().at));
  }
};

}  // namespace

Profile read_speedscope(Input& input, const ReadOptions& options) { return Reader(input, options).read(); }

}  // namespace flamefold
