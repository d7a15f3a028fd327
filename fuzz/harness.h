// What the fuzz targets (targets.h) share: a scratch folder, inputs as fresh files (readers map
// files; SQLite opens them by name), options chosen by a byte, and the rule for exceptions. A
// reader may refuse input with an exception derived from std::runtime_error (InputError,
// UsageError ...): that is the clear one-line error the CLI prints. Anything else — a
// std::logic_error (out_of_range from .at(), length_error ...), another exception type, a crash,
// a sanitizer report, a hang — is a bug, and abort() makes the fuzzer keep the input.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

#include "flamefold/errors.h"
#include "flamefold/options.h"
#include "flamefold/pipeline.h"
#include "flamefold/profile.h"

namespace flamefold::fuzz {

// A private scratch folder for this process (fuzzers run several processes with -fork/-jobs).
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string d = std::string(base && *base ? base : "/tmp") + "/flamefold-fuzz-" + std::to_string(getpid());
    std::string cmd = "mkdir -p '" + d + "'";
    if (std::system(cmd.c_str()) != 0) std::abort();
    return d;
  }();
  return dir;
}

// Writes the bytes to a new file: a new name each time, so nothing cached by path (the SQLite
// readers share mappings of an unchanged file) carries over from one input to the next.
inline std::string write_input(const uint8_t* data, size_t size, std::string_view suffix) {
  static uint64_t serial = 0;
  std::string path = scratch_dir() + "/in" + std::to_string(serial++) + std::string(suffix);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

[[noreturn]] inline void bug(const char* what, const std::exception* e) {
  std::fprintf(stderr, "flamefold fuzz: %s%s%s\n", what, e ? ": " : "", e ? e->what() : "");
  std::abort();
}

// Runs f(); returns normally when it succeeded or refused the input cleanly.
template <typename F>
void expect_clean(F&& f) {
  try {
    f();
  } catch (const std::logic_error& e) {  // before runtime_error: neither derives from the other
    bug("logic error (a bug, not a refusal)", &e);
  } catch (const std::bad_alloc& e) {
    bug("out of memory", &e);
  } catch (const std::runtime_error&) {
    // a refusal: the CLI prints it as one line and exits 2
  } catch (const std::exception& e) {
    bug("unexpected exception", &e);
  } catch (...) {
    bug("non-standard exception", nullptr);
  }
}

// Read options picked by one byte, so the fuzzer explores the options too.
inline ReadOptions options_from(uint8_t b) {
  ReadOptions o;
  static const char* weights[] = {"", "", "gpu", "calls", "kernels", "cpu", "samples", "npu"};
  o.weight = weights[b & 7];
  static const char* groups[] = {"", "process", "thread", "none"};
  o.group_by = groups[(b >> 3) & 3];
  if (b & 0x20) o.steps = "1-2";
  if (b & 0x40) {
    o.window_start_ns = 1000;
    o.window_end_ns = 1000000000;
  }
  o.threads_to_use = (b & 0x80) ? 1 : 2;
  o.stream_traces = (b & 0x80) ? 1 : 0;  // Chrome traces: the TraceBuilder path too (small files stream only when asked)
  o.spool_bytes = 4096;  // the streaming readers spill to disk after a few rows: that path too
  return o;
}

}  // namespace flamefold::fuzz
