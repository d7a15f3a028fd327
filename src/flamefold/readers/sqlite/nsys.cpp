// Nsight Systems SQLite export -> events. Column sets differ by version, so every table's
// columns are looked up by name (PRAGMA table_info) and read by index in the row loop. One
// reader, two destinations (EventSink): a Timeline (`convert`, and the reference flame graphs
// are tested against), or a TraceBuilder that makes the flame graph while the tables stream by,
// in memory that follows the call tree rather than the export's size.
#include "flamefold/readers/sqlite/nsys.h"

#include <sys/stat.h>

#include <algorithm>
#include <string>

#include "flamefold/timeline/trace_builder.h"
#include "flamefold/errors.h"
#include "flamefold/heap.h"
#include "flamefold/hash.h"
#include "flamefold/readers/sqlite/scan_ahead.h"
#include "flamefold/spool.h"
#include "flamefold/timeline/build_profile.h"

namespace flamefold {

namespace {

using sqlite::Db;
using sqlite::Statement;
using sqlite::TableScan;

// globalTid / globalPid: (vm << 48) | (pid << 24) | tid.
int64_t pid_of(int64_t global) { return (global >> 24) & 0xFFFFFF; }
int64_t tid_of(int64_t global) { return global & 0xFFFFFF; }

// CUPTI correlation ids are per process: several processes (DDP ranks) reuse the same ids,
// so the timeline's correlation carries the pid above the 32-bit id (0 stays "none").
uint64_t correlation_of(const TableScan& s, int col, int64_t global) {
  int64_t raw = s.i64_or(col, -1);
  if (raw < 0) return 0;
  uint64_t id = static_cast<uint64_t>(raw) & 0xFFFFFFFFull;
  return (static_cast<uint64_t>(pid_of(global)) << 32) | id;
}

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Scans the wanted columns of a table; columns missing from this export version read as NULL.
TableScan scan_columns(const Db& db, const std::string& table, std::initializer_list<const char*> wanted) {
  std::vector<std::string> cols = db.columns(table);
  std::vector<std::string> names;
  for (const char* w : wanted) names.emplace_back(sqlite::find_column(cols, w) >= 0 ? w : "");
  return db.scan(table, names, "table " + table);
}

// SQL's `column = v` for an INTEGER value v (the NVTX eventType filter).
bool equals_int(const TableScan& s, int col, int64_t v) {
  return (s.type(col) == SQLITE_INTEGER && s.i64(col) == v) || (s.type(col) == SQLITE_FLOAT && s.f64(col) == static_cast<double>(v));
}

const char* copy_kind_name(int64_t kind) {
  switch (kind) {
    case 1: return "Memcpy HtoD";
    case 2: return "Memcpy DtoH";
    case 3: return "Memcpy HtoA";
    case 4: return "Memcpy AtoH";
    case 5: return "Memcpy AtoA";
    case 6: return "Memcpy AtoD";
    case 7: return "Memcpy DtoA";
    case 8: return "Memcpy DtoD";
    case 9: return "Memcpy HtoH";
    case 10: return "Memcpy PtoP";
    case 11: return "Memcpy HtoD (unified)";
    case 12: return "Memcpy DtoH (unified)";
    case 13: return "Memcpy DtoD (unified)";
    default: return "Memcpy";
  }
}

// A CUDA call with a backtrace: its frames are added once every other event is in, in the
// order of the calls' rows. A wrapper row left out of a flame graph keeps its frames (event =
// kNone): they still hold the runtime call they wrap, which nests below them by time.
struct ChainedCall {
  int64_t start, end, chain;
  uint64_t row;
  uint32_t event, track;
};
struct ByRow {
  bool operator()(const ChainedCall& a, const ChainedCall& b) const { return a.row < b.row; }
};

// Where the reader's tracks, names and events go.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual Symbols& symbols() = 0;
  virtual uint32_t add_track(const Track& t) = 0;
  virtual void count(std::string_view what, uint64_t n) = 0;
  void count(std::string_view what) { count(what, 1); }
  virtual void fact(std::string key, std::string value) = 0;
  virtual void reserve(size_t /*events*/) {}
  // depth: the call's backtrace frames above it (sinks that nest by depth rather than parent).
  virtual uint32_t event(uint32_t track, int64_t start, int64_t end, FrameId f, EventKind k, uint64_t correlation,
                         uint16_t depth = 0) = 0;
  virtual void bytes(uint32_t /*event*/, int64_t /*bytes*/) {}
  // Whether events of this category are kept (a backtrace's frames that are not give no depth).
  virtual bool keeps(std::string_view /*category*/) const { return true; }
  // Calls with a backtrace, in event order, and then each call's frames (outermost first).
  virtual void chained_call(const ChainedCall& c) = 0;
  virtual bool next_chained_call(ChainedCall& c) = 0;
  virtual void chain_frames(const ChainedCall& call, const std::vector<FrameId>& outermost_first) = 0;
};

class NsysReader {
 public:
  NsysReader(const std::string& path, const ReadOptions& read, const NsysOptions& o, EventSink& sink, TraceSideInfo* side)
      : db_(Db::open(path)), read_(read), o_(o), sink_(sink), side_(side), tracks_(256), device_tracks_(64), strings_(4096),
        frames_(4096) {}

