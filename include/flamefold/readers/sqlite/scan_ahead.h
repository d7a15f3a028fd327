// Table scans decoded ahead on a worker thread. Walking the b-tree and decoding records is a
// third of a profiler DB's read; the reading thread meanwhile does the rest (names, tracks, the
// builder), and rows still arrive in table order. Memory is a few batches.
//
//   RowSource<Row> rows(db, table, columns, place, decode, ahead);  // ahead: a ScanAhead or null
//   Row r; while (rows.next(r)) ...
//
// Scans meant to run one after another share a Gate: each worker waits for the previous scan to
// finish before it starts, so one core decodes while the other places. An error in a worker (a
// damaged page) is rethrown where the rows stop, as a plain scan would throw it there.

#pragma once
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "flamefold/readers/sqlite/sqlite_db.h"
#include "flamefold/work_ahead.h"

namespace flamefold::sqlite {

// Opens after the scan before it has finished (or was abandoned).
class Gate {
 public:
  void open() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return open_; });
  }
  // Opens `gate` (if any) when it goes: a worker's next scan may start however the worker ends.
  struct OpenOnExit {
    Gate* gate;
    ~OpenOnExit() {
      if (gate) gate->open();
    }
  };

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

template <class Row>
class ScanAhead {
 public:
  using Decode = std::function<Row(const TableScan&)>;

  // Opens `path` again (SQLite connections are not shared between threads) and scans `table`
  // once `before` (if any) has opened; opens `after` (if any) when done.
  ScanAhead(std::string path, std::string table, std::vector<std::string> columns, std::string place, Decode decode,
            std::shared_ptr<Gate> before = nullptr, std::shared_ptr<Gate> after = nullptr)
      : before_(before),
        ahead_(kBatches, [path = std::move(path), table = std::move(table), columns = std::move(columns),
                          place = std::move(place), decode = std::move(decode), before = std::move(before),
                          after = std::move(after)](WorkAhead<std::vector<Row>>& q) {
          Gate::OpenOnExit open_after{after.get()};
          std::vector<Row> batch;
          if (before) before->wait();
          if (!q.room(batch)) return;  // dropped while it waited
          Db db = Db::open(path);
          TableScan s = db.scan(table, columns, place);
          while (true) {
            batch.clear();
            batch.reserve(kBatchRows);
            bool more = true;
            while (batch.size() < kBatchRows && (more = s.step())) batch.push_back(decode(s));
            if (!batch.empty()) q.push(std::move(batch));
            if (!more || !q.room(batch)) return;
          }
        }) {}

  // Dropped (a reader failed or stopped early): the worker stops. One still waiting for the scan
  // before it would wait for ever, as that one is dropped after this one (it was made first) and
  // may itself be waiting for room: the `before` gate is opened, and the worker sees the stop.
  ~ScanAhead() {
    ahead_.stop();
    if (before_) before_->open();
  }
  ScanAhead(const ScanAhead&) = delete;
  ScanAhead& operator=(const ScanAhead&) = delete;

  // The next rows in table order (replacing `out`'s contents); false when none are left.
  bool next_batch(std::vector<Row>& out) { return ahead_.next(out); }

 private:
  static constexpr size_t kBatchRows = 4096, kBatches = 4;
  std::shared_ptr<Gate> before_;
  WorkAhead<std::vector<Row>> ahead_;  // last: its worker starts at once
};

// A table's rows decoded in units of consecutive rowids, by a worker thread a few units ahead of
// the reader and by the reader itself when the worker falls behind: the unit the reader needs
// next and nobody has taken yet, it decodes on its own connection. Where decoding is the slower
// side, the reader's waits become decoding instead, and neither core idles. Meant for direct
// scans (restarted on each unit's rowid range) of rowids spread over [first, last] without big
// gaps.
template <class Row>
class SharedScan {
 public:
  using Decode = typename ScanAhead<Row>::Decode;

