// Ascend profiler DB -> Profile for flame graphs, streamed: rows go from the table scan straight
// into a TraceBuilder, so peak memory follows the call tree, not the number of rows (a 10 GB
// MindStudio DB reads like a 100 MB one). The result is the profile build_profile() makes from
// the timeline reader's events (ascend.cpp); the tests hold the two to that.
//
// The one step that needs a whole table before it can decide: which row launched an NPU task.
// A task's connection can be reached from several PYTORCH_API rows (the op's Enqueue and the
// queue thread's Dequeue, a forward op and its backward); the earliest one launched it. Rows with
// a link are therefore added as provisional launches, and once the tables are read the choice is
// made by sort-merge joins in bounded memory (spools):
//   candidates (link id, start, row)  x  CONNECTION_IDS (id, connectionId)   by id
//   -> claims (connectionId, start, row)  x  TASK rows (connectionId, row)   by connectionId
// The first claim of each connection is confirmed as its launch; each task then names it.
#include <algorithm>

#include "ascend_tables.h"
#include "flamefold/timeline/trace_builder.h"
#include "flamefold/errors.h"
#include "flamefold/heap.h"
#include "flamefold/readers/sqlite/ascend.h"
#include "flamefold/readers/sqlite/scan_ahead.h"
#include "flamefold/spool.h"

namespace flamefold {

namespace {

using namespace ascend_detail;

// Host tables with at least this many rows are decoded on a second thread.
constexpr int64_t kScanAheadRows = 50000;
// A host table whose rowids span more than this is not cut in units of rowids (a few rows
// spread over a huge span would make most units empty).
constexpr int64_t kSharedSpan = int64_t(1) << 32;

struct Candidate {  // a PYTORCH_API row with a link
  uint64_t id;
  int64_t start;
  uint32_t event, pad;  // among equal starts, the first row wins
};
struct ByIdStartEvent {
  static uint64_t key(const Candidate& c) { return c.id; }
  bool operator()(const Candidate& a, const Candidate& b) const {
    if (a.id != b.id) return a.id < b.id;
    if (a.start != b.start) return a.start < b.start;
    return a.event < b.event;
  }
};
struct Connection {  // a CONNECTION_IDS row
  uint64_t id, connection, position;
};
struct ByIdPosition {
  static uint64_t key(const Connection& c) { return c.id; }
  bool operator()(const Connection& a, const Connection& b) const {
    return a.id != b.id ? a.id < b.id : a.position < b.position;
  }
};
struct Claim {  // the earliest row with an id, for a connection that id reaches
  uint64_t connection;
  int64_t start;
  uint64_t position;  // of the CONNECTION_IDS row: among equal starts, the first one wins
  uint32_t event, pad;
};
struct ByConnectionStart {
  static uint64_t key(const Claim& c) { return c.connection; }
  bool operator()(const Claim& a, const Claim& b) const {
    if (a.connection != b.connection) return a.connection < b.connection;
    if (a.start != b.start) return a.start < b.start;
    return a.position < b.position;
  }
};
struct LinkedTask {  // a TASK row with a connectionId, waiting for its launch
  uint64_t connection, row;
  int64_t start, end;
  uint32_t track;
  FrameId frame;
  uint8_t kept;  // an NPU task (untimed rows only take part in the launch choice)
};
struct ByConnectionRow {
  static uint64_t key(const LinkedTask& t) { return t.connection; }
  bool operator()(const LinkedTask& a, const LinkedTask& b) const {
    return a.connection != b.connection ? a.connection < b.connection : a.row < b.row;
  }
};
struct ChainedOp {  // an op whose callchain frames are added once the tasks are in
  int64_t start, end, chain;
  uint32_t event, track;
};
struct ByEvent {
  bool operator()(const ChainedOp& a, const ChainedOp& b) const { return a.event < b.event; }
};

class AscendStream : public AscendTables {
 public:
  AscendStream(const std::string& path, const ReadOptions& read, const AscendOptions& o, const BuildOptions& b)
      : AscendTables(path, read, o),
        spool_bytes_(read.spool_bytes ? read.spool_bytes / 4 : kSpoolBytes / 4),
        builder_(read, b, read.spool_bytes ? read.spool_bytes : kSpoolBytes),
        candidates_(spool_bytes_),
        chained_ops_(spool_bytes_) {}

