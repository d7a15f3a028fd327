// The HTML payload's optional sections that issue 13's rank, source and kernel views read
// (tags in html.cpp's PayloadSection). Frames are named by their index in the payload's
// frame table (`frame_index[f]`, only frames with used[f]).
#pragma once
#include <string>
#include <vector>

#include "flamefold/options.h"
#include "flamefold/profile.h"

namespace flamefold::html_sections {

// kDeviceOps: per kernel/memcpy/memset name, what the call tree cannot give (its summed weights
// hold count and total, not min and max): varint rows, then per row varint frame, count,
// total_ns, min_ns, max_ns. Rows in Profile::device_ops order (total time, descending).
std::string device_ops(const Profile& p, const std::vector<uint32_t>& frame_index, const std::vector<uint8_t>& used);

// kSources: UTF-8 JSON {"context", "max_bytes", "max_snippets", "located" (frames with a
// file:line), "resolved" (of those, found under a root), "embedded", "cut" (resolved frames
// left out by the bounds), "bytes" (of source text embedded), "snippets": [[first_line,
// "line\nline..."], ...], "frames":
// [[frame, snippet], ...]}. Frames are taken heaviest first (their summed totals in the
// shown column) until kMaxBytes of source text or kMaxSnippets snippets.
inline constexpr size_t kMaxSourceBytes = size_t(4) << 20;
inline constexpr size_t kMaxSnippets = 20000;
inline constexpr uint32_t kSourceContext = 3;
std::string sources(const Profile& p, int column, const std::vector<uint32_t>& frame_index,
                    const std::vector<uint8_t>& used, const std::vector<std::string>& roots,
                    size_t max_bytes = kMaxSourceBytes, size_t max_snippets = kMaxSnippets);

}  // namespace flamefold::html_sections
