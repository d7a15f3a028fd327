// Two pieces of work at once: `there` on a second thread while `here` runs on this one. For
// splits that join at once (two halves of a sort, of a list of strings), where a queue or a
// pool would be more than the work needs.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <thread>

namespace flamefold {

// Returns once both are done; rethrows what either threw (this thread's first), never leaving
// the second thread running.
template <class Here, class There>
void on_two_threads(Here&& here, There&& there) {
  std::exception_ptr failed;
  std::thread second([&] {
    try {
      there();
    } catch (...) {
      failed = std::current_exception();
    }
  });
  try {
    here();
  } catch (...) {
    second.join();
    throw;
  }
  second.join();
  if (failed) std::rethrow_exception(failed);
}

// first(b) then second(b) for blocks b = 0 .. blocks - 1, in order; with `threaded`, first()
// runs on a second thread at most `ahead` blocks ahead of second() (a pipeline of two stages,
// where the second needs what the first made of the same block). Rethrows what either threw.
template <class First, class Second>
void in_two_stages(size_t blocks, size_t ahead, bool threaded, First&& first, Second&& second) {
  if (!threaded) {
    for (size_t b = 0; b < blocks; ++b) {
      first(b);
      second(b);
    }
    return;
  }
  constexpr size_t kStopped = SIZE_MAX;  // in either count: the other side failed
  std::atomic<size_t> firsts{0}, seconds{0};  // blocks done by each
  std::exception_ptr failure;
  std::thread t([&] {
    try {
      for (size_t b = 0; b < blocks; ++b) {
        size_t s = seconds.load();
        for (; s != kStopped && b >= s + ahead; s = seconds.load()) seconds.wait(s);
        if (s == kStopped) return;
        first(b);
        firsts.store(b + 1);
        firsts.notify_one();
      }
    } catch (...) {
      failure = std::current_exception();
      firsts.store(kStopped);  // wakes the other side, which then stops
      firsts.notify_one();
    }
  });
  try {
    for (size_t b = 0; b < blocks; ++b) {
      size_t f = firsts.load();
      while (f <= b) {
        firsts.wait(f);
        f = firsts.load();
      }
      if (f == kStopped) break;
      second(b);
      seconds.store(b + 1);
      seconds.notify_one();
    }
  } catch (...) {
    seconds.store(kStopped);
    seconds.notify_one();
    t.join();
    throw;
  }
  t.join();
  if (failure) std::rethrow_exception(failure);
}

// std::sort of [begin, end) by a strict total order (one answer whatever the method), with
// `threaded` as two halves sorted at once and merged (the merge takes a buffer of half).
template <class It, class Less>
void sort_on_two_threads(It begin, It end, Less less, bool threaded) {
  const auto n = end - begin;
  if (!threaded || n < 16384) {
    std::sort(begin, end, less);
    return;
  }
  const It mid = begin + n / 2;
  on_two_threads([&] { std::sort(begin, mid, less); }, [&] { std::sort(mid, end, less); });
  std::inplace_merge(begin, mid, end, less);
}

}  // namespace flamefold