  // Reads the export into the sink. chain_lengths: a sink that nests by depth needs each
  // backtrace's length when the call is added.
  void run(bool chain_lengths) {
    if (!is_nsys_db(db_))
      throw InputError(db_.path(), "",
                       "not an Nsight Systems export: no StringIds table (an Ascend profiler DB? use --format ascend)");
    Symbols& sym = sink_.symbols();
    kernel_cat_ = sym.category(category::kKernel);
    memcpy_cat_ = sym.category(category::kMemcpy);
    memset_cat_ = sym.category(category::kMemset);
    runtime_cat_ = sym.category("cuda-api");
    driver_cat_ = sym.category("cuda-driver");
    nvtx_cat_ = sym.category("nvtx");
    read_versions();
    read_strings();
    read_processes();
    read_thread_names();
    read_gpus();
    reserve_all();
    if (o_.device_work) {
      read_kernels();
      read_memory("CUPTI_ACTIVITY_KIND_MEMCPY", true);
      read_memory("CUPTI_ACTIVITY_KIND_MEMSET", false);
    }
    if (o_.backtraces && o_.api_calls && chain_lengths) read_chain_lengths();
    if (o_.api_calls) read_runtime();
    if (o_.nvtx) read_nvtx();
    if (o_.backtraces && o_.api_calls) add_backtraces();
    if (wrappers_dropped_)
      sink_.count("CUDA API wrapper rows sharing a correlation id with a runtime/driver call (left out)", wrappers_dropped_);
    sink_.fact("kernels", std::to_string(kernels_));
    sink_.fact("memcpy/memset", std::to_string(memops_));
    sink_.fact("CUDA API calls", std::to_string(api_rows_));
    sink_.fact("NVTX events", std::to_string(nvtx_rows_));
  }

 private:
  Db db_;
  const ReadOptions& read_;
  const NsysOptions& o_;
  EventSink& sink_;
  TraceSideInfo* side_;   // names for trace outputs; null when not wanted
  U64Map tracks_;         // globalTid -> track
  U64Map device_tracks_;  // device << 32 | stream -> track
  U64Map thread_names_{256};
  U64Map strings_;        // StringIds id -> StrId
  U64Map frames_;         // (kind << 56 | string id) -> FrameId
  U64Map chain_length_{64};  // CUDA_CALLCHAINS id -> frames, for depth-nesting sinks
  bool have_chain_lengths_ = false;
  CategoryId kernel_cat_ = 0, memcpy_cat_ = 0, memset_cat_ = 0, runtime_cat_ = 0, driver_cat_ = 0, nvtx_cat_ = 0;
  uint64_t kernels_ = 0, memops_ = 0, api_rows_ = 0, nvtx_rows_ = 0, wrappers_dropped_ = 0;
  int64_t last_gtid_ = -1;
  uint64_t last_frame_key_ = UINT64_MAX;
  FrameId last_frame_ = 0;
  uint32_t last_track_ = 0;
  void read_versions() {
    if (!db_.has_table("META_DATA_EXPORT")) return;
    Statement s = db_.prepare("SELECT name, value FROM META_DATA_EXPORT WHERE name IN (?, ?)", "table META_DATA_EXPORT");
    s.bind(1, std::string_view("EXPORT_PRODUCT_VERSION"));
    s.bind(2, std::string_view("EXPORT_SCHEMA_VERSION"));
    while (s.step())
      if (!s.is_null(1))
        sink_.fact(s.text(0) == "EXPORT_PRODUCT_VERSION" ? "nsys version" : "export schema", std::string(s.text(1)));
  }

