// The Kineto reader's event loop built for AVX2 machines: simdjson's On-Demand API uses only
// the kernels the compiler targets, so this file is compiled for Haswell-class CPUs (-mavx2
// -mbmi -mbmi2 -mpclmul -mlzcnt -mpopcnt, set in CMakeLists.txt) and kineto.cpp picks it at
// run time when the CPU has AVX2 (it falls back to the portable build otherwise).
//
// Every inline function this file uses (std::vector, std::string, simdjson, flamefold's
// headers ...) is compiled here with AVX2 too, and emitted as a weak copy that the linker
// could keep for callers elsewhere: on a CPU without AVX2 they would fault. So after
// compiling, cmake/private_weak_symbols.cmake renames this object's weak functions and vtables
// to names of its own: only code reached through parse_trace_avx2 can run them.
// tests/unit/misc_avx2_symbols_test.cpp checks the result in the built library.
#include <simdjson.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/input_ahead.h"
#include "flamefold/readers/json/kineto_internal.h"

#ifndef __AVX2__
#error "kineto_avx2.cpp must be compiled with -mavx2 (see CMakeLists.txt)"
#endif

namespace flamefold {
namespace kineto_avx2 {
#include "kineto_reader.inc"
}  // namespace kineto_avx2

KinetoFileInfo kineto_detail::parse_trace_avx2(Input& input, Timeline& tl, uint32_t rank_index) {
  return kineto_avx2::parse_trace(input, tl, rank_index);
}
KinetoFileInfo kineto_detail::stream_trace_avx2(Input& input, TraceBuilder& builder, uint32_t rank_index) {
  return kineto_avx2::stream_trace(input, builder, rank_index);
}

}  // namespace flamefold
