// Ascend profiler DB -> Timeline. Columns are found by name, so the torch_npu schema, the
// older msprof schemas and Insight-rewritten files (extra columns) all read the same way.
#include "flamefold/readers/ascend.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>
#include <string>
#include <thread>

#include "flamefold/errors.h"
#include "flamefold/heap.h"
#include "flamefold/hash.h"
#include "flamefold/timeline_build.h"

namespace flamefold {

namespace {

using sqlite::Db;
using sqlite::RowidRange;
using sqlite::TableScan;

// Correlation ids: an op's PYTORCH_API.connectionId and a CANN_API/TASK connection id live in
// different number spaces; the top bits keep them apart (and never 0).
constexpr uint64_t kOpLink = 1ull << 62;
constexpr uint64_t kCannLink = 1ull << 61;
constexpr uint64_t kParkedLink = 1ull << 63;  // a PYTORCH_API link waiting for link_earliest_rows
constexpr uint32_t kExcluded = UINT32_MAX - 1;
constexpr uint32_t kUnset = UINT32_MAX - 3;  // a linked id whose row was not read yet
// Host tables with at least this many rows are read by two connections at once.
constexpr int64_t kParallelRows = 200000;

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool contains_ci(std::string_view hay_lower, std::string_view needle) {
  if (needle.empty()) return true;
  std::string n(needle);
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return hay_lower.find(n) != std::string_view::npos;
}

// SQLite's LIKE 'ProfilerStep#%' (ASCII case-insensitive prefix).
bool is_profiler_step(std::string_view name) {
  static constexpr std::string_view kPrefix = "profilerstep#";
  if (name.size() < kPrefix.size()) return false;
  for (size_t i = 0; i < kPrefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(name[i])) != kPrefix[i]) return false;
  return true;
}

// Column name, whichever of the candidates this schema version has ("" when none).
std::string pick(const std::vector<std::string>& cols, std::initializer_list<const char*> candidates) {
  for (const char* c : candidates)
    if (sqlite::find_column(cols, c) >= 0) return c;
  return "";
}

// id -> value for ids looked up once per row: a flat array when the ids are dense (torch_npu
// numbers connection ids 0, 1, 2 ...), so row-order lookups walk memory in order instead of
// missing the cache on every hashed probe; a U64Map otherwise.
class IdIndex {
 public:
  // ids: every id that will be set (ids may repeat), as id_of(item) for each item.
  template <typename Items, typename IdOf>
  void plan(const Items& items, IdOf id_of) {
    if (items.empty()) return;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const auto& item : items) {
      uint64_t id = id_of(item);
      lo = std::min(lo, id);
      hi = std::max(hi, id);
    }
    if (hi - lo < 4 * items.size() + 65536) {
      base_ = lo;
      dense_.assign(hi - lo + 1, U64Map::kMissing);
    } else {
      sparse_ = U64Map(items.size() + 16);
    }
  }
  void plan(const std::vector<uint64_t>& ids) {
    plan(ids, [](uint64_t id) { return id; });
  }
  uint32_t find(uint64_t id) const {
    if (!dense_.empty()) return id - base_ < dense_.size() ? dense_[id - base_] : U64Map::kMissing;
    return sparse_.find(id);
  }
  void set(uint64_t id, uint32_t v) {
    if (!dense_.empty()) dense_[id - base_] = v;  // only planned ids are set
    else sparse_.set(id, v);
  }

 private:
  uint64_t base_ = 0;
  std::vector<uint32_t> dense_;
  U64Map sparse_{1024};
};

// Rows to reserve room for: MAX(rowid), a b-tree lookup; 0 when it cannot be asked (WITHOUT
// ROWID tables), capped so that a damaged file cannot ask for absurd amounts.
size_t reservation_rows(const Db& db, const char* table) {
  try {
    return static_cast<size_t>(
        std::clamp<int64_t>(db.scalar(std::string("SELECT MAX(rowid) FROM ") + table, std::string("table ") + table), 0, int64_t(1) << 26));
  } catch (const InputError&) {
    return 0;
  }
}

// One host-table row as read (INT64_MIN = NULL).
struct HostRow {
  int64_t b, e, gtid, name, link, callchain;
};

// One TASK row as read; the null bits say which optional columns were NULL.
struct TaskRow {
  int64_t b, e, device, stream, link, task_id, task_type, pid;
  uint8_t nulls;
};
enum : uint8_t { kNoTime = 1, kNoLink = 2, kNoTaskId = 4, kNoTaskType = 8 };
// What read_tasks reads: (COMPUTE_TASK_INFO id, name) pairs and the TASK rows.
struct TaskRows {
  std::vector<std::pair<int64_t, int64_t>> names;
  std::vector<TaskRow> rows;
};
// The columns read_tasks reads ("" = absent in this schema, read as NULL); names_columns is
// empty when the task names cannot be looked up.
struct TaskQueries {
  std::vector<std::string> names_columns, task_columns;
  bool link_is_connection_id = false;  // task_columns[4] is TASK.connectionId
};