  void read_strings() {
    std::vector<std::string> cols = db_.columns("StringIds");
    if (sqlite::find_column(cols, "id") < 0 || sqlite::find_column(cols, "value") < 0)
      throw InputError(db_.path(), "table StringIds", "has no id and value columns");
    TableScan s = scan_columns(db_, "StringIds", {"id", "value"});
    StringTable& st = sink_.symbols().strings;
    while (s.step()) {
      if (s.is_null(0)) continue;
      strings_.set(static_cast<uint64_t>(s.i64(0)), st.intern(s.text(1)));
    }
  }

  // StrId of a StringIds id, or UINT32_MAX when absent/NULL.
  StrId string_of(const TableScan& s, int col) const {
    if (s.is_null(col)) return UINT32_MAX;
    return strings_.find(static_cast<uint64_t>(s.i64(col)));
  }

  void read_processes() {
    if (!side_ || !db_.has_table("PROCESSES")) return;
    TableScan s = scan_columns(db_, "PROCESSES", {"pid", "name", "globalPid"});
    while (s.step()) {
      if (s.is_null(1)) continue;
      int64_t pid = s.is_null(0) ? pid_of(s.i64(2)) : s.i64(0);
      side_->process_names.emplace_back(pid, std::string(s.text(1)));
    }
  }

  void read_thread_names() {
    if (!db_.has_table("ThreadNames")) return;
    TableScan s = scan_columns(db_, "ThreadNames", {"globalTid", "nameId"});
    while (s.step()) {
      StrId name = string_of(s, 1);
      if (s.is_null(0) || name == UINT32_MAX) continue;
      thread_names_.set(static_cast<uint64_t>(s.i64(0)), name);
    }
  }

  void read_gpus() {
    if (!side_) return;
    // TARGET_INFO_GPU: (vmId, deviceId, name ...) in the oldest exports, (vmId, id, name ...) later;
    // the 2020 exports have TARGET_INFO_CUDA_GPU(..., name, ..., deviceId) instead.
    for (const char* table : {"TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU"}) {
      if (!db_.has_table(table)) continue;
      std::vector<std::string> cols = db_.columns(table);
      const char* id_col = sqlite::find_column(cols, "id") >= 0 ? "id" : "deviceId";
      if (sqlite::find_column(cols, id_col) < 0 || sqlite::find_column(cols, "name") < 0) continue;
      TableScan s = scan_columns(db_, table, {id_col, "name"});
      while (s.step())
        if (!s.is_null(0) && !s.is_null(1))
          side_->device_names.emplace_back(static_cast<int32_t>(s.i64(0)), std::string(s.text(1)));
      if (!side_->device_names.empty()) break;
    }
  }

  // One reservation for every table to be read (MAX(rowid) is a B-tree lookup, not a scan),
  // so the event columns never reallocate and copy while reading.
  void reserve_all() {
    size_t rows = 0;
    auto add = [&](const char* table) {
      if (db_.has_table(table))
        rows += static_cast<size_t>(std::max<int64_t>(0, db_.scalar(std::string("SELECT MAX(rowid) FROM ") + table, std::string("table ") + table)));
    };
    if (o_.device_work) {
      add("CUPTI_ACTIVITY_KIND_KERNEL");
      add("CUPTI_ACTIVITY_KIND_MEMCPY");
      add("CUPTI_ACTIVITY_KIND_MEMSET");
    }
    if (o_.api_calls) add("CUPTI_ACTIVITY_KIND_RUNTIME");
    if (o_.nvtx) add("NVTX_EVENTS");
    sink_.reserve(rows);
  }

  uint32_t host_track(int64_t gtid) {
    if (gtid == last_gtid_) return last_track_;
    uint32_t t = tracks_.find(static_cast<uint64_t>(gtid));
    if (t == U64Map::kMissing) {
      Track tr;
      tr.pid = pid_of(gtid);
      tr.tid = tid_of(gtid);
      StrId name = thread_names_.find(static_cast<uint64_t>(gtid));
      tr.name = name != U64Map::kMissing ? name : sink_.symbols().strings.intern("thread " + std::to_string(tr.tid));
      t = sink_.add_track(tr);
      tracks_.set(static_cast<uint64_t>(gtid), t);
    }
    last_gtid_ = gtid;
    last_track_ = t;
    return t;
  }

