// speedscope's file format (https://www.speedscope.app/file-format-schema.json): a shared frame
// table (name, file, line) and one or more profiles, "sampled" (stacks of frame indices with a
// weight each) or "evented" (open/close events at increasing values). Each profile becomes a
// thread frame named after it; its weight column follows its unit: time units -> "cpu" in
// integer ns, "none" -> "samples", "bytes" -> "bytes". Files flamefold wrote carry each
// profile's weight, unit and group frames (writers/speedscope.h), which are restored exactly.
//
// Events that do not balance (a close that is not the innermost open frame, a frame never
// closed), values that go back, unknown frame indices and sample/weight counts that differ
// are errors, as they are in speedscope.
#pragma once
#include "flamefold/input.h"
#include "flamefold/options.h"
#include "flamefold/profile.h"

namespace flamefold {

Profile read_speedscope(Input& input, const ReadOptions& options);

}  // namespace flamefold