class AscendReader {
 public:
  AscendReader(const std::string& path, const ReadOptions& read, const AscendOptions& o)
      : path_(path), read_(read), o_(o), rules_(o.rules) {
    apply_category_rules(rules_, read.category_rules);
  }

  AscendTrace run() {
    check_size();
    Db db = Db::open(path_);
    db_ = &db;
    if (!db.has_table("STRING_IDS")) throw InputError(path_, "", "DB is missing required tables: STRING_IDS");
    const char* host_table = db.has_table("PYTORCH_API") ? "PYTORCH_API"
                             : db.has_table("CANN_API")  ? "CANN_API"
                             : db.has_table("API")       ? "API"
                                                         : nullptr;
    if (!host_table)
      throw InputError(path_, "", "DB is missing required tables: PYTORCH_API (nor CANN_API/API of an msprof DB)");
    Timeline& tl = out_.timeline;
    tl.source_format = "ascend";
    tl.inputs.push_back(path_);
    tl.ranks.push_back(base_name(path_));
    out_.side.device_label = "NPU";
    for (std::string_view c : {"cann", "python_framework", "python", "unknown"}) categories_.push_back(tl.symbols.category(c));
    task_cat_ = tl.symbols.category("npu_task");
    kernel_cat_ = tl.symbols.category(category::kKernel);
    read_strings();
    bool pytorch = std::string_view(host_table) == "PYTORCH_API";
    has_pytorch_ = pytorch;
    if (pytorch) {
      // TASK's queries do not depend on the host tables unless CANN_API is read as launches;
      // the host table's second connection starts now and reads TASK after its rows.
      if (!o_.cann_launches) start_task_prefetch();
      start_host_early(host_table);
      // CONNECTION_IDS is read by the second connection when there is one (after its rows).
      if (o_.for_flamegraph && !upper_.connections) read_connections(*db_);
      read_host(host_table, /*launches=*/false);
      if (o_.for_flamegraph) {
        link_earliest_rows();
        choose_launching_ops();
      }
      if (o_.cann_launches) {
        if (db.has_table("CANN_API")) read_host("CANN_API", true);
        else if (db.has_table("API")) read_host("API", true);
      }
    } else {
      read_host(host_table, true);
    }
    read_tasks();
    if (o_.callchains) add_callchains();
    // The seed's summary of invalid records, in its words (shown by `flamefold info`).
    uint64_t skipped = 0, empty = 0;
    for (const Counter& c : tl.counters) {
      if (c.what == "non-positive durations skipped") skipped = c.count;
      if (c.what == "empty API names replaced with unknown") empty = c.count;
    }
    if (skipped || empty)
      tl.facts.emplace_back("invalid records", std::to_string(skipped) + " non-positive durations skipped, " +
                                                   std::to_string(empty) + " empty API names replaced with unknown");
    tl.facts.emplace_back("host calls", std::to_string(host_rows_));
    tl.facts.emplace_back("NPU tasks", std::to_string(tasks_));
    db_ = nullptr;
    return std::move(out_);
  }

 private:
  std::string path_;
  const ReadOptions& read_;
  const AscendOptions& o_;
  AscendCategoryRules rules_;  // o_.rules with --category-rule applied
  const Db* db_ = nullptr;
  AscendTrace out_;
  U64Map strings_{4096};      // STRING_IDS id -> StrId
  U64Map frames_{4096};       // (table << 60 | name id) -> FrameId or kExcluded
  U64Map tracks_{64};         // globalTid -> track
  U64Map device_tracks_{64};  // device << 32 | stream -> track
  // PYTORCH_API.connectionId -> CONNECTION_IDS (id -> connectionId, 1:N) -> TASK.connectionId.
  std::vector<std::pair<uint64_t, uint64_t>> connections_;  // (id, connectionId) whose connectionId has tasks
  IdIndex linked_ids_;              // ids in connections_ -> earliest PYTORCH_API event with that id
  IdIndex op_of_connection_;        // TASK.connectionId -> the launching PYTORCH_API event
  std::vector<CategoryId> categories_;
  CategoryId task_cat_ = 0, kernel_cat_ = 0;
  uint64_t host_rows_ = 0, tasks_ = 0;
  bool launch_by_task_id_ = false;
  bool has_pytorch_ = false;
  int64_t last_gtid_ = INT64_MIN;
  uint32_t last_track_ = 0;  // an msprof API table that links by globalTaskId
  std::vector<std::pair<uint32_t, int64_t>> op_callchains_;  // (event, callchainId)
  uint32_t host_events_begin_ = 0, host_events_end_ = 0;     // the PYTORCH_API events
  std::vector<std::pair<uint32_t, int64_t>> odd_links_;       // (event, link) of links too big to park
  // TASK rows read ahead by the host table's second connection (start_task_prefetch).
  struct Prefetch {
    TaskQueries queries;
    TaskRows rows;
    std::exception_ptr error;
    bool wanted = false;
    bool done = false;
  } prefetch_;
  // The host table's second connection. Declared last: joined first on the way out (an error
  // on the main connection), before anything its thread writes to is destroyed.
  struct UpperReader {
    std::string table;
    std::vector<HostRow> rows;
    std::exception_ptr error;             // reading the rows failed
    std::exception_ptr connections_error;  // reading CONNECTION_IDS failed
    bool connections = false;              // it reads CONNECTION_IDS after its rows
    std::atomic<bool> rows_ready{false};
    std::thread thread;
    ~UpperReader() {
      if (thread.joinable()) thread.join();
    }
  } upper_;