  uint32_t device_track(int64_t device, int64_t stream, int64_t global_pid) {
    uint64_t key = (static_cast<uint64_t>(device & 0xFFFFFFFF) << 32) | static_cast<uint64_t>(stream & 0xFFFFFFFF);
    uint32_t t = device_tracks_.find(key);
    if (t != U64Map::kMissing) return t;
    Track tr;
    tr.device = true;
    tr.device_index = static_cast<int32_t>(device);
    tr.tid = stream;
    tr.pid = pid_of(global_pid);
    tr.name = sink_.symbols().strings.intern("stream " + std::to_string(stream));
    t = sink_.add_track(tr);
    device_tracks_.set(key, t);
    return t;
  }

  // Frame for a StringIds name, cached per (kind, id).
  FrameId frame_for(uint64_t kind, const TableScan& s, int col, CategoryId cat, std::string_view fallback) {
    int64_t raw = s.i64_or(col, -1);
    uint64_t id = raw < 0 ? 0xFFFFFFFFFFFFull : static_cast<uint64_t>(raw) & 0xFFFFFFFFFFFFull;
    uint64_t key = (kind << 56) | (static_cast<uint64_t>(cat) << 48) | id;
    if (key == last_frame_key_) return last_frame_;  // names repeat in runs
    uint32_t f = frames_.find(key);
    if (f != U64Map::kMissing) {
      last_frame_key_ = key;
      last_frame_ = f;
      return f;
    }
    Symbols& sym = sink_.symbols();
    StrId name = string_of(s, col);
    std::string_view text = name == UINT32_MAX ? fallback : sym.strings[name];
    if (kind == 1) text = clean_api_name(text);
    f = sym.frame(sym.strings.intern(text), 0, 0, cat);
    frames_.set(key, f);
    return f;
  }

  bool times(const TableScan& s, int64_t& start, int64_t& end, std::string_view what) {
    start = s.i64_or(0, INT64_MIN);
    end = s.i64_or(1, INT64_MIN);
    if (start == INT64_MIN || end == INT64_MIN) {
      sink_.count(std::string(what) + " rows without start or end (skipped)");
      return false;
    }
    if (end < start) {
      sink_.count(std::string(what) + " rows ending before they start (skipped)");
      return false;
    }
    return true;
  }

  void read_kernels() {
    const char* table = "CUPTI_ACTIVITY_KIND_KERNEL";
    if (!db_.has_table(table)) return;
    TableScan s = scan_columns(db_, table, {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "shortName"});
    int64_t last_key = INT64_MIN;
    uint32_t last_track = 0;
    while (s.step()) {
      int64_t start, end;
      if (!times(s, start, end, "kernel")) continue;
      int64_t device = s.i64(2), stream = s.i64(3), global_pid = s.i64(5);
      int64_t key = (device << 32) ^ stream;
      if (key != last_key) {
        last_track = device_track(device, stream, global_pid);
        last_key = key;
      }
      FrameId f = frame_for(0, s, 6, kernel_cat_, "[unknown kernel]");
      sink_.event(last_track, start, end, f, EventKind::Kernel, correlation_of(s, 4, global_pid));
      ++kernels_;
    }
  }

  void read_memory(const char* table, bool memcpy) {
    if (!db_.has_table(table)) return;
    TableScan s = scan_columns(db_, table,
                               {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes",
                                memcpy ? "copyKind" : "memKind"});
    Symbols& sym = sink_.symbols();
    while (s.step()) {
      int64_t start, end;
      if (!times(s, start, end, memcpy ? "memcpy" : "memset")) continue;
      uint32_t track = device_track(s.i64(2), s.i64(3), s.i64(5));
      FrameId f = memcpy ? sym.frame(copy_kind_name(s.i64(7)), {}, 0, memcpy_cat_) : sym.frame("Memset", {}, 0, memset_cat_);
      uint32_t ev = sink_.event(track, start, end, f, memcpy ? EventKind::Memcpy : EventKind::Memset,
                                correlation_of(s, 4, s.i64(5)));
      if (!s.is_null(6)) sink_.bytes(ev, s.i64(6));
      ++memops_;
    }
  }

