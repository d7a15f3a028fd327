// SVG flame graph, a drop-in for flamegraph.pl's output: the same options (title, width,
// minwidth, palettes, inverted, reverse, countname, fonts, bgcolors, notes), the same layout
// (16 px frames, title/details bar, "Reset Zoom", "Search", "ic"), and a script of our own for
// click-to-zoom and regex search. Differences from flamegraph.pl, on purpose:
//   * colours always come from a hash of the name (flamegraph.pl --hash), so output is
//     reproducible byte for byte; frames are written in depth-first order, siblings sorted by name;
//   * a profile without weight gives a valid SVG saying "No samples" (flamegraph.pl exits 2);
//   * non-integer weights are shown with up to 3 decimals instead of rounded;
//   * every name is made valid XML text (control characters and invalid UTF-8 become U+FFFD).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "flamefold/options.h"
#include "flamefold/output.h"
#include "flamefold/profile.h"

namespace flamefold {

void write_svg(const Profile& profile, int column, OutputFile& out, const WriteOptions& options);

namespace svg {

struct Rgb {
  int r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

// flamegraph.pl's namehash(): a value in [0, 1] from the first characters of a name.
double name_hash(std::string_view name);
// The colour flamegraph.pl --hash gives a frame of this name in this palette. Throws
// UsageError for an unknown palette.
Rgb frame_colour(std::string_view palette, std::string_view name);
// flamegraph.pl's differential colour: red for a positive change, blue for a negative one
// (swapped with negate), paler the smaller the change is against the largest (max > 0).
Rgb change_colour(double value, double max, bool negate);
// Appends s as XML character data that is also safe in an attribute value: & < > " ' are
// escaped, control characters, U+FFFE/U+FFFF and invalid UTF-8 become U+FFFD.
void append_xml_text(std::string& out, std::string_view s);

}  // namespace svg
}  // namespace flamefold
