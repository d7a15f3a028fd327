// The Kineto reader's event loop built for AVX2 machines: simdjson's On-Demand API uses only
// the kernels the compiler targets, so this file targets Haswell-class CPUs and kineto.cpp
// picks it at run time when the CPU has AVX2 (it falls back to the portable build otherwise).
#pragma GCC target("avx2,bmi,bmi2,pclmul,lzcnt,popcnt")
#ifndef __AVX2__
#define __AVX2__ 1
#endif
#ifndef __BMI__
#define __BMI__ 1
#endif
#ifndef __PCLMUL__
#define __PCLMUL__ 1
#endif
#ifndef __LZCNT__
#define __LZCNT__ 1
#endif
#include <simdjson.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <cstring>
#include <string>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/readers/kineto_internal.h"

namespace flamefold {
namespace kineto_avx2 {
#include "kineto_reader.inc"
}  // namespace kineto_avx2

KinetoFileInfo kineto_detail::parse_trace_avx2(Input& input, Timeline& tl, uint32_t rank_index) {
  return kineto_avx2::parse_trace(input, tl, rank_index);
}

}  // namespace flamefold