  // Some exports record a call twice under one correlation id: the CUDA runtime/driver row
  // (event class 0/1) and a wrapper row of another class around it. The wrapper is kind Other,
  // so device work joins the runtime row only; flame graphs leave it out. Found before the rows
  // are read (their kind is needed then), by a sort-merge of the two kinds' correlation ids:
  // returns the wrappers' row numbers, sorted; none when every row is of class 0/1.
  std::vector<uint64_t> wrapper_rows(const char* table) {
    struct Call {
      uint64_t correlation, row;
      bool primary;
    };
    struct ByCorrelation {
      static uint64_t key(const Call& c) { return c.correlation; }
      bool operator()(const Call& a, const Call& b) const {
        if (a.correlation != b.correlation) return a.correlation < b.correlation;
        return a.primary != b.primary ? a.primary : a.row < b.row;
      }
    };
    struct ByRow {
      static uint64_t key(uint64_t r) { return r; }
      bool operator()(uint64_t a, uint64_t b) const { return a < b; }
    };
    std::vector<uint64_t> rows;
    {
      bool others = false;
      TableScan probe = scan_columns(db_, table, {"eventClass"});
      while (!others && probe.step()) others = probe.i64(0) != 0 && probe.i64(0) != 1;
      if (!others) return rows;
    }
    const size_t budget = read_.spool_bytes ? read_.spool_bytes : kSpoolBytes;
    Spool<Call, ByCorrelation> calls(budget / 2);
    TableScan s = scan_columns(db_, table, {"start", "end", "globalTid", "correlationId", "eventClass"});
    for (uint64_t row = 0; s.step(); ++row) {
      // Only rows that become events count, as when the rows were marked after reading.
      if (s.is_null(0) || s.is_null(1) || s.i64(1) < s.i64(0) || s.is_null(2)) continue;
      uint64_t corr = correlation_of(s, 3, s.i64(2));
      if (corr == 0) continue;
      int64_t event_class = s.i64(4);
      calls.push(Call{corr, row, event_class == 0 || event_class == 1});
    }
    calls.finish();
    Spool<uint64_t, ByRow> wrappers(budget / 4);
    Call c;
    bool primary_seen = false;
    uint64_t group = 0;
    bool in_group = false;
    while (calls.next(c)) {
      if (!in_group || c.correlation != group) {
        in_group = true;
        group = c.correlation;
        primary_seen = false;
      }
      if (c.primary) primary_seen = true;  // primaries sort first within a correlation id
      else if (primary_seen) wrappers.push(c.row);
    }
    wrappers.finish();
    uint64_t r;
    while (wrappers.next(r)) rows.push_back(r);
    return rows;
  }

  void read_runtime() {
    const char* table = "CUPTI_ACTIVITY_KIND_RUNTIME";
    if (!db_.has_table(table)) return;
    const std::vector<uint64_t> wrappers = wrapper_rows(table);
    size_t next_wrapper = 0;
    TableScan s = scan_columns(db_, table, {"start", "end", "globalTid", "correlationId", "nameId", "eventClass", "callchainId"});
    const bool want_callchains = o_.backtraces;
    const bool chains_kept = have_chain_lengths_ && sink_.keeps("native");
    for (uint64_t row = 0; s.step(); ++row) {
      int64_t start, end;
      if (!times(s, start, end, "CUDA API")) continue;
      int64_t global_tid = s.i64_or(2, INT64_MIN);
      if (global_tid == INT64_MIN) {
        sink_.count("CUDA API rows without a thread (skipped)");
        continue;
      }
      int64_t event_class = s.i64(5);  // NULL reads as 0 (runtime)
      const bool wrapper = next_wrapper < wrappers.size() && wrappers[next_wrapper] == row;
      if (wrapper) ++next_wrapper;
      FrameId f = frame_for(1, s, 4, event_class == 1 ? driver_cat_ : runtime_cat_, "[unknown CUDA call]");
      const uint32_t track = host_track(global_tid);
      ++api_rows_;
      const int64_t chain = want_callchains && !s.is_null(6) ? s.i64(6) : -1;
      if (wrapper && o_.for_flamegraph) {
        ++wrappers_dropped_;
        if (chain >= 0) sink_.chained_call(ChainedCall{start, end, chain, row, kNone, track});
        continue;
      }
      uint16_t depth = 0;
      if (chain >= 0 && chains_kept) {
        uint32_t n = chain_length_.find(static_cast<uint64_t>(chain));
        if (n != U64Map::kMissing) depth = static_cast<uint16_t>(std::min<uint32_t>(n, UINT16_MAX));
      }
      uint32_t ev = sink_.event(track, start, end, f, wrapper ? EventKind::Other : EventKind::Launch,
                                correlation_of(s, 3, global_tid), depth);
      if (chain >= 0) sink_.chained_call(ChainedCall{start, end, chain, row, ev, track});
    }
  }

