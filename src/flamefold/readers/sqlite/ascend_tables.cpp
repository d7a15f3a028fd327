#include "ascend_tables.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>

#include "flamefold/errors.h"

namespace flamefold::ascend_detail {

namespace {

// SQLite's LIKE 'ProfilerStep#%' (ASCII case-insensitive prefix).
bool is_profiler_step(std::string_view name) {
  static constexpr std::string_view kPrefix = "profilerstep#";
  if (name.size() < kPrefix.size()) return false;
  for (size_t i = 0; i < kPrefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(name[i])) != kPrefix[i]) return false;
  return true;
}

}  // namespace

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string pick(const std::vector<std::string>& cols, std::initializer_list<const char*> candidates) {
  for (const char* c : candidates)
    if (sqlite::find_column(cols, c) >= 0) return c;
  return "";
}

size_t reservation_rows(const Db& db, const char* table) {
  try {
    return static_cast<size_t>(std::clamp<int64_t>(
        db.scalar(std::string("SELECT MAX(rowid) FROM ") + table, std::string("table ") + table), 0, int64_t(1) << 26));
  } catch (const InputError&) {
    return 0;
  }
}

TaskRow decode_task(const TableScan& s) {
  TaskRow r{};
  if (s.is_null(4)) r.nulls |= kNoLink;
  else r.link = s.i64(4);
  if (s.is_null(0) || s.is_null(1)) {
    r.nulls |= kNoTime;  // left out; its link still counts for the launch choice
    return r;
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
  return r;
}

HostRow fetch_host_row(const TableScan& s, bool link_col, bool chain_col) {
  return HostRow{s.time_ns(0),
                 s.time_ns(1),
                 s.i64_or(2, INT64_MIN),
                 s.i64_or(3, INT64_MIN),
                 link_col ? s.i64_or(4, INT64_MIN) : INT64_MIN,
                 chain_col && !s.is_null(5) ? s.i64(5) : INT64_MIN};
}

AscendTables::AscendTables(const std::string& path, const ReadOptions& read, const AscendOptions& o)
    : path_(path), read_(read), o_(o), rules_(o.rules) {
  apply_category_rules(rules_, read.category_rules);
}

void AscendTables::check_size() const {
  struct stat st;
  if (::stat(path_.c_str(), &st) != 0) return;  // Db::open reports it
  uint64_t cap = read_.max_input_bytes ? read_.max_input_bytes : kAscendDefaultMaxBytes;
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > cap)
    throw InputError(path_, "",
                     "DB file exceeds the size limit (" + std::to_string(st.st_size) + " > " + std::to_string(cap) +
                         " bytes; raise it with --max-input-bytes)");
}

void AscendTables::init_categories() {
  Symbols& sym = symbols();
  for (std::string_view c : {"cann", "python_framework", "python", "unknown"}) categories_.push_back(sym.category(c));
  task_cat_ = sym.category("npu_task");
  kernel_cat_ = sym.category(category::kKernel);
}

const char* AscendTables::host_table(const Db& db) const {
  if (!db.has_table("STRING_IDS")) throw InputError(path_, "", "DB is missing required tables: STRING_IDS");
  const char* table = db.has_table("PYTORCH_API") ? "PYTORCH_API"
                      : db.has_table("CANN_API")  ? "CANN_API"
                      : db.has_table("API")       ? "API"
                                                  : nullptr;
  if (!table) throw InputError(path_, "", "DB is missing required tables: PYTORCH_API (nor CANN_API/API of an msprof DB)");
  return table;
}

void AscendTables::read_strings(const Db& db) {
  std::vector<std::string> cols = db.columns("STRING_IDS");
  if (sqlite::find_column(cols, "id") < 0 || sqlite::find_column(cols, "value") < 0)
    throw InputError(path_, "table STRING_IDS", "has no id and value columns");
  TableScan s = db.scan("STRING_IDS", {"id", "value"}, "table STRING_IDS");
  StringTable& st = symbols().strings;
  while (s.step())
    if (!s.is_null(0) && !s.is_null(1)) strings_.set(static_cast<uint64_t>(s.i64(0)), st.intern(s.text(1)));
}

