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
//
// Decoding a big table can take the worker longer than placing its rows takes the reading
// thread: a RangeSplit cuts the rowids into ranges of `width` and leaves every `every`-th range
// to the reading thread, which decodes it itself when its turn comes.
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

#include "flamefold/readers/sqlite_db.h"

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

struct RangeSplit {
  int64_t lo = 0, hi = -1;  // the table's rowids
  int64_t width = 0;        // rowids per range; 0 = no split
  unsigned every = 0;       // the reading thread takes ranges every-1, 2*every-1 ...
  int64_t ranges() const { return width ? (hi - lo) / width + 1 : 0; }
  bool reader_takes(int64_t i) const { return every && i % every == every - 1; }
  RowidRange range(int64_t i) const { return RowidRange{lo + i * width, i + 1 == ranges() ? hi : lo + (i + 1) * width - 1}; }
};

template <class Row>
class ScanAhead {
 public:
  using Decode = std::function<Row(const TableScan&)>;

  // Opens `path` again (SQLite connections are not shared between threads) and scans `table`
  // once `before` (if any) has opened; opens `after` (if any) when done. With a split, each of
  // the worker's ranges comes as one batch (empty when the range has no rows).
  ScanAhead(std::string path, std::string table, std::vector<std::string> columns, std::string place, Decode decode,
            std::shared_ptr<Gate> before = nullptr, std::shared_ptr<Gate> after = nullptr, RangeSplit split = {})
      : split_(split), before_(std::move(before)), after_(std::move(after)),
        worker_([this, path = std::move(path), table = std::move(table), columns = std::move(columns),
                 place = std::move(place), decode = std::move(decode)] { run(path, table, columns, place, decode); }) {}

  const RangeSplit& split() const { return split_; }

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
      if (split_.width) {
        for (int64_t i = 0; i < split_.ranges(); ++i) {
          if (split_.reader_takes(i)) continue;
          TableScan s = db.scan(table, columns, place, split_.range(i));
          while (s.step()) batch.push_back(decode(s));
          if (!hand_over()) break;
        }
      } else {
        TableScan s = db.scan(table, columns, place);
        bool more = true;
        while (more) {
          more = s.step();
          if (more) batch.push_back(decode(s));
          if ((batch.size() == kBatchRows || (!more && !batch.empty())) && !hand_over()) break;
        }
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

  RangeSplit split_;
  std::shared_ptr<Gate> before_, after_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::vector<Row>> ready_;
  std::exception_ptr error_;
  bool done_ = false, stop_ = false;
  std::thread worker_;  // last: started once the members it uses exist
};

// Rows of one table in order: from a ScanAhead when one was started for it (and from the ranges
// its split leaves to this thread), else from a scan on this thread's connection.
template <class Row>
class RowSource {
 public:
  RowSource(const Db& db, const std::string& table, const std::vector<std::string>& columns, const std::string& place,
            typename ScanAhead<Row>::Decode decode, std::unique_ptr<ScanAhead<Row>> ahead)
      : db_(db), table_(table), columns_(columns), place_(place), decode_(std::move(decode)), ahead_(std::move(ahead)) {
    if (!ahead_) scan_ = std::make_unique<TableScan>(db.scan(table, columns, place));
  }
  bool next(Row& r) {
    for (;;) {
      if (scan_) {
        if (scan_->step()) {
          r = decode_(*scan_);
          return true;
        }
        if (!ahead_) return false;
        scan_.reset();  // this thread's range is done
      }
      if (at_ < batch_.size()) {
        r = batch_[at_++];
        return true;
      }
      const RangeSplit& split = ahead_->split();
      if (split.width) {
        if (range_ >= split.ranges()) return false;
        const int64_t i = range_++;
        if (split.reader_takes(i)) {
          scan_ = std::make_unique<TableScan>(db_.scan(table_, columns_, place_, split.range(i)));
          continue;
        }
      }
      if (!ahead_->next_batch(batch_)) return false;
      at_ = 0;
    }
  }

 private:
  const Db& db_;
  std::string table_;
  std::vector<std::string> columns_;
  std::string place_;
  typename ScanAhead<Row>::Decode decode_;
  std::unique_ptr<ScanAhead<Row>> ahead_;
  std::unique_ptr<TableScan> scan_;
  std::vector<Row> batch_;
  size_t at_ = 0;
  int64_t range_ = 0;  // the next range of the split
};

}  // namespace flamefold::sqlite