  void check_size() {
    struct stat st;
    if (::stat(path_.c_str(), &st) != 0) return;  // Db::open reports it
    uint64_t cap = read_.max_input_bytes ? read_.max_input_bytes : kAscendDefaultMaxBytes;
    if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > cap)
      throw InputError(path_, "",
                       "DB file exceeds the size limit (" + std::to_string(st.st_size) + " > " + std::to_string(cap) +
                           " bytes; raise it with --max-input-bytes)");
  }

  void read_strings() {
    std::vector<std::string> cols = db_->columns("STRING_IDS");
    if (sqlite::find_column(cols, "id") < 0 || sqlite::find_column(cols, "value") < 0)
      throw InputError(path_, "table STRING_IDS", "has no id and value columns");
    TableScan s = db_->scan("STRING_IDS", {"id", "value"}, "table STRING_IDS");
    StringTable& st = out_.timeline.symbols.strings;
    while (s.step())
      if (!s.is_null(0) && !s.is_null(1)) strings_.set(static_cast<uint64_t>(s.i64(0)), st.intern(s.text(1)));
  }

  // Which PYTORCH_API connection ids lead to NPU tasks (others link forward/backward ops).
  // Runs on the host table's second connection when there is one (the rows placed meanwhile
  // keep their links for link_earliest_rows).
  void read_connections(const Db& db, const std::vector<TaskRow>* task_rows = nullptr) {
    if (!db.has_table("CONNECTION_IDS") || !db.has_table("TASK")) return;
    std::vector<std::string> cols = db.columns("CONNECTION_IDS");
    if (sqlite::find_column(cols, "id") < 0 || sqlite::find_column(cols, "connectionId") < 0) return;
    if (sqlite::find_column(db.columns("TASK"), "connectionId") < 0) return;
    auto rows_of = [&db](const char* table) { return reservation_rows(db, table); };
    std::vector<uint64_t> task_ids;
    if (task_rows) {
      task_ids.reserve(task_rows->size());
      for (const TaskRow& r : *task_rows)
        if (!(r.nulls & kNoLink)) task_ids.push_back(static_cast<uint64_t>(r.link));
    } else {
      task_ids.reserve(rows_of("TASK"));
      TableScan t = db.scan("TASK", {"connectionId"}, "table TASK");
      while (t.step())
        if (!t.is_null(0)) task_ids.push_back(static_cast<uint64_t>(t.i64(0)));
    }
    IdIndex task_connections;  // TASK.connectionId -> 1
    task_connections.plan(task_ids);
    for (uint64_t c : task_ids) task_connections.set(c, 1);
    connections_.reserve(rows_of("CONNECTION_IDS"));
    TableScan s = db.scan("CONNECTION_IDS", {"id", "connectionId"}, "table CONNECTION_IDS");
    while (s.step()) {
      if (s.is_null(0) || s.is_null(1)) continue;
      uint64_t id = static_cast<uint64_t>(s.i64(0)), c = static_cast<uint64_t>(s.i64(1));
      if (task_connections.find(c) == U64Map::kMissing) continue;
      connections_.emplace_back(id, c);
    }
    linked_ids_.plan(connections_, [](const auto& pr) { return pr.first; });
    for (auto [id, c] : connections_) linked_ids_.set(id, kUnset);
    op_of_connection_.plan(connections_, [](const auto& pr) { return pr.second; });
  }

  // Each linked id -> its earliest PYTORCH_API row (ties: the first row), from the links that
  // place_host_row parked in the correlation column; clears them.
  void link_earliest_rows() {
    Timeline& tl = out_.timeline;
    auto note = [&](uint64_t id, uint32_t ev) {
      uint32_t have = linked_ids_.find(id);
      if (have == U64Map::kMissing) return;
      if (have == kUnset || tl.start[ev] < tl.start[have] || (tl.start[ev] == tl.start[have] && ev < have))
        linked_ids_.set(id, ev);
    };
    const bool any = !connections_.empty();
    for (uint32_t ev = host_events_begin_; ev < host_events_end_; ++ev) {
      uint64_t c = tl.correlation[ev];
      if (!(c & kParkedLink)) continue;
      tl.correlation[ev] = 0;
      if (any) note(c & ~kParkedLink, ev);
    }
    if (any)
      for (auto [ev, link] : odd_links_) note(static_cast<uint64_t>(link), ev);
    odd_links_.clear();
  }

  // A task's connection can be reached from several rows (torch_npu's Enqueue on the op's
  // thread and Dequeue on the queue thread; a forward op and its backward): the earliest one
  // launched it. Each chosen row is a Launch whose correlation is its own event id.
  void choose_launching_ops() {
    Timeline& tl = out_.timeline;
    for (auto [id, c] : connections_) {
      uint32_t ev = linked_ids_.find(id);
      if (ev == kUnset || ev == U64Map::kMissing) continue;
      uint32_t have = op_of_connection_.find(c);
      if (have == U64Map::kMissing || tl.start[ev] < tl.start[have]) op_of_connection_.set(c, ev);
    }
    for (auto [id, c] : connections_) {
      uint32_t ev = op_of_connection_.find(c);
      if (ev == U64Map::kMissing) continue;
      tl.kind[ev] = EventKind::Launch;
      tl.correlation[ev] = kOpLink | ev;
    }
  }

  uint32_t host_track(int64_t gtid) {
    if (gtid == last_gtid_) return last_track_;
    uint32_t t = tracks_.find(static_cast<uint64_t>(gtid));
    last_gtid_ = gtid;
    if (t != U64Map::kMissing) return last_track_ = t;
    Track tr;
    tr.pid = static_cast<int64_t>(static_cast<uint64_t>(gtid) >> 32);
    tr.tid = gtid & 0xFFFFFFFF;
    tr.name = out_.timeline.symbols.strings.intern("thread_" + std::to_string(tr.tid) + " (globalTid: " + std::to_string(gtid) + ")");
    t = out_.timeline.add_track(tr);
    tracks_.set(static_cast<uint64_t>(gtid), t);
    return last_track_ = t;
  }

  // Frame of a host call name (cached per table and STRING_IDS id); kExcluded for ProfilerStep#.
  uint32_t host_frame(uint64_t table, int64_t raw, bool& empty_name) {
    empty_name = false;
    if (raw == INT64_MIN) {
      empty_name = true;
      return unknown_frame();
    }
    uint64_t key = (table << 60) | (static_cast<uint64_t>(raw) & 0x0FFFFFFFFFFFFFFFull);
    uint32_t f = frames_.find(key);
    if (f == U64Map::kMissing) {
      StrId name = strings_.find(static_cast<uint64_t>(raw));
      Symbols& sym = out_.timeline.symbols;
      if (name == U64Map::kMissing || sym.strings[name].empty()) f = kExcluded - 1;  // empty: no STRING_IDS value
      else if (is_profiler_step(sym.strings[name])) f = kExcluded;
      else f = sym.frame(name, 0, 0, category_of(sym.strings[name]));
      frames_.set(key, f);
    }
    if (f == kExcluded - 1) {
      empty_name = true;
      return unknown_frame();
    }
    return f;
  }

  FrameId unknown_frame() {
    Symbols& sym = out_.timeline.symbols;
    return sym.frame("unknown", {}, 0, categories_[3]);
  }

  CategoryId category_of(std::string_view name) {
    std::string_view c = classify_ascend_frame(name, rules_);
    if (c == "cann") return categories_[0];
    if (c == "python_framework") return categories_[1];
    if (c == "python") return categories_[2];
    return categories_[3];
  }

  static HostRow fetch_host_row(const TableScan& s, bool link_col, bool chain_col) {
    return HostRow{s.time_ns(0),
                   s.time_ns(1),
                   s.i64_or(2, INT64_MIN),
                   s.i64_or(3, INT64_MIN),
                   link_col ? s.i64_or(4, INT64_MIN) : INT64_MIN,
                   chain_col && !s.is_null(5) ? s.i64(5) : INT64_MIN};
  }

  // What read_host reads from a host table; throws when the table lacks the needed columns.
  struct HostPlan {
    std::string table, place;
    std::vector<std::string> columns;  // "" = absent, read as NULL
    bool pytorch = false, link_col = false, chain_col = false;
    int64_t max_rowid = 0;
    int64_t split = -1;  // rowids above it are read by a second connection; -1 = one scan
  };
  HostPlan plan_host(const char* table, bool launches) {
    std::vector<std::string> cols = db_->columns(table);
    std::string start = pick(cols, {"startNs", "start"}), end = pick(cols, {"endNs", "end"});
    if (start.empty() || end.empty() || sqlite::find_column(cols, "globalTid") < 0)
      throw InputError(path_, std::string("table ") + table, "has no startNs/endNs (or start/end) and globalTid columns");
    std::string link = pick(cols, {"connectionId"});
    if (link.empty() && launches) {
      link = pick(cols, {"globalTaskId"});
      launch_by_task_id_ = !link.empty();
    }
    HostPlan plan;
    plan.table = table;
    plan.pytorch = std::string_view(table) == "PYTORCH_API";
    std::string callchain = plan.pytorch && o_.callchains ? pick(cols, {"callchainId"}) : "";
    plan.place = std::string("table ") + table;
    plan.columns = {start, end, "globalTid", pick(cols, {"name"}), link, callchain};
    plan.link_col = !link.empty();
    plan.chain_col = !callchain.empty();
    plan.max_rowid = std::max<int64_t>(0, db_->scalar(std::string("SELECT MAX(rowid) FROM ") + table, plan.place));
    // Big tables: a second connection decodes the upper rowids on another core while this one
    // reads and places the lower ones; its rows are placed afterwards, so the events come out
    // in the same (rowid) order as one scan gives. The other connection then goes on with TASK
    // and CONNECTION_IDS while this one places its rows.
    const bool rowid_is_column = sqlite::find_column(cols, "rowid") >= 0;
    const bool one_thread = read_.threads_to_use == 1;  // -j 1: a single scan
    if (!rowid_is_column && !one_thread && plan.max_rowid >= kParallelRows) plan.split = plan.max_rowid / 2;
    return plan;
  }

  // Starts the second connection on the upper rows of a planned host table; once done, it
  // also reads TASK if asked (prefetch_), as the main connection is then still placing rows.
  void start_upper_reader(const HostPlan& plan, bool with_connections) {
    if (plan.split < 0) return;
    upper_.table = plan.table;
    upper_.rows.clear();
    upper_.error = nullptr;
    upper_.connections_error = nullptr;
    upper_.connections = with_connections;
    upper_.rows_ready = false;
    upper_.thread = std::thread([this, plan] {
      try {
        Db other = Db::open(path_);
        try {
          TableScan u = other.scan(plan.table, plan.columns, plan.place, RowidRange{plan.split + 1, INT64_MAX});
          upper_.rows.reserve(static_cast<size_t>(std::min<int64_t>(plan.max_rowid - plan.split, int64_t(1) << 24)));  // rowids may be sparse
          while (u.step()) upper_.rows.push_back(fetch_host_row(u, plan.link_col, plan.chain_col));
        } catch (...) {
          upper_.error = std::current_exception();
        }
        upper_.rows_ready = true;
        upper_.rows_ready.notify_one();
        if (upper_.error) return;
        bool tasks_read = false;
        if (prefetch_.wanted && !prefetch_.done) {
          prefetch_.done = true;
          try {
            fetch_tasks(other, prefetch_.queries, prefetch_.rows);
            tasks_read = true;
          } catch (...) {
            prefetch_.error = std::current_exception();  // rethrown where read_tasks reads TASK
          }
        }
        if (upper_.connections) {
          try {
            // TASK's connection ids come with the rows just read when that column was read.
            read_connections(other, tasks_read && prefetch_.queries.link_is_connection_id ? &prefetch_.rows.rows : nullptr);
          } catch (...) {
            upper_.connections_error = std::current_exception();  // rethrown after the rows are placed
          }
        }
      } catch (...) {
        upper_.error = std::current_exception();
        upper_.rows_ready = true;
        upper_.rows_ready.notify_one();
      }
    });
  }

  // Starts reading the upper half of a host table before the tables read ahead of it; any
  // failure here is left for read_host to meet (and report) at its usual place.
  void start_host_early(const char* table) {
    try {
      start_upper_reader(plan_host(table, /*launches=*/false), o_.for_flamegraph);
    } catch (const InputError&) {
    }
  }

  // Room in the event columns for a host table's rows (and TASK's, after PYTORCH_API).
  void reserve_events(const HostPlan& plan) {
    Timeline& tl = out_.timeline;
    size_t rows = static_cast<size_t>(plan.max_rowid);
    tl.reserve(tl.size() + rows + (plan.pytorch ? static_cast<size_t>(std::max<int64_t>(0, db_->has_table("TASK") ? db_->scalar("SELECT MAX(rowid) FROM TASK", "table TASK") : 0)) : 0));
  }

  void read_host(const char* table, bool launches) {
    const HostPlan plan = plan_host(table, launches);
    Timeline& tl = out_.timeline;
    reserve_events(plan);
    if (!(upper_.thread.joinable() && upper_.table == plan.table)) {
      if (upper_.thread.joinable()) upper_.thread.join();
      start_upper_reader(plan, false);
    }
    const int64_t split = plan.split;
    TableScan s = db_->scan(plan.table, plan.columns, plan.place, split >= 0 ? RowidRange{INT64_MIN, split} : RowidRange{});
    HostContext ctx{table, launches, plan.pytorch ? 1u : 2u, std::string(" (") + table + ")",
                    // The seed's summary line counts the rows of the main host table only.
                    !(launches && has_pytorch_)};
    if (!launches) host_events_begin_ = static_cast<uint32_t>(tl.size());
    while (s.step()) place_host_row(ctx, fetch_host_row(s, plan.link_col, plan.chain_col));
    if (split >= 0) {
      // The upper rows as soon as they are decoded; the thread goes on with CONNECTION_IDS/TASK.
      upper_.rows_ready.wait(false);
      if (upper_.error) {
        upper_.thread.join();
        std::rethrow_exception(upper_.error);
      }
      std::vector<HostRow> upper = std::move(upper_.rows);
      upper_.rows = {};
      for (const HostRow& r : upper) place_host_row(ctx, r);
      upper_.thread.join();
      if (upper_.connections_error) std::rethrow_exception(upper_.connections_error);
    }
    if (!launches) host_events_end_ = static_cast<uint32_t>(tl.size());
  }

  struct HostContext {
    const char* table;
    bool launches;
    uint64_t table_key;
    std::string where;
    bool seed_table;
  };

  void place_host_row(const HostContext& c, const HostRow& r) {
    Timeline& tl = out_.timeline;
    const int64_t b = r.b, e = r.e;
    if (b == INT64_MIN || e == INT64_MIN) {
      tl.count("rows without a start or end time (left out)" + c.where);
      return;
    }
    if (r.gtid == INT64_MIN) {
      tl.count("rows without a thread (left out)" + c.where);
      return;
    }
    bool empty_name = false;
    uint32_t f = host_frame(c.table_key, r.name, empty_name);
    if (f == kExcluded) return;  // ProfilerStep# ranges, as the seed leaves them out
    if (e <= b) {
      tl.count(c.seed_table ? std::string("non-positive durations skipped") : "non-positive durations skipped" + c.where);
      return;
    }
    if (empty_name)
      tl.count(c.seed_table ? std::string("empty API names replaced with unknown")
                            : "empty API names replaced with unknown" + c.where);
    EventKind kind = EventKind::HostRange;
    uint64_t corr = 0;
    const int64_t link = r.link;
    if (link != INT64_MIN && c.launches) {
      kind = EventKind::Launch;
      corr = kCannLink | static_cast<uint64_t>(link);
    }
    if (!c.launches && link != INT64_MIN && o_.for_flamegraph) {
      // Parked in the correlation column for link_earliest_rows (CONNECTION_IDS may still be
      // being read on the other connection).
      if (link >= 0 && static_cast<uint64_t>(link) < kParkedLink) {
        corr = kParkedLink | static_cast<uint64_t>(link);
      } else {
        odd_links_.emplace_back(static_cast<uint32_t>(tl.size()), link);
      }
    }
    uint32_t ev = tl.add(host_track(r.gtid), b, e, f, kind, corr);
    if (r.callchain != INT64_MIN) op_callchains_.emplace_back(ev, r.callchain);
    ++host_rows_;
  }

  // The queries read_tasks runs; throws like read_tasks when TASK has no times.
  TaskQueries task_queries() const {
    TaskQueries q;
    std::vector<std::string> cols = db_->columns("TASK");
    std::string start = pick(cols, {"startNs", "start"}), end = pick(cols, {"endNs", "end"});
    if (start.empty() || end.empty()) throw InputError(path_, "table TASK", "has no startNs/endNs (or start/end) columns");
    // The id that names a task in COMPUTE_TASK_INFO: globalTaskId, or correlationId in the oldest schema.
    std::string task_id = pick(cols, {"globalTaskId", "correlationId"});
    if (db_->has_table("COMPUTE_TASK_INFO") && !task_id.empty()) {
      std::vector<std::string> ccols = db_->columns("COMPUTE_TASK_INFO");
      std::string cid = sqlite::find_column(ccols, task_id) >= 0 ? task_id : pick(ccols, {"globalTaskId", "correlationId"});
      if (!cid.empty() && sqlite::find_column(ccols, "name") >= 0) q.names_columns = {cid, "name"};
    }
    std::string link = launch_by_task_id_ ? task_id : pick(cols, {"connectionId"});
    q.link_is_connection_id = link == "connectionId";
    q.task_columns = {start, end, pick(cols, {"deviceId"}), pick(cols, {"streamId"}), link, task_id,
                      pick(cols, {"taskType"}), pick(cols, {"globalPid"})};
    return q;
  }

  static void fetch_tasks(const Db& db, const TaskQueries& q, TaskRows& out) {
    auto rows_of = [&db](const char* table) { return reservation_rows(db, table); };
    out.rows.reserve(rows_of("TASK"));
    if (!q.names_columns.empty()) {
      out.names.reserve(rows_of("COMPUTE_TASK_INFO"));
      TableScan c = db.scan("COMPUTE_TASK_INFO", q.names_columns, "table COMPUTE_TASK_INFO");
      while (c.step())
        if (!c.is_null(0) && !c.is_null(1)) out.names.emplace_back(c.i64(0), c.i64(1));
    }
    TableScan s = db.scan("TASK", q.task_columns, "table TASK");
    while (s.step()) {
      TaskRow r{};
      if (s.is_null(4)) r.nulls |= kNoLink;
      else r.link = s.i64(4);
      if (s.is_null(0) || s.is_null(1)) {
        r.nulls |= kNoTime;  // left out by read_tasks; its link still counts for read_connections
        out.rows.push_back(r);
        continue;
      }
      r.b = s.time_ns(0);
      r.e = s.time_ns(1);
      r.device = s.i64(2);
      r.stream = s.i64(3);
      r.pid = s.i64(7);
      if (s.is_null(5)) r.nulls |= kNoTaskId;
      else r.task_id = s.i64(5);
      if (s.is_null(6)) r.nulls |= kNoTaskType;
      else r.task_type = s.i64(6);
      out.rows.push_back(r);
    }
  }

  // Asks read_host's second connection to read TASK (and COMPUTE_TASK_INFO) once its share of
  // the host table is read.
  void start_task_prefetch() {
    if (!db_->has_table("TASK")) return;
    std::vector<std::string> cols = db_->columns("TASK");
    if (pick(cols, {"startNs", "start"}).empty() || pick(cols, {"endNs", "end"}).empty()) return;  // read_tasks says so
    try {
      prefetch_.queries = task_queries();
      prefetch_.wanted = true;
    } catch (const InputError&) {
      // read_tasks meets it again at its usual place
    }
  }

  void read_tasks() {
    if (!db_->has_table("TASK")) return;
    TaskRows got;
    if (prefetch_.done) {
      if (prefetch_.error) std::rethrow_exception(prefetch_.error);
      got = std::move(prefetch_.rows);
    } else {
      fetch_tasks(*db_, task_queries(), got);
    }
    IdIndex names;  // COMPUTE_TASK_INFO id -> StrId (the ids are dense in torch_npu DBs)
    {
      std::vector<uint64_t> ids;
      ids.reserve(got.names.size());
      for (auto [id, name] : got.names) ids.push_back(static_cast<uint64_t>(id));
      names.plan(ids);
    }
    for (auto [id, name] : got.names) {
      StrId n = strings_.find(static_cast<uint64_t>(name));
      if (n != U64Map::kMissing) names.set(static_cast<uint64_t>(id), n);
    }
    Timeline& tl = out_.timeline;
    Symbols& sym = tl.symbols;
    U64Map task_frames(256);  // (compute? << 40 | name id) -> frame
    for (const TaskRow& r : got.rows) {
      if (r.nulls & kNoTime) {
        tl.count("NPU tasks without a start or end time (left out)");
        continue;
      }
      int64_t b = r.b, e = r.e;
      if (e < b) {
        tl.count("NPU tasks ending before they start (left out)");
        continue;
      }
      int64_t device = r.device, stream = r.stream;
      uint64_t dkey = (static_cast<uint64_t>(device & 0xFFFFFFFF) << 32) | static_cast<uint64_t>(stream & 0xFFFFFFFF);
      uint32_t track = device_tracks_.find(dkey);
      if (track == U64Map::kMissing) {
        Track t;
        t.device = true;
        t.device_index = static_cast<int32_t>(device);
        t.tid = stream;
        t.pid = r.pid;
        t.name = sym.strings.intern("stream " + std::to_string(stream));
        track = tl.add_track(t);
        device_tracks_.set(dkey, track);
      }
      // Name: the compute task's op name, else the task type (EVENT_RECORD, MEMCPY_ASYNC ...).
      StrId name = (r.nulls & kNoTaskId) ? U64Map::kMissing : names.find(static_cast<uint64_t>(r.task_id));
      bool compute = name != U64Map::kMissing;
      if (!compute && !(r.nulls & kNoTaskType)) name = strings_.find(static_cast<uint64_t>(r.task_type));
      if (name == U64Map::kMissing) name = sym.strings.intern("task");
      uint64_t fkey = (compute ? 1ull << 40 : 0) | name;
      uint32_t f = task_frames.find(fkey);
      if (f == U64Map::kMissing) {
        f = sym.frame(name, 0, 0, compute ? kernel_cat_ : task_cat_);
        task_frames.set(fkey, f);
      }
      uint64_t corr = 0;
      if (!(r.nulls & kNoLink)) {
        uint64_t c = static_cast<uint64_t>(r.link);
        uint32_t op = op_of_connection_.find(c);
        corr = op != U64Map::kMissing ? (kOpLink | op) : (kCannLink | c);
      }
      tl.add(track, b, e, f, EventKind::Kernel, corr);
      ++tasks_;
    }
  }

  // PYTORCH_CALLCHAINS(id, stack -> STRING_IDS "file(line): func", stackDepth 0 = innermost).
  void add_callchains() {
    Timeline& tl = out_.timeline;
    if (!db_->has_table("PYTORCH_CALLCHAINS")) {
      tl.count("--stacks callchain: no PYTORCH_CALLCHAINS table (the profile was taken without with_stack)");
      return;
    }
    Symbols& sym = tl.symbols;
    CategoryId python = categories_[2];
    std::vector<std::pair<int64_t, std::pair<int64_t, FrameId>>> rows;
    std::vector<std::string> cols = db_->columns("PYTORCH_CALLCHAINS");
    if (sqlite::find_column(cols, "id") < 0 || sqlite::find_column(cols, "stack") < 0)
      throw InputError(path_, "table PYTORCH_CALLCHAINS", "has no id and stack columns");
    TableScan s = db_->scan("PYTORCH_CALLCHAINS", {"id", "stackDepth", "stack"}, "table PYTORCH_CALLCHAINS");
    U64Map frame_of_string(1024);
    while (s.step()) {
      if (s.is_null(0) || s.is_null(2)) continue;
      uint64_t sid = static_cast<uint64_t>(s.i64(2));
      uint32_t f = frame_of_string.find(sid);
      if (f == U64Map::kMissing) {
        StrId text = strings_.find(sid);
        std::string_view t = text == U64Map::kMissing ? std::string_view("[unknown]") : sym.strings[text];
        // "path/file.py(123): func" -> name func, file path/file.py, line 123.
        size_t close = t.rfind("): ");
        size_t open = close == std::string_view::npos ? std::string_view::npos : t.rfind('(', close);
        if (open != std::string_view::npos) {
          uint32_t line = 0;
          for (size_t i = open + 1; i < close && t[i] >= '0' && t[i] <= '9'; ++i) line = line * 10 + static_cast<uint32_t>(t[i] - '0');
          f = sym.frame(t.substr(close + 3), t.substr(0, open), line, python);
        } else {
          f = sym.frame(t, {}, 0, python);
        }
        frame_of_string.set(sid, f);
      }
      rows.push_back({s.i64(0), {s.is_null(1) ? 0 : s.i64(1), f}});
    }
    std::sort(rows.begin(), rows.end());
    U64Map first_row(rows.size() + 16);
    for (size_t i = 0; i < rows.size(); ++i)
      if (i == 0 || rows[i].first != rows[i - 1].first) first_row.set(static_cast<uint64_t>(rows[i].first), static_cast<uint32_t>(i));
    for (auto [op, chain] : op_callchains_) {
      uint32_t first = first_row.find(static_cast<uint64_t>(chain));
      if (first == U64Map::kMissing) {
        tl.count("ops whose callchain is missing");
        continue;
      }
      size_t last = first;
      while (last + 1 < rows.size() && rows[last + 1].first == rows[first].first) ++last;
      uint32_t parent = kNone;
      for (size_t k = last + 1; k-- > first;)
        parent = tl.add(tl.track[op], tl.start[op], tl.end[op], rows[k].second.second, EventKind::HostRange, 0, parent);
      tl.parent_hint[op] = parent;
    }
  }
};

}  // namespace