  Profile run() {
    check_size();
    Db db = Db::open(path_);
    const char* table = host_table(db);
    builder_.source_format = "ascend";
    builder_.inputs.push_back(path_);
    builder_.ranks.push_back(base_name(path_));
    init_categories();
    read_strings(db);
    const bool pytorch = std::string_view(table) == "PYTORCH_API";
    has_pytorch_ = pytorch;
    if (pytorch && o_.callchains) read_chain_lengths(db);
    // What will be read, in order; the big tables are then decoded ahead, one after another.
    const HostPlan host = plan_host(db, table, /*launches=*/!pytorch);
    std::unique_ptr<HostPlan> cann;
    if (pytorch && o_.cann_launches) {
      const char* t = db.has_table("CANN_API") ? "CANN_API" : db.has_table("API") ? "API" : nullptr;
      if (t) cann = std::make_unique<HostPlan>(plan_host(db, t, true));
    }
    TaskPlan tasks = plan_tasks(db);
    const bool ahead = read_.threads_to_use != 1 && host.max_rowid >= kScanAheadRows;
    std::shared_ptr<sqlite::Gate> gate;  // opens when the previous scan ahead has finished
    auto host_rows = host_source(db, host, ahead, gate);
    auto cann_rows = cann ? host_source(db, *cann, ahead, gate) : nullptr;
    // The device tables are read while the host events nest on the second core (unless
    // callchain frames come last): decoded ahead on a third thread, they would only take that
    // core's time from nesting, and this thread would wait for them.
    const bool device_ahead = ahead && (o_.callchains || !builder_.nests_aside());
    auto task_rows = tasks.read ? task_source(db, tasks, device_ahead, gate) : nullptr;
    auto connection_rows = tasks.join ? connection_source(db, device_ahead, gate) : nullptr;

    read_host(*host_rows, host, /*launches=*/!pytorch);
    if (cann_rows) read_host(*cann_rows, *cann, true);
    if (!o_.callchains) builder_.host_events_done();  // callchain frames are host events added last
    if (tasks.error) std::rethrow_exception(tasks.error);
    if (task_rows) read_tasks(db, tasks, *task_rows, connection_rows.get());
    if (o_.callchains) add_callchains(db);
    add_summary_facts(builder_.counters, builder_.facts);
    return builder_.finish();
  }

 private:
  Symbols& symbols() override { return builder_.symbols(); }
  uint32_t new_track(const Track& t) override { return builder_.add_track(t); }

  struct TaskPlan {
    bool read = false, join = false;
    TaskQueries queries;
    int64_t rows = 0;
    std::exception_ptr error;  // a TASK table without times: reported after the host rows, as before
  };

  const size_t spool_bytes_;  // of each of the reader's own spools
  TraceBuilder builder_;
  Spool<Candidate, ByIdStartEvent> candidates_;
  Spool<ChainedOp, ByEvent> chained_ops_;
  U64Map chain_length_{1024};  // PYTORCH_CALLCHAINS id -> frames (distinct stacks: few)
  bool have_chains_ = false;


  // A scan ahead for a table that is big enough, chained after the previous one.
  template <class Row>
  std::unique_ptr<sqlite::ScanAhead<Row>> ahead_of(bool ahead, int64_t rows, const std::string& table,
                                                   const std::vector<std::string>& columns, const std::string& place,
                                                   typename sqlite::ScanAhead<Row>::Decode decode,
                                                   std::shared_ptr<sqlite::Gate>& gate) {
    if (!ahead || rows < kScanAheadRows / 4) return nullptr;
    auto next = std::make_shared<sqlite::Gate>();
    auto a = std::make_unique<sqlite::ScanAhead<Row>>(path_, table, columns, place, std::move(decode), gate, next);
    gate = next;
    return a;
  }

