// How a frame is written as text in folded stacks, SVG and tables.
#pragma once
#include <string>

#include "flamefold/profile.h"

namespace flamefold {

// The name alone, or "file:name:line" when the frame knows its source location
// (CPython's collapsed-stack convention, which round-trips through the folded reader).
void append_frame_label(std::string& out, const Symbols& symbols, FrameId id);
std::string frame_label(const Symbols& symbols, FrameId id);

}  // namespace flamefold
