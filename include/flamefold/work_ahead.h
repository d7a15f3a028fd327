// WorkAhead: items produced in order on a worker thread, a bounded few ahead of the thread that
// consumes them. The readers use it to overlap their input with their parsing: InputAhead reads
// and decompresses chunks ahead, ScanAhead decodes SQLite rows ahead.
//
//   WorkAhead<std::string> ahead(4, [&](WorkAhead<std::string>& q) {
//     std::string buf;
//     while (q.room(buf)) {          // waits for room; buf: a spent item to refill, or empty
//       if (!fill(buf)) return;      // the end
//       q.push(std::move(buf));
//     }                              // room() is false once the consumer has gone
//   });
//   std::string item;
//   while (ahead.next(item)) use(item);  // the previous item goes back to the worker for reuse
//
// An exception in the producer is rethrown by next() where the items stop, as the same work done
// on the consuming thread would have thrown it there. Destroying the WorkAhead stops the worker
// at its next room() and joins it.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace flamefold {

template <class Item>
class WorkAhead {
 public:
  using Produce = std::function<void(WorkAhead&)>;

  // Starts `produce` on a worker thread; at most `capacity` items wait for the consumer.
  WorkAhead(size_t capacity, Produce produce)
      : capacity_(capacity ? capacity : 1), worker_([this, produce = std::move(produce)] { run(produce); }) {}
  ~WorkAhead() {
    stop();
    worker_.join();
  }
  WorkAhead(const WorkAhead&) = delete;
  WorkAhead& operator=(const WorkAhead&) = delete;

  // Consumer: no more items are wanted; the worker stops at its next room(). (The destructor
  // does this too; an owner whose worker may wait on something else first calls it, then ends
  // that wait, then lets the destructor join.)
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    changed_.notify_all();
  }

  // Worker: waits until fewer than `capacity` items are waiting, then hands a spent item back
  // in `spare` (its buffers kept for reuse; contents unspecified), if there is one. False once
  // the consumer has gone: stop producing.
  bool room(Item& spare) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return ready_.size() < capacity_ || stop_; });
    if (stop_) return false;
    if (!spares_.empty()) {
      spare = std::move(spares_.back());
      spares_.pop_back();
    }
    return true;
  }

  // Worker: the next item, in order (after room() said there is room).
  void push(Item&& item) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ready_.push_back(std::move(item));
    }
    changed_.notify_all();
  }

  // Consumer: the next item into `item`, whose previous contents go back to the worker for
  // reuse. False at the end; rethrows the producer's exception there.
  bool next(Item& item) {
    std::unique_lock<std::mutex> lock(mu_);
    if (spares_.size() <= capacity_) spares_.push_back(std::move(item));
    changed_.wait(lock, [&] { return !ready_.empty() || done_; });
    if (ready_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return false;
    }
    item = std::move(ready_.front());
    ready_.pop_front();
    lock.unlock();
    changed_.notify_all();
    return true;
  }

 private:
  void run(const Produce& produce) {
    try {
      produce(*this);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      error_ = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    changed_.notify_all();
  }

  const size_t capacity_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Item> ready_;
  std::vector<Item> spares_;
  std::exception_ptr error_;
  bool done_ = false, stop_ = false;
  std::thread worker_;  // last: started once the members it uses exist
};

// Elements one at a time from batches made ahead (ScanAhead's rows, SpoolAhead's records):
// `more(batch)` replaces the spent batch with the next one, false at the end. Asked again after
// the end, it is still the end (the spent batch went back to the worker).
template <class T>
class BatchCursor {
 public:
  template <class More>
  bool next(T& out, More&& more) {
    while (at_ == batch_.size()) {
      at_ = 0;
      if (!more(batch_)) {
        batch_.clear();
        return false;
      }
    }
    out = batch_[at_++];
    return true;
  }

 private:
  std::vector<T> batch_;
  size_t at_ = 0;
};

}  // namespace flamefold
