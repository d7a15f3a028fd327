// Protocol-buffer wire format, by hand: what the pprof reader and writer need and no more.
// Reading is bounds-checked everywhere (a truncated file, a wrong wire type or a length past
// the end becomes an InputError naming the byte), and never allocates per field.
// Generated classes (protoc + libprotobuf) would build a heap object per sample, location and
// string: several times slower on a million-node profile (docs/design.md), so they only
// cross-check this code in the tests.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "flamefold/errors.h"

namespace flamefold::proto {

enum WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLen = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };

inline const char* wire_type_name(unsigned w) {
  switch (w) {
    case kVarint: return "varint";
    case kFixed64: return "fixed64";
    case kLen: return "length-delimited";
    case kStartGroup: return "start-group";
    case kEndGroup: return "end-group";
    case kFixed32: return "fixed32";
  }
  return "invalid";
}

struct Field {
  uint32_t number = 0;
  uint8_t wire = 0;
  uint64_t value = 0;      // varint and fixed fields
  size_t at = 0;           // offset of the tag
  size_t begin = 0, end = 0;  // length-delimited: the payload
};

// Reads fields from data[begin, end). Offsets in errors are from the start of `data`, which is
// the whole decoded file.
class Cursor {
 public:
  Cursor(const std::string& path, std::string_view data, size_t begin, size_t end)
      : path_(&path), base_(reinterpret_cast<const uint8_t*>(data.data())), p_(base_ + begin), end_(base_ + end) {}
  Cursor(const std::string& path, std::string_view data) : Cursor(path, data, 0, data.size()) {}
  // A cursor over a length-delimited field's payload, or over data[begin, end).
  Cursor sub(const Field& f) const { return sub(f.begin, f.end); }
  Cursor sub(size_t begin, size_t end) const {
    Cursor c = *this;
    c.p_ = base_ + begin;
    c.end_ = base_ + end;
    return c;
  }

  bool done() const { return p_ >= end_; }
  size_t offset() const { return static_cast<size_t>(p_ - base_); }

  uint64_t varint() {
    if (p_ < end_ && *p_ < 0x80) return *p_++;
    return varint_slow();
  }

  // The next field, or false at the end. Groups (wire types 3 and 4, deprecated and unused by
  // pprof) and the undefined wire types 6 and 7 are errors.
  bool next(Field& f) {
    if (p_ >= end_) return false;
    f.at = offset();
    uint64_t tag = varint();
    f.number = static_cast<uint32_t>(tag >> 3);
    f.wire = static_cast<uint8_t>(tag & 7);
    if (f.number == 0 || (tag >> 3) > 0x1fffffff) fail(f.at, "field number " + std::to_string(tag >> 3) + " is not a valid protobuf field number");
    switch (f.wire) {
      case kVarint: f.value = varint(); break;
      case kFixed64: f.value = fixed(8, f); break;
      case kFixed32: f.value = fixed(4, f); break;
      case kLen: {
        uint64_t n = varint();
        size_t left = static_cast<size_t>(end_ - p_);
        if (n > left)
          fail(f.at, "field " + std::to_string(f.number) + " says it has " + std::to_string(n) + " bytes, but only " +
                         std::to_string(left) + " are left in its message (truncated, or not a pprof profile)");
        f.begin = offset();
        f.end = f.begin + static_cast<size_t>(n);
        p_ += n;
        break;
      }
      default:
        fail(f.at, "field " + std::to_string(f.number) + " has wire type " + std::to_string(f.wire) + " (" +
                       wire_type_name(f.wire) + "), which pprof never uses");
    }
    return true;
  }

  // Checks that a field has the wire type its message defines.
  void expect(const Field& f, WireType w, const char* what) const {
    if (f.wire != w)
      fail(f.at, std::string("field ") + std::to_string(f.number) + " (" + what + ") has wire type " + std::to_string(f.wire) +
                     " (" + wire_type_name(f.wire) + "), expected " + std::to_string(w) + " (" + wire_type_name(w) + ")");
  }

  // A repeated scalar field, packed (length-delimited) or not: f(value) for each value.
  template <typename F>
  void repeated_varint(const Field& field, const char* what, F&& f) {
    if (field.wire == kVarint) {
      f(field.value);
    } else if (field.wire == kLen) {
      Cursor c = sub(field);
      while (!c.done()) f(c.varint());
    } else {
      expect(field, kVarint, what);
    }
  }

  std::string_view bytes(const Field& f) const {
    return std::string_view(reinterpret_cast<const char*>(base_ + f.begin), f.end - f.begin);
  }

  [[noreturn]] void fail(size_t at, const std::string& problem) const {
    throw InputError(*path_, "byte " + std::to_string(at), problem);
  }

 private:
  uint64_t varint_slow() {
    const size_t at = offset();
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (p_ >= end_) fail(at, "truncated varint (the data ends inside a number)");
      uint8_t b = *p_++;
      if (shift == 63 && b > 1) fail(at, "varint too large for 64 bits");
      v |= uint64_t(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
    fail(at, "varint longer than 10 bytes");
  }
  uint64_t fixed(size_t n, const Field& f) {
    if (static_cast<size_t>(end_ - p_) < n) fail(f.at, "truncated fixed-size field " + std::to_string(f.number));
    uint64_t v = 0;
    std::memcpy(&v, p_, n);  // little-endian hosts only (x86-64, arm64)
    p_ += n;
    return v;
  }

  const std::string* path_;
  const uint8_t* base_;
  const uint8_t* p_;
  const uint8_t* end_;
};

// ---- writing --------------------------------------------------------------------------------

inline size_t varint_size(uint64_t v) { return v < 0x80 ? 1 : (70 - static_cast<size_t>(__builtin_clzll(v))) / 7; }

inline uint8_t* put_varint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

inline void append_varint(std::string& out, uint64_t v) {
  uint8_t b[10];
  out.append(reinterpret_cast<const char*>(b), static_cast<size_t>(put_varint(b, v) - b));
}
inline void append_tag(std::string& out, uint32_t field, WireType w) { append_varint(out, uint64_t(field) << 3 | w); }
inline void append_varint_field(std::string& out, uint32_t field, uint64_t v) {
  append_tag(out, field, kVarint);
  append_varint(out, v);
}
inline void append_len_field(std::string& out, uint32_t field, std::string_view payload) {
  append_tag(out, field, kLen);
  append_varint(out, payload.size());
  out.append(payload);
}

}  // namespace flamefold::proto
