// The profile's own binary form: everything the model holds (frames, call tree, weight columns
// with their units, facts, counters, kernel statistics), in a compact encoding, optionally
// zstd-compressed. The Python package pickles profiles through it and ships partial profiles
// between Dask workers in it; a decoded profile writes byte-identical outputs.
//
//   "FFPB", u8 version (1), u8 flags (bit 0: the rest is one zstd frame), then (varint =
//   unsigned LEB128, zigzag for signed values, str = varint length + UTF-8 bytes):
//   strings   varint n, n x str (only those the frames and categories use)
//   categories varint n (after the empty category 0), n x varint string
//   frames    varint n, n x (varint name, varint file, varint line, varint category)
//   nodes     varint n (node 0 = root), for 1..n-1: varint (node - parent), then varint frame
//   siblings  u8 0: each parent's children listed newest first (what appending in node order
//             gives), 1: then first_child[], next_sibling[] as varint (id + 1, 0 = none)
//   columns   varint n, per column: str name, str unit, u8 kind (0: zigzag varint integers,
//             1: float64 little-endian), node_count values
//   default column varint, source format str, inputs (varint n, strs), facts (varint n, str
//   pairs), counters (varint n, str + varint), device ops (varint n, per op: varint frame,
//   varint count, zigzag total, min, max ns)
#pragma once
#include <string>
#include <string_view>

#include "flamefold/profile.h"

namespace flamefold {

std::string encode_profile(const Profile& profile, bool compress = true);
// Throws InputError(name, "byte N", problem) on anything that is not a whole, consistent encoding.
Profile decode_profile(std::string_view bytes, const std::string& name);

// A deep copy (frame and category ids kept), for operations that consume their inputs.
Profile copy_profile(const Profile& profile);

}  // namespace flamefold
