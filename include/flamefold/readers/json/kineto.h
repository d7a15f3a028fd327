// Chrome trace-event JSON as written by the PyTorch profiler (Kineto) in all its dialects
// (2021 tb_plugin, 2022+, ROCm, MTIA, Ascend trace_view.json), read with simdjson On-Demand in
// batches streamed from the input (bounded memory; .gz decompressed as it is parsed), parsing on
// a second thread. Produces a Timeline; build_profile() makes the Profile.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "flamefold/input.h"
#include "flamefold/options.h"
#include "flamefold/profile.h"
#include "flamefold/timeline.h"
#include "flamefold/timeline/build_profile.h"

namespace flamefold {

// What read_kineto_into learned about one file besides its events.
struct KinetoFileInfo {
  bool has_rank = false;  // distributedInfo.rank was present
  int64_t rank = 0;
  bool npu = false;       // Ascend trace_view.json: device time is NPU time
};

// Appends one trace to `timeline` as rank index `rank_index` (which must exist in
// timeline.ranks; the caller may rename it from the returned info). Throws InputError on
// malformed JSON, with the byte offset.
KinetoFileInfo read_kineto_into(Input& input, Timeline& timeline, uint32_t rank_index);

// One or more traces (ranks) -> one profile. The rank label is "rank N" from distributedInfo,
// else the file name.
Profile read_kineto_files(const std::vector<std::string>& paths, const ReadOptions& options);
Profile read_kineto(Input& input, const ReadOptions& options);

// How many bytes the reader takes from the input at a time (0 = the default, 4 MiB). Tests use
// a few bytes to put batch boundaries everywhere.
void set_kineto_chunk_bytes(size_t n);
// Use the portable build of the parser even on AVX2 machines (tests compare the two).
void set_kineto_portable_parser(bool portable);

// Exact decimal microseconds ("1419247333072.495", "-3", "1.5e3") -> integer nanoseconds,
// rounded half away from zero below 1 ns. False on anything that is not a number.
bool parse_us_to_ns(std::string_view text, int64_t& ns);

}  // namespace flamefold