uint32_t AscendTables::host_track(int64_t gtid) {
  if (gtid == last_gtid_) return last_track_;
  uint32_t t = tracks_.find(static_cast<uint64_t>(gtid));
  last_gtid_ = gtid;
  if (t != U64Map::kMissing) return last_track_ = t;
  Track tr;
  tr.pid = static_cast<int64_t>(static_cast<uint64_t>(gtid) >> 32);
  tr.tid = gtid & 0xFFFFFFFF;
  tr.name = symbols().strings.intern("thread_" + std::to_string(tr.tid) + " (globalTid: " + std::to_string(gtid) + ")");
  t = new_track(tr);
  tracks_.set(static_cast<uint64_t>(gtid), t);
  return last_track_ = t;
}

uint32_t AscendTables::device_track(int64_t device, int64_t stream, int64_t pid) {
  uint64_t dkey = (static_cast<uint64_t>(device & 0xFFFFFFFF) << 32) | static_cast<uint64_t>(stream & 0xFFFFFFFF);
  uint32_t track = device_tracks_.find(dkey);
  if (track != U64Map::kMissing) return track;
  Track t;
  t.device = true;
  t.device_index = static_cast<int32_t>(device);
  t.tid = stream;
  t.pid = pid;
  t.name = symbols().strings.intern("stream " + std::to_string(stream));
  track = new_track(t);
  device_tracks_.set(dkey, track);
  return track;
}

uint32_t AscendTables::host_frame(int64_t raw, bool& empty_name) {
  empty_name = false;
  if (raw == INT64_MIN) {
    empty_name = true;
    return unknown_frame();
  }
  // Every host table names its rows from STRING_IDS: an id is the same frame in each.
  const uint64_t key = static_cast<uint64_t>(raw);
  uint32_t* direct = direct_frame(key);
  uint32_t f = direct ? *direct : frames_.find(key);
  if (f == U64Map::kMissing) {
    StrId name = strings_.find(key);
    Symbols& sym = symbols();
    if (name == U64Map::kMissing || sym.strings[name].empty()) f = kExcluded - 1;  // empty: no STRING_IDS value
    else if (is_profiler_step(sym.strings[name])) f = kExcluded;
    else f = sym.frame(name, 0, 0, category_of(sym.strings[name]));
    if (direct) *direct = f;
    else frames_.set(key, f);
  }
  if (f == kExcluded - 1) {
    empty_name = true;
    return unknown_frame();
  }
  return f;
}

uint32_t* AscendTables::direct_frame(uint64_t id) {
  if (id >> 32) return nullptr;
  std::vector<uint32_t>& d = direct_frames_[id >> 28];
  const uint64_t i = id & 0x0FFFFFFF;
  if (i >= d.size()) {
    if (i >= kDirectIds) return nullptr;
    d.resize(std::min<uint64_t>(kDirectIds, std::max<uint64_t>(i + 1, 2 * d.size())), U64Map::kMissing);
  }
  return &d[i];
}

FrameId AscendTables::unknown_frame() { return symbols().frame("unknown", {}, 0, categories_[3]); }

CategoryId AscendTables::category_of(std::string_view name) {
  std::string_view c = classify_ascend_frame(name, rules_);
  if (c == "cann") return categories_[0];
  if (c == "python_framework") return categories_[1];
  if (c == "python") return categories_[2];
  return categories_[3];
}

HostPlan AscendTables::plan_host(const Db& db, const char* table, bool launches) {
  std::vector<std::string> cols = db.columns(table);
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
  plan.max_rowid = std::max<int64_t>(0, db.scalar(std::string("SELECT MAX(rowid) FROM ") + table, plan.place));
  plan.min_rowid = db.scalar(std::string("SELECT IFNULL(MIN(rowid), 0) FROM ") + table, plan.place);
  return plan;
}

