// Internal to the Kineto reader: helpers shared by its two builds of the event loop
// (kineto.cpp: portable; kineto_avx2.cpp: the same loop with simdjson's AVX2 kernels, chosen
// at run time — simdjson's On-Demand API only uses the SIMD kernels the compiler targets).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "flamefold/input.h"
#include "flamefold/readers/json/kineto.h"
#include "flamefold/timeline.h"
#include "flamefold/timeline/trace_builder.h"

namespace flamefold::kineto_detail {

inline std::string_view trim_token(std::string_view t) {
  while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}
// A raw token without its quotes (strings) or as is (numbers).
inline std::string_view unquote(std::string_view t) {
  t = trim_token(t);
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"') return t.substr(1, t.size() - 2);
  return t;
}
inline bool is_string_token(std::string_view t) { return !t.empty() && t.front() == '"'; }
bool parse_u64(std::string_view t, uint64_t& v);
bool parse_i64(std::string_view t, int64_t& v);
// The body of a JSON string (between the quotes) with its escapes decoded (into buf if needed).
std::string_view json_unescape(std::string_view s, std::string& buf);

struct CatInfo {
  EventKind kind;
  std::string_view frame_category;  // what the frame's category is called
  bool known;
  bool skip;  // not an event of the profile (Trace spans, overhead)
};
CatInfo classify(std::string_view cat);
bool is_link_flow(std::string_view cat);  // flows that link a launch to its device work

// Bytes read from the input at a time (tests make it tiny to exercise batch boundaries).
size_t chunk_bytes();

KinetoFileInfo parse_trace_portable(Input& input, Timeline& timeline, uint32_t rank_index);
KinetoFileInfo parse_trace_avx2(Input& input, Timeline& timeline, uint32_t rank_index);

// The events of one trace straight into a TraceBuilder. Throws NeedsTimeline when something in
// the file changes events already added (a Python parent named by a later event, kinds taken
// from process names, flows supplying correlations, ops' Python stacks as text, CANN's rows
// moving threads): the caller then reads it as a timeline.
struct NeedsTimeline {
  const char* why;
};
KinetoFileInfo stream_trace_portable(Input& input, TraceBuilder& builder, uint32_t rank_index);
KinetoFileInfo stream_trace_avx2(Input& input, TraceBuilder& builder, uint32_t rank_index);

}  // namespace flamefold::kineto_detail