  std::unique_ptr<sqlite::RowSource<HostRow>> host_source(const Db& db, const HostPlan& plan, bool ahead,
                                                          std::shared_ptr<sqlite::Gate>& gate) {
    auto decode = [link = plan.link_col, chain = plan.chain_col](const TableScan& t) { return fetch_host_row(t, link, chain); };
    // The first table read, pages read directly, rowids without big gaps: decoded by both
    // threads (the host rows are most of the read, and decoding them is its slower side).
    const int64_t span = plan.max_rowid - plan.min_rowid;
    if (ahead && !gate && span >= kScanAheadRows && span < kSharedSpan &&
        db.scan(plan.table, plan.columns, plan.place, sqlite::RowidRange{1, 0}).direct()) {
      auto next = std::make_shared<sqlite::Gate>();
      auto shared = std::make_unique<sqlite::SharedScan<HostRow>>(db, path_, plan.table, plan.columns, plan.place, decode,
                                                                  plan.min_rowid, plan.max_rowid, next);
      gate = next;
      return std::make_unique<sqlite::RowSource<HostRow>>(db, plan.table, plan.columns, plan.place, decode, nullptr,
                                                          std::move(shared));
    }
    auto a = ahead_of<HostRow>(ahead, plan.max_rowid, plan.table, plan.columns, plan.place, decode, gate);
    return std::make_unique<sqlite::RowSource<HostRow>>(db, plan.table, plan.columns, plan.place, decode, std::move(a));
  }

  TaskPlan plan_tasks(const Db& db) {
    TaskPlan plan;
    if (!db.has_table("TASK")) return plan;
    plan.read = true;
    try {
      plan.queries = task_queries(db);
    } catch (const InputError&) {
      plan.read = false;
      plan.error = std::current_exception();
      return plan;
    }
    plan.join = can_join(db) && plan.queries.link_is_connection_id;
    plan.rows = static_cast<int64_t>(reservation_rows(db, "TASK"));
    return plan;
  }

  std::unique_ptr<sqlite::RowSource<TaskRow>> task_source(const Db& db, const TaskPlan& plan, bool ahead,
                                                          std::shared_ptr<sqlite::Gate>& gate) {
    auto decode = [](const TableScan& t) { return decode_task(t); };
    auto a = ahead_of<TaskRow>(ahead, plan.rows, "TASK", plan.queries.task_columns, "table TASK", decode, gate);
    return std::make_unique<sqlite::RowSource<TaskRow>>(db, "TASK", plan.queries.task_columns, "table TASK", decode, std::move(a));
  }

  // CONNECTION_IDS rows as (id, connectionId, NULL-ness): position is counted by the reader.
  struct ConnectionRow {
    int64_t id, connection;
    bool null;
  };
  std::unique_ptr<sqlite::RowSource<ConnectionRow>> connection_source(const Db& db, bool ahead,
                                                                      std::shared_ptr<sqlite::Gate>& gate) {
    const std::vector<std::string> cols{"id", "connectionId"};
    auto decode = [](const TableScan& t) {
      return ConnectionRow{t.i64_or(0, 0), t.i64_or(1, 0), t.is_null(0) || t.is_null(1)};
    };
    auto a = ahead_of<ConnectionRow>(ahead, static_cast<int64_t>(reservation_rows(db, "CONNECTION_IDS")), "CONNECTION_IDS",
                                     cols, "table CONNECTION_IDS", decode, gate);
    return std::make_unique<sqlite::RowSource<ConnectionRow>>(db, "CONNECTION_IDS", cols, "table CONNECTION_IDS", decode,
                                                             std::move(a));
  }

