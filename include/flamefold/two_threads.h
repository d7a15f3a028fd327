// Two pieces of work at once: `there` on a second thread while `here` runs on this one. For
// splits that join at once (two halves of a sort, of a list of strings), where a queue or a
// pool would be more than the work needs.
#pragma once
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

}  // namespace flamefold