  bool prefix_ok(std::string_view name) const {
    if (o_.nvtx_prefixes.empty()) return true;
    for (const std::string& p : o_.nvtx_prefixes)
      if (name.substr(0, p.size()) == p) return true;
    return false;
  }

  void read_nvtx() {
    const char* table = "NVTX_EVENTS";
    if (!db_.has_table(table)) return;
    Symbols& sym = sink_.symbols();
    const auto wanted = {"start", "end", "eventType", "globalTid", "text", "textId", "domainId"};
    // Domain names first (eventType 75, NvtxDomainCreate).
    U64Map domain_cats(64);
    {
      TableScan d = scan_columns(db_, table, wanted);
      while (d.step())
        if (equals_int(d, 2, 75) && !d.is_null(6) && !d.is_null(4))
          domain_cats.set(static_cast<uint64_t>(d.i64(6)), sym.category("nvtx:" + std::string(d.text(4))));
    }
    TableScan s = scan_columns(db_, table, wanted);
    U64Map inline_frames(1024);  // (category << 32 | StrId) -> frame
    U64Map start_end_tracks(16);
    while (s.step()) {
      if (!equals_int(s, 2, 59) && !equals_int(s, 2, 60) && !equals_int(s, 2, 34)) continue;
      int64_t type = s.i64(2);
      if (s.is_null(0)) {
        sink_.count("NVTX rows without a start (skipped)");
        continue;
      }
      if (s.is_null(3)) {
        sink_.count("NVTX rows without a thread (skipped)");
        continue;
      }
      int64_t start = s.i64(0);
      int64_t end = start;
      if (type != 34) {
        if (s.is_null(1)) {
          sink_.count("NVTX ranges never closed (skipped)");
          continue;
        }
        end = s.i64(1);
        if (end < start) {
          sink_.count("NVTX ranges ending before they start (skipped)");
          continue;
        }
      }
      if (o_.for_flamegraph && type != 59) {
        sink_.count(type == 34 ? "NVTX marks (not part of call stacks)" : "NVTX start/end ranges (not part of call stacks)");
        continue;
      }
      // The label: inline text, else the registered string (textId).
      std::string_view name;
      if (!s.is_null(4)) {
        name = s.text(4);
      } else {
        StrId id = string_of(s, 5);
        name = id == UINT32_MAX ? std::string_view("[unnamed NVTX range]") : sym.strings[id];
      }
      if (!prefix_ok(name)) continue;
      CategoryId cat = nvtx_cat_;
      if (!s.is_null(6) && s.i64(6) != 0) {
        uint32_t c = domain_cats.find(static_cast<uint64_t>(s.i64(6)));
        if (c != U64Map::kMissing) cat = static_cast<CategoryId>(c);
      }
      StrId name_id = sym.strings.intern(name);
      uint64_t fkey = (static_cast<uint64_t>(cat) << 32) | name_id;
      uint32_t f = inline_frames.find(fkey);
      if (f == U64Map::kMissing) {
        f = sym.frame(name_id, 0, 0, cat);
        inline_frames.set(fkey, f);
      }
      uint32_t track;
      if (type == 60) {
        // Start/end ranges may overlap and cross threads: one lane per process.
        int64_t pid = pid_of(s.i64(3));
        track = start_end_tracks.find(static_cast<uint64_t>(pid));
        if (track == U64Map::kMissing) {
          Track tr;
          tr.pid = pid;
          tr.tid = -1 - pid;  // never a real thread id
          tr.name = sym.strings.intern("NVTX start/end ranges");
          track = sink_.add_track(tr);
          start_end_tracks.set(static_cast<uint64_t>(pid), track);
        }
      } else {
        track = host_track(s.i64(3));
      }
      sink_.event(track, start, end, f, type == 34 ? EventKind::Instant : EventKind::HostRange, 0);
      ++nvtx_rows_;
    }
  }

