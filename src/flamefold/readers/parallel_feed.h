// Readers' internal helper: feeds a line-oriented text stream to several workers at once.
// The calling thread reads chunks (whole lines) into a few reusable buffers and queues them;
// worker threads take them in input order, and the reading thread works on one itself
// whenever the queue backs up. Memory stays bounded (workers + 2 buffers), whatever the input.
#pragma once
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "flamefold/progress.h"
#include "flamefold/readers/text_source.h"

namespace flamefold::parallel_feed {

// Calls feed(worker, text, job) for every chunk of `src`, worker in [0, workers), job the
// chunk's position in the input. One worker never runs two jobs at once and gets its jobs in
// input order; worker `workers - 1` is the calling thread. The first exception thrown by a
// feed is rethrown here once every thread has stopped.
template <typename Feed>
void run(TextSource& src, Progress& progress, unsigned workers, Feed&& feed) {
  struct Job {
    std::string text;
    size_t index = 0;
  };
  std::mutex mu;
  std::condition_variable cv_free, cv_todo;
  std::vector<std::unique_ptr<Job>> pool;
  std::deque<Job*> free_jobs, todo;
  for (unsigned i = 0; i < workers + 2; ++i) {
    pool.push_back(std::make_unique<Job>());
    free_jobs.push_back(pool.back().get());
  }
  bool closed = false;
  std::exception_ptr failure;

  auto run_job = [&](unsigned worker, Job* job) {
    try {
      feed(worker, std::string_view(job->text), job->index);
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
        Job* job;
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
    Job* job = nullptr;
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
          Job* j = free_jobs.front();
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

  try {
    std::string_view chunk;
    size_t next_index = 0;
    while (src.next(chunk)) {
      progress.update(src.consumed());
      Job* j = take_free();
      j->text.assign(chunk);
      j->index = next_index++;
      std::lock_guard<std::mutex> lock(mu);
      todo.push_back(j);
      cv_todo.notify_one();
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

}  // namespace flamefold::parallel_feed