HostContext AscendTables::host_context(const char* table, bool launches) const {
  // The seed's summary line counts the rows of the main host table only.
  return HostContext{table, launches, std::string(" (") + table + ")", !(launches && has_pytorch_)};
}

bool AscendTables::host_row_kept(const HostContext& c, const HostRow& r, std::vector<Counter>& counters, uint32_t& f) {
  const int64_t b = r.b, e = r.e;
  if (b == INT64_MIN || e == INT64_MIN) {
    add_to_counters(counters, "rows without a start or end time (left out)" + c.where, 1);
    return false;
  }
  if (r.gtid == INT64_MIN) {
    add_to_counters(counters, "rows without a thread (left out)" + c.where, 1);
    return false;
  }
  bool empty_name = false;
  f = host_frame(r.name, empty_name);
  if (f == kExcluded) return false;  // ProfilerStep# ranges, as the seed leaves them out
  if (e <= b) {
    add_to_counters(counters,
                    c.seed_table ? std::string("non-positive durations skipped") : "non-positive durations skipped" + c.where, 1);
    return false;
  }
  if (empty_name)
    add_to_counters(counters,
                    c.seed_table ? std::string("empty API names replaced with unknown")
                                 : "empty API names replaced with unknown" + c.where,
                    1);
  return true;
}

TaskQueries AscendTables::task_queries(const Db& db) const {
  TaskQueries q;
  std::vector<std::string> cols = db.columns("TASK");
  std::string start = pick(cols, {"startNs", "start"}), end = pick(cols, {"endNs", "end"});
  if (start.empty() || end.empty()) throw InputError(path_, "table TASK", "has no startNs/endNs (or start/end) columns");
  // The id that names a task in COMPUTE_TASK_INFO: globalTaskId, or correlationId in the oldest schema.
  std::string task_id = pick(cols, {"globalTaskId", "correlationId"});
  if (db.has_table("COMPUTE_TASK_INFO") && !task_id.empty()) {
    std::vector<std::string> ccols = db.columns("COMPUTE_TASK_INFO");
    std::string cid = sqlite::find_column(ccols, task_id) >= 0 ? task_id : pick(ccols, {"globalTaskId", "correlationId"});
    if (!cid.empty() && sqlite::find_column(ccols, "name") >= 0) q.names_columns = {cid, "name"};
  }
  std::string link = launch_by_task_id_ ? task_id : pick(cols, {"connectionId"});
  q.link_is_connection_id = link == "connectionId";
  q.task_columns = {start, end, pick(cols, {"deviceId"}), pick(cols, {"streamId"}), link, task_id, pick(cols, {"taskType"}),
                    pick(cols, {"globalPid"})};
  return q;
}

void AscendTables::read_task_names(const Db& db, const TaskQueries& q, IdIndex& names) const {
  if (q.names_columns.empty()) return;
  // Two passes: the ids alone first, to size the index (dense when the ids are), then the names;
  // the table's (id, name) pairs are never held (they grow with the tasks). The first pass reads
  // only the id, usually the INTEGER PRIMARY KEY: the rowid, no record decoded. (SQLite's own
  // COUNT(*) would map every page of the table and keep them: +13 MB for 86k tasks.)
  struct Range {
    uint64_t lo = UINT64_MAX, hi = 0, n = 0;
  } ids;
  const char* place = "table COMPUTE_TASK_INFO";
  {
    TableScan c = db.scan("COMPUTE_TASK_INFO", {q.names_columns[0]}, place);
    while (c.step()) {
      if (c.is_null(0)) continue;
      uint64_t id = static_cast<uint64_t>(c.i64(0));
      ids.lo = std::min(ids.lo, id);
      ids.hi = std::max(ids.hi, id);
      ++ids.n;
    }
  }
  if (!ids.n) return;
  names.plan_range(ids.lo, ids.hi, ids.n);
  TableScan c = db.scan("COMPUTE_TASK_INFO", q.names_columns, place);
  while (c.step()) {
    if (c.is_null(0) || c.is_null(1)) continue;
    StrId n = strings_.find(static_cast<uint64_t>(c.i64(1)));
    if (n != U64Map::kMissing) names.set(static_cast<uint64_t>(c.i64(0)), n);
  }
}

