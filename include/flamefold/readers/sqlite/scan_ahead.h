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
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "flamefold/readers/sqlite/sqlite_db.h"

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
      : before_(std::move(before)), after_(std::move(after)),
        worker_([this, path = std::move(path), table = std::move(table), columns = std::move(columns),
                 place = std::move(place), decode = std::move(decode)] { run(path, table, columns, place, decode); }) {}

  ~ScanAhead() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    changed_.notify_all();
    worker_.join();
  }
  ScanAhead(const ScanAhead&) = delete;
  ScanAhead& operator=(const ScanAhead&) = delete;

  // The next rows in table order (replacing `out`'s contents); false when none are left.
  bool next_batch(std::vector<Row>& out) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return !ready_.empty() || done_; });
    if (ready_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return false;
    }
    out.swap(ready_.front());
    ready_.pop_front();
    changed_.notify_all();
    return true;
  }

 private:
  static constexpr size_t kBatchRows = 4096, kBatches = 4;

  void run(const std::string& path, const std::string& table, const std::vector<std::string>& columns,
           const std::string& place, const Decode& decode) {
    if (before_) before_->wait();
    try {
      Db db = Db::open(path);
      std::vector<Row> batch;
      batch.reserve(kBatchRows);
      auto hand_over = [&]() {
        std::unique_lock<std::mutex> lock(mu_);
        changed_.wait(lock, [&] { return ready_.size() < kBatches || stop_; });
        if (stop_) return false;
        ready_.push_back(std::move(batch));
        batch = std::vector<Row>();
        batch.reserve(kBatchRows);
        changed_.notify_all();
        return true;
      };
      TableScan s = db.scan(table, columns, place);
      bool more = true;
      while (more) {
        more = s.step();
        if (more) batch.push_back(decode(s));
        if ((batch.size() == kBatchRows || (!more && !batch.empty())) && !hand_over()) break;
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      error_ = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    changed_.notify_all();
    if (after_) after_->open();
  }

  std::shared_ptr<Gate> before_, after_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::vector<Row>> ready_;
  std::exception_ptr error_;
  bool done_ = false, stop_ = false;
  std::thread worker_;  // last: started once the members it uses exist
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
    if (at_ == batch_.size()) {
      if (!ahead_->next_batch(batch_)) return false;
      at_ = 0;
    }
    r = batch_[at_++];
    return true;
  }

 private:
  typename ScanAhead<Row>::Decode decode_;
  std::unique_ptr<ScanAhead<Row>> ahead_;
  std::unique_ptr<TableScan> scan_;
  std::vector<Row> batch_;
  size_t at_ = 0;
};

}  // namespace flamefold::sqlite