  // How many frames each backtrace has (CUDA_CALLCHAINS rows per id).
  void read_chain_lengths() {
    if (!db_.has_table("CUDA_CALLCHAINS")) return;  // add_backtraces says so
    TableScan s = scan_columns(db_, "CUDA_CALLCHAINS", {"id"});
    while (s.step()) {
      if (s.is_null(0)) continue;
      uint64_t id = static_cast<uint64_t>(s.i64(0));
      uint32_t n = chain_length_.find(id);
      chain_length_.set(id, n == U64Map::kMissing ? 1 : n + 1);
    }
    have_chain_lengths_ = true;
  }

  // CUDA_CALLCHAINS(id, symbol, module, ..., stackDepth): depth 0 is the innermost frame.
  // Each frame becomes an event spanning its call, above the call.
  void add_backtraces() {
    if (!db_.has_table("CUDA_CALLCHAINS")) {
      sink_.count("--stacks backtrace: no CUDA_CALLCHAINS table in this export (NVTX stacks used)");
      return;
    }
    Symbols& sym = sink_.symbols();
    // Load every chain: id -> [frames, innermost first].
    std::vector<std::pair<int64_t, std::pair<int64_t, FrameId>>> rows;  // (id, (depth, frame))
    TableScan s = scan_columns(db_, "CUDA_CALLCHAINS", {"id", "stackDepth", "symbol", "module"});
    CategoryId native = sym.category("native");
    while (s.step()) {
      if (s.is_null(0)) continue;
      StrId name = string_of(s, 2), module = string_of(s, 3);
      FrameId f = sym.frame(name == UINT32_MAX ? sym.strings.intern("[unknown]") : name, module == UINT32_MAX ? 0 : module, 0,
                            native);
      rows.push_back({s.i64(0), {s.is_null(1) ? 0 : s.i64(1), f}});
    }
    std::sort(rows.begin(), rows.end());
    U64Map chain_start(rows.size() + 16);
    for (size_t i = 0; i < rows.size(); ++i)
      if (i == 0 || rows[i].first != rows[i - 1].first) chain_start.set(static_cast<uint64_t>(rows[i].first), static_cast<uint32_t>(i));
    ChainedCall call;
    std::vector<FrameId> frames;
    while (sink_.next_chained_call(call)) {
      uint32_t first = chain_start.find(static_cast<uint64_t>(call.chain));
      if (first == U64Map::kMissing) {
        sink_.count("CUDA calls whose callchain is missing");
        continue;
      }
      size_t last = first;
      while (last + 1 < rows.size() && rows[last + 1].first == rows[first].first) ++last;
      frames.clear();
      for (size_t k = last + 1; k-- > first;) frames.push_back(rows[k].second.second);  // outermost (deepest index) first
      sink_.chain_frames(call, frames);
    }
  }
};

// A Timeline: every event, backtrace frames chained to their call by parent hints.
class TimelineSink : public EventSink {
 public:
  explicit TimelineSink(NsysTrace& out) : out_(out), tl_(out.timeline) {}
  Symbols& symbols() override { return tl_.symbols; }
  uint32_t add_track(const Track& t) override { return tl_.add_track(t); }
  void count(std::string_view what, uint64_t n) override { tl_.count(what, n); }
  void fact(std::string key, std::string value) override { tl_.facts.emplace_back(std::move(key), std::move(value)); }
  void reserve(size_t events) override { tl_.reserve(events); }
  uint32_t event(uint32_t track, int64_t start, int64_t end, FrameId f, EventKind k, uint64_t correlation,
                 uint16_t) override {
    return tl_.add(track, start, end, f, k, correlation);
  }
  void bytes(uint32_t event, int64_t bytes) override { out_.side.bytes.emplace_back(event, bytes); }
  void chained_call(const ChainedCall& c) override { calls_.push_back(c); }
  bool next_chained_call(ChainedCall& c) override {
    if (next_ == calls_.size()) return false;
    c = calls_[next_++];
    return true;
  }
  void chain_frames(const ChainedCall& call, const std::vector<FrameId>& frames) override {
    uint32_t parent = kNone;
    for (FrameId f : frames) parent = tl_.add(call.track, call.start, call.end, f, EventKind::HostRange, 0, parent);
    if (call.event != kNone) tl_.parent_hint[call.event] = parent;
  }