std::string_view classify_ascend_frame(std::string_view name, const AscendCategoryRules& rules) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string& k : rules.cann)
    if (contains_ci(lower, k)) return "cann";
  for (const std::string& k : rules.python_framework)
    if (contains_ci(lower, k)) return "python_framework";
  if (rules.python_default) {
    if (name.find(".py") != std::string_view::npos || lower.find("python") != std::string::npos) return "python";
  } else {
    for (const std::string& k : rules.python)
      if (contains_ci(lower, k)) return "python";
  }
  return "unknown";
}

void apply_category_rules(AscendCategoryRules& rules, const std::vector<std::string>& texts) {
  for (const std::string& text : texts) {
    size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--category-rule " + text + ": expected CATEGORY=KEYWORD,... or CATEGORY+=KEYWORD,...");
    const bool add = text[eq - 1] == '+';
    std::string category = text.substr(0, add ? eq - 1 : eq);
    std::vector<std::string> keywords;
    std::string rest = text.substr(eq + 1);
    for (size_t at = 0; at <= rest.size();) {
      size_t comma = rest.find(',', at);
      if (comma == std::string::npos) comma = rest.size();
      if (comma > at) keywords.push_back(rest.substr(at, comma - at));
      at = comma + 1;
    }
    std::vector<std::string>* list = nullptr;
    if (category == "cann") list = &rules.cann;
    else if (category == "python_framework") list = &rules.python_framework;
    else if (category == "python") {
      if (rules.python_default) {
        rules.python_default = false;
        rules.python = add ? std::vector<std::string>{".py", "python"} : std::vector<std::string>{};
      }
      list = &rules.python;
    } else {
      throw UsageError("--category-rule " + text + ": the category is cann, python_framework or python");
    }
    if (!add) list->clear();
    list->insert(list->end(), keywords.begin(), keywords.end());
  }
}

