// Unsigned LEB128 ("varint"): the HTML payload, its sections and the profile binary form write
// their integers so (readers/proto/wire.h has protobuf's own, on raw buffers).
#pragma once
#include <cstdint>
#include <string>

namespace flamefold {

inline void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

}  // namespace flamefold
