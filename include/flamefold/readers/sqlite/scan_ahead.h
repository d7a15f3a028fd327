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
          // The next scan may start when this one ends, however it ends.
          struct OpenAfter {
            Gate* gate;
            ~OpenAfter() {
              if (gate) gate->open();
            }
          } open_after{after.get()};
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

// Rows of one table in order: from a ScanAhead when one was started for it, else from a scan on
// this thread's connection.
template <class Row>
class RowSource {
 public:
  RowSource(const Db& db, const std::string& table, const std::vector<std::string>& columns, const std::string& place,
            typename ScanAhead<Row>::Decode decode, std::unique_ptr<ScanAhead<Row>> ahead)
      : decode_(std::move(decode)), ahead_(std::move(ahead)) {
    if (!ahead_) scan_ = std::make_unique<TableScan>(db.scan(table, columns, place));
  }
  bool next(Row& r) {
    if (scan_) {
      if (!scan_->step()) return false;
      r = decode_(*scan_);
      return true;
    }
    return batches_.next(r, [this](std::vector<Row>& batch) { return ahead_->next_batch(batch); });
  }

 private:
  typename ScanAhead<Row>::Decode decode_;
  std::unique_ptr<ScanAhead<Row>> ahead_;
  std::unique_ptr<TableScan> scan_;
  BatchCursor<Row> batches_;
};

}  // namespace flamefold::sqlite