 private:
  NsysTrace& out_;
  Timeline& tl_;
  std::vector<ChainedCall> calls_;
  size_t next_ = 0;
};

// A TraceBuilder: events stream into the flame graph; calls with a backtrace wait in a spool for
// their frames, which go above them by depth.
class BuilderSink : public EventSink {
 public:
  BuilderSink(TraceBuilder& b, size_t spool_bytes) : b_(b), calls_(spool_bytes) {}
  Symbols& symbols() override { return b_.symbols(); }
  uint32_t add_track(const Track& t) override { return b_.add_track(t); }
  void count(std::string_view what, uint64_t n) override { b_.count(what, n); }
  void fact(std::string key, std::string value) override { b_.facts.emplace_back(std::move(key), std::move(value)); }
  uint32_t event(uint32_t track, int64_t start, int64_t end, FrameId f, EventKind k, uint64_t correlation,
                 uint16_t depth) override {
    return b_.add(track, start, end, f, k, correlation, depth);
  }
  bool keeps(std::string_view category) const override { return b_.keeps_category(category); }
  void chained_call(const ChainedCall& c) override { calls_.push(c); }
  bool next_chained_call(ChainedCall& c) override {
    if (!finished_) {
      calls_.finish();
      finished_ = true;
    }
    return calls_.next(c);
  }
  void chain_frames(const ChainedCall& call, const std::vector<FrameId>& frames) override {
    uint16_t depth = 0;
    for (FrameId f : frames) b_.add(call.track, call.start, call.end, f, EventKind::HostRange, 0, depth++);
  }

 private:
  TraceBuilder& b_;
  Spool<ChainedCall, ByRow> calls_;
  bool finished_ = false;
};

}  // namespace

std::string_view clean_api_name(std::string_view name) {
  // Strip one trailing "_v<digits>" ABI suffix.
  size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
  if (i == name.size() || i < 3) return name;
  if (name[i - 1] == 'v' && name[i - 2] == '_') return name.substr(0, i - 2);
  return name;
}

bool is_nsys_db(const sqlite::Db& db) { return db.has_table("StringIds"); }

NsysTrace read_nsys_trace(const std::string& path, const ReadOptions& read, const NsysOptions& options) {
  // The timeline and the call tree are built in one go: memory freed on the way is reused.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) heap_reuse_freed_memory_for_input(static_cast<uint64_t>(st.st_size));
  NsysTrace out;
  TimelineSink sink(out);
  NsysReader r(path, read, options, sink, &out.side);
  Timeline& tl = out.timeline;
  tl.source_format = "nsys";
  tl.inputs.push_back(path);
  tl.ranks.push_back(base_name(path));
  r.run(/*chain_lengths=*/false);
  return out;
}

namespace {
void nsys_profile_options(const ReadOptions& read, NsysOptions& o, BuildOptions& b) {
  o.for_flamegraph = true;
  if (read.stacks == "backtrace" || read.stacks == "callchain") o.backtraces = true;
  else if (!read.stacks.empty() && read.stacks != "nvtx")
    throw UsageError("--stacks " + read.stacks + ": nsys stacks are nvtx or backtrace");
  b.device_weight = "gpu";
  b.default_to_device = read.weight == "gpu";
}
}  // namespace

Profile read_nsys(const std::string& path, const ReadOptions& read) {
  NsysOptions o;
  BuildOptions b;
  nsys_profile_options(read, o, b);
  // Spools and their buffers come and go all through the read: reused from the heap, they are
  // not faulted in afresh each time.
  heap_reuse_freed_memory();
  const size_t spool = read.spool_bytes ? read.spool_bytes : kSpoolBytes;
  TraceBuilder builder(read, b, spool);
  builder.source_format = "nsys";
  builder.inputs.push_back(path);
  builder.ranks.push_back(base_name(path));
  BuilderSink sink(builder, spool / 4);
  NsysReader r(path, read, o, sink, nullptr);
  r.run(/*chain_lengths=*/true);
  return builder.finish();
}

Profile read_nsys_in_memory(const std::string& path, const ReadOptions& read) {
  NsysOptions o;
  BuildOptions b;
  nsys_profile_options(read, o, b);
  NsysTrace t = read_nsys_trace(path, read, o);
  return build_profile(std::move(t.timeline), read, b);
}

}  // namespace flamefold
