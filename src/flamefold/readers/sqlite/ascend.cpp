// Ascend profiler DB -> Timeline. Columns are found by name, so the torch_npu schema, the
// older msprof schemas and Insight-rewritten files (extra columns) all read the same way.
#include "flamefold/readers/sqlite/ascend.h"

#include "ascend_tables.h"

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
#include "flamefold/timeline/build_profile.h"

namespace flamefold {

namespace {

using namespace ascend_detail;
using sqlite::RowidRange;

constexpr uint64_t kParkedLink = 1ull << 63;  // a PYTORCH_API link waiting for link_earliest_rows
constexpr uint32_t kUnset = UINT32_MAX - 3;  // a linked id whose row was not read yet
// Host tables with at least this many rows are read by two connections at once.
constexpr int64_t kParallelRows = 200000;

bool contains_ci(std::string_view hay_lower, std::string_view needle) {
  if (needle.empty()) return true;
  std::string n(needle);
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return hay_lower.find(n) != std::string_view::npos;
}

// What read_tasks reads: (COMPUTE_TASK_INFO id, name) pairs and the TASK rows.
struct TaskRows {
  std::vector<std::pair<int64_t, int64_t>> names;
  std::vector<TaskRow> rows;
};

// The timeline reader: every row becomes an event (`convert`); with for_flamegraph, the reference
// the streaming flame-graph reader (ascend_stream.cpp) must agree with.
class AscendReader : public AscendTables {
 public:
  AscendReader(const std::string& path, const ReadOptions& read, const AscendOptions& o) : AscendTables(path, read, o) {}

  AscendTrace run() {
    check_size();
    Db db = Db::open(path_);
    db_ = &db;
    const char* host_table = this->host_table(db);
    Timeline& tl = out_.timeline;
    tl.source_format = "ascend";
    tl.inputs.push_back(path_);
    tl.ranks.push_back(base_name(path_));
    out_.side.device_label = "NPU";
    init_categories();
    read_strings(db);
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
    add_summary_facts(tl.counters, tl.facts);
    db_ = nullptr;
    return std::move(out_);
  }

 private:
  Symbols& symbols() override { return out_.timeline.symbols; }
  uint32_t new_track(const Track& t) override { return out_.timeline.add_track(t); }

  const Db* db_ = nullptr;
  AscendTrace out_;
  // PYTORCH_API.connectionId -> CONNECTION_IDS (id -> connectionId, 1:N) -> TASK.connectionId.
  std::vector<std::pair<uint64_t, uint64_t>> connections_;  // (id, connectionId) whose connectionId has tasks
  IdIndex linked_ids_;              // ids in connections_ -> earliest PYTORCH_API event with that id
  IdIndex op_of_connection_;        // TASK.connectionId -> the launching PYTORCH_API event
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

  // The host table's plan, with the rowid split of a two-connection read.
  HostPlan plan_host(const char* table, bool launches) {
    HostPlan plan = AscendTables::plan_host(*db_, table, launches);
    // Big tables: a second connection decodes the upper rowids on another core while this one
    // reads and places the lower ones; its rows are placed afterwards, so the events come out
    // in the same (rowid) order as one scan gives. The other connection then goes on with TASK
    // and CONNECTION_IDS while this one places its rows.
    const bool rowid_is_column = sqlite::find_column(db_->columns(table), "rowid") >= 0;
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
    const HostContext ctx = host_context(table, launches);
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

  void place_host_row(const HostContext& c, const HostRow& r) {
    Timeline& tl = out_.timeline;
    uint32_t f;
    if (!host_row_kept(c, r, tl.counters, f)) return;
    const int64_t b = r.b, e = r.e;
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
    while (s.step()) out.rows.push_back(decode_task(s));
  }

  // Asks read_host's second connection to read TASK (and COMPUTE_TASK_INFO) once its share of
  // the host table is read.
  void start_task_prefetch() {
    if (!db_->has_table("TASK")) return;
    std::vector<std::string> cols = db_->columns("TASK");
    if (pick(cols, {"startNs", "start"}).empty() || pick(cols, {"endNs", "end"}).empty()) return;  // read_tasks says so
    try {
      prefetch_.queries = task_queries(*db_);
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
      fetch_tasks(*db_, task_queries(*db_), got);
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
    for (const TaskRow& r : got.rows) {
      uint32_t track;
      FrameId f;
      if (!task_kept(r, names, tl.counters, track, f)) continue;
      uint64_t corr = 0;
      if (!(r.nulls & kNoLink)) {
        uint64_t c = static_cast<uint64_t>(r.link);
        uint32_t op = op_of_connection_.find(c);
        corr = op != U64Map::kMissing ? (kOpLink | op) : (kCannLink | c);
      }
      tl.add(track, r.b, r.e, f, EventKind::Kernel, corr);
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
    const CallChains chains = read_callchains(*db_);
    std::vector<FrameId> frames;
    for (auto [op, chain] : op_callchains_) {
      if (!chains.frames(chain, frames)) {
        tl.count("ops whose callchain is missing");
        continue;
      }
      uint32_t parent = kNone;
      for (FrameId f : frames) parent = tl.add(tl.track[op], tl.start[op], tl.end[op], f, EventKind::HostRange, 0, parent);
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
  // Rows become timeline columns and a call tree in one go: memory freed on the way is reused.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) heap_reuse_freed_memory_for_input(static_cast<uint64_t>(st.st_size));
  AscendReader r(path, read, options);
  return r.run();
}

void ascend_profile_options(const ReadOptions& read, AscendOptions& o, BuildOptions& b) {
  o.for_flamegraph = true;
  if (read.stacks == "callchain") o.callchains = true;
  else if (!read.stacks.empty() && read.stacks != "ops")
    throw UsageError("--stacks " + read.stacks + ": Ascend stacks are ops (default) or callchain");
  // The device view also joins tasks no op claims to their CANN_API call; the host view keeps
  // the seed's per-thread times, so it reads PYTORCH_API only.
  o.cann_launches = read.weight == "npu";
  b.device_weight = "npu";
  b.default_to_device = read.weight == "npu";
  b.process_level_always = false;  // seed 000's roots: the threads
}

Profile read_ascend_in_memory(const std::string& path, const ReadOptions& read) {
  AscendOptions o;
  BuildOptions b;
  ascend_profile_options(read, o, b);
  AscendTrace t = read_ascend_trace(path, read, o);
  return build_profile(std::move(t.timeline), read, b);
}

}  // namespace flamefold
