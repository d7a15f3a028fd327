#include "flamefold/readers/perf_script.h"

#include "flamefold/errors.h"

namespace flamefold {

bool looks_like_perf_script(std::string_view) { return false; }
Profile read_perf_script(Input& input, const ReadOptions&) {
  throw InputError(input.path(), "", "perf script input is not implemented yet");
}

}  // namespace flamefold
