// SpoolAhead: a finished Spool read on a worker thread, a few batches ahead of the thread that
// uses its records. Reading a spool that spilled is a k-way merge of its runs (file reads and a
// heap, ~40 ns a record); ahead, it runs on the second core while the reader joins the records.
//
//   spool.finish();
//   SpoolAhead<T, Less> ahead(spool);  // the spool outlives it
//   T r;
//   while (ahead.next(r)) ...
#pragma once
#include <cstddef>
#include <vector>

#include "flamefold/spool.h"
#include "flamefold/work_ahead.h"

namespace flamefold {

template <class T, class Less>
class SpoolAhead {
 public:
  explicit SpoolAhead(Spool<T, Less>& spool)
      : ahead_(kBatches, [&spool](WorkAhead<std::vector<T>>& q) {
          std::vector<T> batch;
          while (q.room(batch)) {
            batch.clear();
            batch.reserve(kBatchRecords);
            T r;
            while (batch.size() < kBatchRecords && spool.next(r)) batch.push_back(r);
            if (batch.empty()) return;
            q.push(std::move(batch));
          }
        }) {}

  // The next record in the spool's order; false when all were read.
  bool next(T& out) {
    if (at_ == batch_.size()) {
      at_ = 0;
      if (!ahead_.next(batch_)) {
        batch_.clear();  // (handed back to the worker: asked again, still the end)
        return false;
      }
    }
    out = batch_[at_++];
    return true;
  }

 private:
  static constexpr size_t kBatchRecords = 4096, kBatches = 4;
  std::vector<T> batch_;
  size_t at_ = 0;
  WorkAhead<std::vector<T>> ahead_;  // last: its worker starts at once
};

}  // namespace flamefold