  // db: the reader's connection; the worker opens `path` again. Opens `after` (if any) once the
  // worker takes no more units.
  SharedScan(const Db& db, std::string path, std::string table, std::vector<std::string> columns, std::string place,
             Decode decode, int64_t first_rowid, int64_t last_rowid, std::shared_ptr<Gate> after = nullptr)
      : db_(db),
        table_(std::move(table)),
        columns_(std::move(columns)),
        place_(std::move(place)),
        decode_(std::move(decode)),
        first_(first_rowid),
        units_((last_rowid - first_rowid) / kUnitRows + 1) {
    worker_ = std::thread([this, path = std::move(path), after = std::move(after)] { work(path, after.get()); });
  }
  ~SharedScan() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    changed_.notify_all();
    worker_.join();
  }
  SharedScan(const SharedScan&) = delete;
  SharedScan& operator=(const SharedScan&) = delete;

  // Units of rowids the table is read in, and how many of them the reader decoded itself.
  int64_t units() const { return units_; }
  int64_t units_read_here() const { return mine_units_; }

  // The next unit's rows (replacing `out`'s contents; possibly none); false after the last unit.
  // Rethrows an error at the unit it happened in.
  bool next_batch(std::vector<Row>& out) {
    std::unique_lock<std::mutex> lock(mu_);
    if (consumed_ == units_) return false;
    const int64_t u = consumed_;
    Slot& slot = slots_[u % kSlots];
    while (!slot.done) {
      if (claimed_ == u) {  // not taken: decoded here, straight into `out`
        ++claimed_;
        lock.unlock();
        decode_mine(u, out);
        lock.lock();
        ++consumed_;
        changed_.notify_all();
        return true;
      }
      if (claimed_ < units_ && claimed_ - consumed_ < static_cast<int64_t>(kSlots)) {
        // The worker is on this unit: the next free one is decoded here meanwhile.
        const int64_t w = claimed_++;
        Slot& later = slots_[w % kSlots];
        lock.unlock();
        std::exception_ptr error;
        try {
          decode_mine(w, later.rows);
        } catch (...) {
          error = std::current_exception();
        }
        lock.lock();
        later.error = error;
        later.done = true;
        continue;
      }
      changed_.wait(lock);
    }
    if (slot.error) std::rethrow_exception(slot.error);
    out.swap(slot.rows);
    slot.done = false;
    ++consumed_;
    changed_.notify_all();
    return true;
  }

 private:
  static constexpr int64_t kUnitRows = 4096;
  static constexpr size_t kSlots = 4;  // units decoded ahead at most
  struct Slot {
    std::vector<Row> rows;
    std::exception_ptr error;
    bool done = false;
  };

  RowidRange range(int64_t u) const {
    const int64_t lo = first_ + u * kUnitRows;
    return RowidRange{lo, u + 1 == units_ ? INT64_MAX : lo + kUnitRows - 1};
  }
  void decode_mine(int64_t u, std::vector<Row>& out) {
    // (A scan through SQLite's API cannot restart: made again for each unit.)
    if (mine_ && mine_->direct()) mine_->restart(range(u));
    else mine_ = std::make_unique<TableScan>(db_.scan(table_, columns_, place_, range(u)));
    decode_unit(*mine_, out);
    ++mine_units_;
  }
  void decode_unit(TableScan& s, std::vector<Row>& out) {
    out.clear();
    while (s.step()) out.push_back(decode_(s));
  }
  void work(const std::string& path, Gate* after) {
    Gate::OpenOnExit open_after{after};
    std::unique_ptr<Db> db;
    std::unique_ptr<TableScan> scan;
    for (;;) {
      int64_t u;
      {
        std::unique_lock<std::mutex> lock(mu_);
        changed_.wait(lock, [&] { return stop_ || claimed_ - consumed_ < static_cast<int64_t>(kSlots); });
        if (stop_ || claimed_ == units_) return;
        u = claimed_++;
      }
      Slot& slot = slots_[u % kSlots];
      std::exception_ptr error;
      try {
        if (!db) db = std::make_unique<Db>(Db::open(path));
        if (scan && scan->direct()) scan->restart(range(u));
        else scan = std::make_unique<TableScan>(db->scan(table_, columns_, place_, range(u)));
        decode_unit(*scan, slot.rows);
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        slot.error = error;
        slot.done = true;
        if (error) stop_ = true;  // the reader stops at this unit
      }
      changed_.notify_all();
      if (error) return;
    }
  }

  const Db& db_;
  const std::string table_;
  const std::vector<std::string> columns_;
  const std::string place_;
  const Decode decode_;
  const int64_t first_, units_;
  std::unique_ptr<TableScan> mine_;  // the reader's scan, made when it first decodes a unit
  int64_t mine_units_ = 0;
  std::mutex mu_;
  std::condition_variable changed_;
  int64_t claimed_ = 0, consumed_ = 0;  // units taken by either side; units the reader has had
  Slot slots_[kSlots];
  bool stop_ = false;
  std::thread worker_;
};

// Rows of one table in order: from a ScanAhead or a SharedScan when one was started for it,
// else from a scan on this thread's connection.
template <class Row>
class RowSource {
 public:
  RowSource(const Db& db, const std::string& table, const std::vector<std::string>& columns, const std::string& place,
            typename ScanAhead<Row>::Decode decode, std::unique_ptr<ScanAhead<Row>> ahead,
            std::unique_ptr<SharedScan<Row>> shared = nullptr)
      : decode_(std::move(decode)), ahead_(std::move(ahead)), shared_(std::move(shared)) {
    if (!ahead_ && !shared_) scan_ = std::make_unique<TableScan>(db.scan(table, columns, place));
  }
  bool next(Row& r) {
    if (scan_) {
      if (!scan_->step()) return false;
      r = decode_(*scan_);
      return true;
    }
    if (shared_) return batches_.next(r, [this](std::vector<Row>& batch) { return shared_->next_batch(batch); });
    return batches_.next(r, [this](std::vector<Row>& batch) { return ahead_->next_batch(batch); });
  }

 private:
  typename ScanAhead<Row>::Decode decode_;
  std::unique_ptr<ScanAhead<Row>> ahead_;
  std::unique_ptr<SharedScan<Row>> shared_;
  std::unique_ptr<TableScan> scan_;
  BatchCursor<Row> batches_;
};

}  // namespace flamefold::sqlite
