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
#include <functional>
#include <vector>

#include "flamefold/spool.h"
#include "flamefold/work_ahead.h"

namespace flamefold {

template <class T, class Less>
class SpoolAhead {
 public:
  // keep (optional): run on the worker for each record, which it may rewrite; records it returns
  // false for are not passed on. Work the reader would do per record and drop most of is then
  // done on the second core too.
  using Keep = std::function<bool(T&)>;
  explicit SpoolAhead(Spool<T, Less>& spool, Keep keep = nullptr)
      : ahead_(kBatches, [&spool, keep = std::move(keep)](WorkAhead<std::vector<T>>& q) {
          std::vector<T> batch;
          while (q.room(batch)) {
            batch.clear();
            batch.reserve(kBatchRecords);
            T r;
            while (batch.size() < kBatchRecords && spool.next(r))
              if (!keep || keep(r)) batch.push_back(r);
            if (batch.empty()) return;
            q.push(std::move(batch));
          }
        }) {}

  // The next record in the spool's order; false when all were read.
  bool next(T& out) {
    return records_.next(out, [this](std::vector<T>& batch) { return ahead_.next(batch); });
  }

 private:
  static constexpr size_t kBatchRecords = 4096, kBatches = 4;
  BatchCursor<T> records_;
  WorkAhead<std::vector<T>> ahead_;  // last: its worker starts at once
};

}  // namespace flamefold
