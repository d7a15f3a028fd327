// Unsigned LEB128 ("varint"): the HTML payload, its sections and the profile binary form write
// their integers so (readers/proto/wire.h has protobuf's own, on raw buffers).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace flamefold {

// Writes v at p (room for 10 bytes) and returns where it ends.
inline char* put_varint(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

inline void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// Appends the varints of value(i) for i in [0, count), an unsigned integer each: a block's room
// for the longest is made at once and written through a pointer, then trimmed. (A push_back per
// byte, with its capacity check, was most of writing a million-node tree's columns.)
template <class Value>
void put_varints(std::string& out, size_t count, Value&& value) {
  using V = decltype(value(size_t{}));
  static_assert(std::is_unsigned_v<V>);
  constexpr size_t kMost = (sizeof(V) * 8 + 6) / 7, kBlock = 4096;
  for (size_t from = 0; from < count; from += kBlock) {
    const size_t to = std::min(count, from + kBlock), at = out.size();
    out.resize(at + (to - from) * kMost);
    char* p = out.data() + at;
    for (size_t i = from; i < to; ++i) p = put_varint(p, value(i));
    out.resize(static_cast<size_t>(p - out.data()));
  }
}

}  // namespace flamefold