bool AscendTables::task_kept(const TaskRow& r, const IdIndex& names, std::vector<Counter>& counters, uint32_t& track,
                             FrameId& f) {
  if (r.nulls & kNoTime) {
    add_to_counters(counters, "NPU tasks without a start or end time (left out)", 1);
    return false;
  }
  if (r.e < r.b) {
    add_to_counters(counters, "NPU tasks ending before they start (left out)", 1);
    return false;
  }
  track = device_track(r.device, r.stream, r.pid);
  // Name: the compute task's op name, else the task type (EVENT_RECORD, MEMCPY_ASYNC ...).
  Symbols& sym = symbols();
  StrId name = (r.nulls & kNoTaskId) ? U64Map::kMissing : names.find(static_cast<uint64_t>(r.task_id));
  bool compute = name != U64Map::kMissing;
  if (!compute && !(r.nulls & kNoTaskType)) name = strings_.find(static_cast<uint64_t>(r.task_type));
  if (name == U64Map::kMissing) name = sym.strings.intern("task");
  uint64_t fkey = (compute ? 1ull << 40 : 0) | name;
  f = task_frames_.find(fkey);
  if (f == U64Map::kMissing) {
    f = sym.frame(name, 0, 0, compute ? kernel_cat_ : task_cat_);
    task_frames_.set(fkey, f);
  }
  return true;
}

void CallChains::done() {
  std::sort(rows_.begin(), rows_.end());
  first_row_ = U64Map(rows_.size() + 16);
  for (size_t i = 0; i < rows_.size(); ++i)
    if (i == 0 || rows_[i].first != rows_[i - 1].first) first_row_.set(static_cast<uint64_t>(rows_[i].first), static_cast<uint32_t>(i));
}

bool CallChains::frames(int64_t id, std::vector<FrameId>& out) const {
  out.clear();
  uint32_t first = first_row_.find(static_cast<uint64_t>(id));
  if (first == U64Map::kMissing) return false;
  size_t last = first;
  while (last + 1 < rows_.size() && rows_[last + 1].first == rows_[first].first) ++last;
  for (size_t k = last + 1; k-- > first;) out.push_back(rows_[k].second.second);  // deepest (outermost) first
  return true;
}

CallChains AscendTables::read_callchains(const Db& db) {
  std::vector<std::string> cols = db.columns("PYTORCH_CALLCHAINS");
  if (sqlite::find_column(cols, "id") < 0 || sqlite::find_column(cols, "stack") < 0)
    throw InputError(path_, "table PYTORCH_CALLCHAINS", "has no id and stack columns");
  Symbols& sym = symbols();
  const CategoryId python = categories_[2];
  CallChains chains;
  TableScan s = db.scan("PYTORCH_CALLCHAINS", {"id", "stackDepth", "stack"}, "table PYTORCH_CALLCHAINS");
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
    chains.add(s.i64(0), s.is_null(1) ? 0 : s.i64(1), f);
  }
  chains.done();
  return chains;
}

void AscendTables::add_summary_facts(const std::vector<Counter>& counters,
                                     std::vector<std::pair<std::string, std::string>>& facts) const {
  uint64_t skipped = 0, empty = 0;
  for (const Counter& c : counters) {
    if (c.what == "non-positive durations skipped") skipped = c.count;
    if (c.what == "empty API names replaced with unknown") empty = c.count;
  }
  if (skipped || empty)
    facts.emplace_back("invalid records", std::to_string(skipped) + " non-positive durations skipped, " +
                                              std::to_string(empty) + " empty API names replaced with unknown");
  facts.emplace_back("host calls", std::to_string(host_rows_));
  facts.emplace_back("NPU tasks", std::to_string(tasks_));
}

}  // namespace flamefold::ascend_detail
