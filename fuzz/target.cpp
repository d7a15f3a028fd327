// The libFuzzer entry point of one target (FUZZ_TARGET, set by fuzz/CMakeLists.txt).
#include "targets.h"

#ifndef FUZZ_TARGET
#error "FUZZ_TARGET names the target (see targets.h, run_target)"
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  flamefold::fuzz::run_target(FUZZ_TARGET, data, size);
  return 0;
}
