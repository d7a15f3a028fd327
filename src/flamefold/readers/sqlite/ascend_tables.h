// What the two Ascend readers share: the timeline reader (ascend.cpp: `convert`, and the
// reference the flame-graph path is tested against) and the streaming flame-graph reader
// (ascend_stream.cpp). Columns are found by name, so the torch_npu schema, the older msprof
// schemas and Insight-rewritten files (extra columns) all read the same way.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flamefold/hash.h"
#include "flamefold/readers/sqlite/ascend.h"
#include "flamefold/readers/sqlite/sqlite_db.h"
#include "flamefold/timeline.h"

namespace flamefold::ascend_detail {

using sqlite::Db;
using sqlite::TableScan;

// Correlation ids: an op's PYTORCH_API.connectionId and a CANN_API/TASK connection id live in
// different number spaces; the top bits keep them apart (and never 0).
constexpr uint64_t kOpLink = 1ull << 62;
constexpr uint64_t kCannLink = 1ull << 61;
constexpr uint32_t kExcluded = UINT32_MAX - 1;

std::string base_name(const std::string& path);
// Column name, whichever of the candidates this schema version has ("" when none).
std::string pick(const std::vector<std::string>& cols, std::initializer_list<const char*> candidates);
// Rows to reserve room for: MAX(rowid), a b-tree lookup; 0 when it cannot be asked (WITHOUT
// ROWID tables), capped so that a damaged file cannot ask for absurd amounts.
size_t reservation_rows(const Db& db, const char* table);

// id -> value for ids looked up once per row: a flat array when the ids are dense (torch_npu
// numbers connection and task ids 0, 1, 2 ...), so row-order lookups walk memory in order
// instead of missing the cache on every hashed probe; a U64Map otherwise.
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
    plan_range(lo, hi, items.size());
  }
  // n ids between lo and hi (inclusive) will be set.
  void plan_range(uint64_t lo, uint64_t hi, size_t n) {
    if (hi - lo < 4 * n + 65536) {
      base_ = lo;
      dense_.assign(hi - lo + 1, U64Map::kMissing);
    } else {
      sparse_ = U64Map(n + 16);
    }
  }
  void plan(const std::vector<uint64_t>& ids) {
    plan(ids, [](uint64_t id) { return id; });
  }
  // Ids outside the planned range (a damaged table whose rows disagree with its b-tree's ends)
  // go to the map.
  uint32_t find(uint64_t id) const {
    if (id - base_ < dense_.size()) return dense_[id - base_];
    return sparse_.find(id);
  }
  void set(uint64_t id, uint32_t v) {
    if (id - base_ < dense_.size()) dense_[id - base_] = v;
    else sparse_.set(id, v);
  }

 private:
  uint64_t base_ = 0;
  std::vector<uint32_t> dense_;
  U64Map sparse_{1024};
};

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
// The columns the TASK readers read ("" = absent in this schema, read as NULL); names_columns
// is empty when the task names cannot be looked up.
struct TaskQueries {
  std::vector<std::string> names_columns, task_columns;
  bool link_is_connection_id = false;  // task_columns[4] is TASK.connectionId
};
TaskRow decode_task(const TableScan& s);

// What a host table read reads; plan_host throws when the table lacks the needed columns.
struct HostPlan {
  std::string table, place;
  std::vector<std::string> columns;  // "" = absent, read as NULL
  bool pytorch = false, link_col = false, chain_col = false;
  int64_t min_rowid = 0, max_rowid = 0;
  int64_t split = -1;  // rowids above it may be read by a second connection; -1 = one scan
};
HostRow fetch_host_row(const TableScan& s, bool link_col, bool chain_col);

// Rows of a host table the seed leaves out, and the rules both readers apply to every row.
struct HostContext {
  const char* table;
  bool launches;
  std::string where;
  bool seed_table;
};

// PYTORCH_CALLCHAINS(id, stack -> STRING_IDS "file(line): func", stackDepth 0 = innermost): the
// Python frames above an op, by callchain id.
class CallChains {
 public:
  void add(int64_t id, int64_t depth, FrameId f) { rows_.push_back({id, {depth, f}}); }
  void done();  // after the last add
  // The frames of one chain, outermost first; false when the id has none.
  bool frames(int64_t id, std::vector<FrameId>& outermost_first) const;

