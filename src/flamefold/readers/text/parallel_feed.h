// Readers' internal helper: feeds a text stream to several workers at once.
// The calling thread reads chunks, cuts them at record boundaries into jobs held in a few
// reusable buffers and queues them; worker threads take them in input order, and the reading
// thread works on one itself whenever the queue backs up. Memory stays bounded (workers + 2
// buffers), whatever the input size.
#pragma once
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "flamefold/input.h"
#include "flamefold/options.h"
#include "flamefold/progress.h"
#include "flamefold/readers/text/text_source.h"

namespace flamefold::parallel_feed {

// Workers for reading `input`: --threads-to-use (default: the cores), but one for inputs under
// 8 MB (1 MB compressed), where threads cost more than they save. Size unknown (stdin): big.
inline unsigned workers_for(const Input& input, const ReadOptions& options) {
  unsigned workers = options.threads_to_use ? options.threads_to_use : std::thread::hardware_concurrency();
  workers = std::clamp(workers, 1u, 64u);
  constexpr uint64_t kParallelFrom = 8 << 20;
  const uint64_t size = input.size_on_disk();
  if (size != 0 && size < (input.compression() == Compression::None ? kParallelFrom : kParallelFrom / 8)) workers = 1;
  return workers;
}

struct NoExtra {};

// One piece of the input for one worker. `extra` is what the reading thread worked out for it
// (in input order) before queuing it.
template <typename Extra>
struct Job {
  std::string text;
  size_t index = 0;   // position in the input
  bool last = false;  // the records left over at the end of the input
  Extra extra{};
};

// Calls feed(worker, job) for every job, worker in [0, workers); worker `workers - 1` is the
// calling thread. One worker never runs two jobs at once and gets its jobs in input order.
//   cut(chunk, carry_ends_line) -> how many bytes of chunk end whole records (0: none yet; the
//     rest is carried into the next job). carry_ends_line: the carried text ends with '\n'.
//   prepare(job) runs on the reading thread, in input order, before the job is queued.
// The first exception thrown by feed (or by reading) is rethrown once every thread has stopped.
template <typename Extra, typename Cut, typename Prepare, typename Feed>
void run_records(TextSource& src, Progress& progress, unsigned workers, Cut&& cut, Prepare&& prepare, Feed&& feed) {
  using J = Job<Extra>;
  std::mutex mu;
  std::condition_variable cv_free, cv_todo;
  std::vector<std::unique_ptr<J>> pool;
  std::deque<J*> free_jobs, todo;
  for (unsigned i = 0; i < workers + 2; ++i) {
    pool.push_back(std::make_unique<J>());
    free_jobs.push_back(pool.back().get());
  }
  bool closed = false;
  std::exception_ptr failure;

  auto run_job = [&](unsigned worker, J* job) {
    try {
      feed(worker, static_cast<const J&>(*job));
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!failure) failure = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mu);
    free_jobs.push_back(job);
    cv_free.notify_one();
  };
  std::vector<std::thread> threads;
  for (unsigned w = 0; w + 1 < workers; ++w) {
    threads.emplace_back([&, w] {
      while (true) {
        J* job;
        {
          std::unique_lock<std::mutex> lock(mu);
          cv_todo.wait(lock, [&] { return !todo.empty() || closed; });
          if (todo.empty()) return;
          job = todo.front();
          todo.pop_front();
        }
        run_job(w, job);
      }
    });
  }
  const unsigned reader = workers - 1;
  auto help = [&]() {  // the reading thread takes the oldest queued job, if any
    J* job = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (todo.empty()) return false;
      job = todo.front();
      todo.pop_front();
    }
    run_job(reader, job);
    return true;
  };
  auto take_free = [&]() {
    while (true) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!free_jobs.empty()) {
          J* j = free_jobs.front();
          free_jobs.pop_front();
          return j;
        }
      }
      // Every buffer is queued or in work: work on one rather than wait.
      if (!help()) {
        std::unique_lock<std::mutex> lock(mu);
        cv_free.wait(lock, [&] { return !free_jobs.empty(); });
      }
    }
  };
  size_t next_index = 0;
  auto dispatch = [&](J* j, bool last) {
    j->index = next_index++;
    j->last = last;
    prepare(*j);
    std::lock_guard<std::mutex> lock(mu);
    todo.push_back(j);
    cv_todo.notify_one();
  };

  std::string carry;
  try {
    std::string_view chunk;
    while (src.next(chunk)) {
      progress.update(src.consumed());
      size_t whole = cut(chunk, carry.empty() || carry.back() == '\n');
      if (whole == 0) {
        carry.append(chunk);  // one record longer than a chunk: keep collecting
        continue;
      }
      J* j = take_free();
      j->text.assign(carry);
      j->text.append(chunk.substr(0, whole));
      carry.assign(chunk.substr(whole));
      dispatch(j, false);
    }
    if (!carry.empty()) {
      J* j = take_free();
      j->text.swap(carry);
      dispatch(j, true);
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu);
    if (!failure) failure = std::current_exception();
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    closed = true;
    cv_todo.notify_all();
  }
  while (help()) {
  }
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

// The same for line-oriented text where every line is a record: feed(worker, text, index).
template <typename Feed>
void run_lines(TextSource& src, Progress& progress, unsigned workers, Feed&& feed) {
  run_records<NoExtra>(
      src, progress, workers, [](std::string_view chunk, bool) { return chunk.size(); }, [](Job<NoExtra>&) {},
      [&](unsigned worker, const Job<NoExtra>& job) { feed(worker, std::string_view(job.text), job.index); });
}

}  // namespace flamefold::parallel_feed
