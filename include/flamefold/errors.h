// Errors about bad input: one line naming the file, the place and the problem.
#pragma once
#include <stdexcept>
#include <string>

namespace flamefold {

class InputError : public std::runtime_error {
 public:
  // place: "line 12", "byte 3456", "table NVTX_EVENTS", or empty when the whole file is at fault.
  InputError(const std::string& file, const std::string& place, const std::string& problem)
      : std::runtime_error(file + (place.empty() ? "" : ":" + place) + ": " + problem),
        file_(file), place_(place), problem_(problem) {}
  const std::string& file() const { return file_; }
  const std::string& place() const { return place_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_, place_, problem_;
};

// Bad command-line usage (unknown format name, conflicting options...).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace flamefold