 private:
  std::vector<std::pair<int64_t, std::pair<int64_t, FrameId>>> rows_;  // (id, (depth, frame))
  U64Map first_row_{16};
};

// Names -> frames, threads and streams -> tracks, the schema's columns: the state both readers
// keep while reading one DB. The reader supplies where symbols and tracks live.
class AscendTables {
 public:
  AscendTables(const std::string& path, const ReadOptions& read, const AscendOptions& o);
  virtual ~AscendTables() = default;

 protected:
  virtual Symbols& symbols() = 0;
  virtual uint32_t new_track(const Track& t) = 0;

  void check_size() const;
  // The categories every Ascend profile has, in this order (the frame table depends on it).
  void init_categories();
  // The table whose rows are the host calls (PYTORCH_API, else CANN_API or API of msprof DBs);
  // throws when the DB has none of them or no STRING_IDS.
  const char* host_table(const Db& db) const;
  void read_strings(const Db& db);
  uint32_t host_track(int64_t gtid);
  uint32_t device_track(int64_t device, int64_t stream, int64_t pid);
  // Frame of a host call name (cached per table and STRING_IDS id); kExcluded for ProfilerStep#.
  uint32_t host_frame(int64_t raw, bool& empty_name);
  FrameId unknown_frame();
  CategoryId category_of(std::string_view name);
  HostPlan plan_host(const Db& db, const char* table, bool launches);
  HostContext host_context(const char* table, bool launches) const;
  // Whether a host row is placed: counts why not (or an empty name) on `counters` otherwise.
  // Sets f to its frame.
  bool host_row_kept(const HostContext& c, const HostRow& r, std::vector<Counter>& counters, uint32_t& f);
  TaskQueries task_queries(const Db& db) const;
  // COMPUTE_TASK_INFO id -> name (StrId), for naming compute tasks.
  void read_task_names(const Db& db, const TaskQueries& q, IdIndex& names) const;
  // Whether a TASK row becomes an NPU task (counts why not); its track and frame.
  bool task_kept(const TaskRow& r, const IdIndex& names, std::vector<Counter>& counters, uint32_t& track, FrameId& f);
  // Every chain of PYTORCH_CALLCHAINS, its frames made in table order; throws when the table has
  // no id and stack columns.
  CallChains read_callchains(const Db& db);
  // The seed's summary of invalid records, in its words (shown by `flamefold info`).
  void add_summary_facts(const std::vector<Counter>& counters, std::vector<std::pair<std::string, std::string>>& facts) const;

  std::string path_;
  const ReadOptions& read_;
  const AscendOptions& o_;
  AscendCategoryRules rules_;  // o_.rules with --category-rule applied
  U64Map strings_{4096};       // STRING_IDS id -> StrId
  U64Map frames_{4096};        // host name id -> FrameId or kExcluded
  // The same for the ids torch_npu writes, type << 28 | index with small indices: a flat array
  // per type, a load per row instead of a hashed probe. direct_frame: the slot, or nullptr for
  // an id that goes to frames_.
  static constexpr uint64_t kDirectIds = 1 << 20;
  std::vector<uint32_t> direct_frames_[16];
  uint32_t* direct_frame(uint64_t id);
  U64Map tracks_{64};          // globalTid -> track
  U64Map device_tracks_{64};   // device << 32 | stream -> track
  U64Map task_frames_{256};    // (compute? << 40 | name id) -> frame
  std::vector<CategoryId> categories_;
  CategoryId task_cat_ = 0, kernel_cat_ = 0;
  uint64_t host_rows_ = 0, tasks_ = 0;
  bool launch_by_task_id_ = false;  // an msprof API table that links by globalTaskId
  bool has_pytorch_ = false;
  int64_t last_gtid_ = INT64_MIN;
  uint32_t last_track_ = 0;
};

}  // namespace flamefold::ascend_detail