  // How many frames each callchain has: an op with one sits that deep below its frames.
  void read_chain_lengths(const Db& db) {
    if (!db.has_table("PYTORCH_CALLCHAINS")) return;  // add_callchains says so
    std::vector<std::string> cols = db.columns("PYTORCH_CALLCHAINS");
    if (sqlite::find_column(cols, "id") < 0 || sqlite::find_column(cols, "stack") < 0)
      throw InputError(path_, "table PYTORCH_CALLCHAINS", "has no id and stack columns");
    TableScan s = db.scan("PYTORCH_CALLCHAINS", {"id", "stack"}, "table PYTORCH_CALLCHAINS");
    while (s.step()) {
      if (s.is_null(0) || s.is_null(1)) continue;
      uint64_t id = static_cast<uint64_t>(s.i64(0));
      uint32_t n = chain_length_.find(id);
      chain_length_.set(id, n == U64Map::kMissing ? 1 : n + 1);
    }
    have_chains_ = true;
  }

  void read_host(sqlite::RowSource<HostRow>& rows, const HostPlan& plan, bool launches) {
    const HostContext ctx = host_context(plan.table.c_str(), launches);
    // The callchain frames are python frames: when --categories leaves them out, an op's
    // depth below them is 0, as nest finds no hinted parent then.
    const bool chains_kept = have_chains_ && builder_.keeps_category(categories_[2]);
    HostRow r;
    while (rows.next(r)) {
      uint32_t f;
      if (!host_row_kept(ctx, r, builder_.counters, f)) continue;
      const uint32_t track = host_track(r.gtid);
      EventKind kind = EventKind::HostRange;
      uint64_t corr = 0;
      bool provisional = false;
      if (r.link != INT64_MIN) {
        kind = EventKind::Launch;
        if (launches) {
          corr = kCannLink | static_cast<uint64_t>(r.link);
        } else {
          // A launch if it turns out the earliest row of a connection with tasks (read_tasks).
          const uint32_t event = builder_.events();
          corr = kOpLink | event;
          provisional = true;
          candidates_.push(Candidate{static_cast<uint64_t>(r.link), r.b, event, 0});
        }
      }
      uint16_t depth = 0;
      if (r.callchain != INT64_MIN && have_chains_) {
        uint32_t n = chain_length_.find(static_cast<uint64_t>(r.callchain));
        if (n != U64Map::kMissing && chains_kept) depth = static_cast<uint16_t>(std::min<uint32_t>(n, UINT16_MAX));
        chained_ops_.push(ChainedOp{r.b, r.e, r.callchain, builder_.events(), track});
      }
      builder_.add(track, r.b, r.e, f, kind, corr, depth, provisional);
      ++host_rows_;
    }
  }

  // Whether the launch choice can be made: the tables and columns read_connections needs.
  bool can_join(const Db& db) const {
    if (!has_pytorch_ || !db.has_table("CONNECTION_IDS")) return false;
    std::vector<std::string> cols = db.columns("CONNECTION_IDS");
    if (sqlite::find_column(cols, "id") < 0 || sqlite::find_column(cols, "connectionId") < 0) return false;
    return sqlite::find_column(db.columns("TASK"), "connectionId") >= 0;
  }

  void read_tasks(const Db& db, const TaskPlan& plan, sqlite::RowSource<TaskRow>& rows,
                  sqlite::RowSource<ConnectionRow>* connection_rows) {
    IdIndex names;  // COMPUTE_TASK_INFO id -> name
    read_task_names(db, plan.queries, names);
    Spool<LinkedTask, ByConnectionRow> linked(spool_bytes_);
    TaskRow r;
    for (uint64_t row = 0; rows.next(r); ++row) {
      uint32_t track = 0;
      FrameId f = 0;
      const bool kept = task_kept(r, names, builder_.counters, track, f);
      if (kept) ++tasks_;
      const bool has_link = !(r.nulls & kNoLink);
      if (plan.join && has_link) {  // its launch is known once every task is read
        linked.push(LinkedTask{static_cast<uint64_t>(r.link), row, r.b, r.e, track, f, kept});
        continue;
      }
      if (kept)
        builder_.add(track, r.b, r.e, f, EventKind::Kernel, has_link ? kCannLink | static_cast<uint64_t>(r.link) : 0, 0, false,
                     row);
    }
    if (plan.join) place_linked_tasks(*connection_rows, linked);
  }