bool is_ascend_db(const sqlite::Db& db) {
  return db.has_table("STRING_IDS") && (db.has_table("PYTORCH_API") || db.has_table("CANN_API") || db.has_table("API"));
}

AscendTrace read_ascend_trace(const std::string& path, const ReadOptions& read, const AscendOptions& options) {
  // Rows become timeline columns and a call tree in one go: huge pages save most page faults
  // (0.21 -> 0.13 s on a 1M-row DB).
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) heap_prefer_huge_pages_for_input(static_cast<uint64_t>(st.st_size));
  AscendReader r(path, read, options);
  return r.run();
}

Profile read_ascend(const std::string& path, const ReadOptions& read) {
  AscendOptions o;
  o.for_flamegraph = true;
  if (read.stacks == "callchain") o.callchains = true;
  else if (!read.stacks.empty() && read.stacks != "ops")
    throw UsageError("--stacks " + read.stacks + ": Ascend stacks are ops (default) or callchain");
  // The device view also joins tasks no op claims to their CANN_API call; the host view keeps
  // the seed's per-thread times, so it reads PYTORCH_API only.
  o.cann_launches = read.weight == "npu";
  AscendTrace t = read_ascend_trace(path, read, o);
  BuildOptions b;
  b.device_weight = "npu";
  b.default_to_device = read.weight == "npu";
  b.process_level_always = false;  // seed 000's roots: the threads
  return build_profile(std::move(t.timeline), read, b);
}

}  // namespace flamefold
