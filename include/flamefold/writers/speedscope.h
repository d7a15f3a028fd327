// speedscope's JSON file format (its published schema), for https://www.speedscope.app and the
// `speedscope` command. One sampled profile per thread (the group frames above the stacks:
// process / thread / rank) and per weight column, the default weight's profiles first, so the
// profile menu lists every thread once per weight; the heaviest thread of the default weight
// opens first. A sample is a call path with self weight; frames (name, file, line) are shared.
// Time columns in ns are written in "nanoseconds" (exact integers), bytes as "bytes", counts as
// "none". Each profile also carries {"flamefold": {weight, unit, groups}}, and the file
// {"flamefold": {weights: [{name, unit}], default}} (extra keys the schema allows and speedscope
// ignores), so that reading the file back restores every column (those without samples too, in
// their order) and group frame exactly. A traced input read with ReadOptions::chart_events also
// gets an evented profile per thread and device stream of its flame chart (time order, bounded
// as the HTML viewer's chart is), marked {"flamefold": {"timeline": true}} and left out by
// flamefold's reader.
#pragma once
#include <string_view>

#include "flamefold/options.h"
#include "flamefold/output.h"
#include "flamefold/profile.h"

namespace flamefold {

struct SpeedscopeStats {
  size_t profiles = 0, samples = 0, frames = 0;
  size_t events = 0;  // of the time-ordered (evented) profiles
};

// Whether -o names a speedscope file: *.speedscope.json (checked before the plain .json).
bool is_speedscope_path(std::string_view path);

// Throws std::runtime_error for weights speedscope cannot show (negative, not finite).
SpeedscopeStats write_speedscope(const Profile& profile, OutputFile& out, const WriteOptions& options);

}  // namespace flamefold