  // The sort-merge joins described at the top of the file.
  void place_linked_tasks(sqlite::RowSource<ConnectionRow>& rows, Spool<LinkedTask, ByConnectionRow>& linked) {
    Spool<Connection, ByIdPosition> connections(spool_bytes_);
    ConnectionRow row;
    for (uint64_t pos = 0; rows.next(row); ++pos)
      if (!row.null) connections.push(Connection{static_cast<uint64_t>(row.id), static_cast<uint64_t>(row.connection), pos});
    Spool<Claim, ByConnectionStart> claims(spool_bytes_);
    {
      connections.finish();
      candidates_.finish();
      Candidate cand;
      bool have = candidates_.next(cand);
      Candidate first{};  // the earliest candidate of the current id
      bool have_first = false;
      Connection c;
      while (connections.next(c)) {
        if (!have_first || first.id != c.id) {
          have_first = false;
          while (have && cand.id < c.id) have = candidates_.next(cand);
          if (have && cand.id == c.id) {
            first = cand;
            have_first = true;
            while (have && cand.id == c.id) have = candidates_.next(cand);
          }
        }
        if (have_first) claims.push(Claim{c.connection, first.start, c.position, first.event, 0});
      }
    }
    claims.finish();
    linked.finish();
    Claim claim;
    bool have_claim = claims.next(claim);
    LinkedTask t;
    uint64_t group = 0;
    bool in_group = false, launched = false;
    uint32_t launch = 0;
    while (linked.next(t)) {
      if (!in_group || t.connection != group) {
        in_group = true;
        group = t.connection;
        while (have_claim && claim.connection < group) have_claim = claims.next(claim);
        launched = have_claim && claim.connection == group;
        if (launched) {
          launch = claim.event;
          builder_.confirm_launch(launch);
        }
      }
      if (!t.kept) continue;
      builder_.add(t.track, t.start, t.end, t.frame, EventKind::Kernel, launched ? kOpLink | launch : kCannLink | group, 0,
                   false, t.row);
    }
  }

  // Each op's callchain frames, outermost first, as events over its interval (depth 0, 1 ...
  // above it), added after the tasks as the timeline reader adds them.
  void add_callchains(const Db& db) {
    if (!db.has_table("PYTORCH_CALLCHAINS")) {
      builder_.count("--stacks callchain: no PYTORCH_CALLCHAINS table (the profile was taken without with_stack)");
      return;
    }
    const CallChains chains = read_callchains(db);
    std::vector<FrameId> frames;
    chained_ops_.finish();
    ChainedOp op;
    while (chained_ops_.next(op)) {
      if (!chains.frames(op.chain, frames)) {
        builder_.count("ops whose callchain is missing");
        continue;
      }
      uint16_t depth = 0;
      for (FrameId f : frames) builder_.add(op.track, op.start, op.end, f, EventKind::HostRange, 0, depth++);
    }
  }
};

}  // namespace

Profile read_ascend(const std::string& path, const ReadOptions& read) {
  AscendOptions o;
  BuildOptions b;
  ascend_profile_options(read, o, b);
  // Spools and batches come and go all through the read: reused from the heap, they are not
  // faulted in afresh each time (~15,000 page faults, a third of the time), for a few MB.
  heap_reuse_freed_memory();
  AscendStream r(path, read, o, b);
  return r.run();
}

}  // namespace flamefold
