// Small, fast hashing and an open-addressing map for the hot paths (interning strings,
// finding a child node). std::unordered_map allocates per entry; these do not.
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace flamefold {

inline uint64_t mix64(uint64_t x) {
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  return x;
}

// The n < 8 bytes at p as a little-endian integer (the rest zero), from at most two loads:
// memcpy of a variable length compiled to byte stores that the load after them then waited for.
inline uint64_t load_tail(const char* p, size_t n) {
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);  // overlaps lo unless n == 8
    return lo | (uint64_t(hi) >> (8 * (8 - n)) << 32);
  }
  if (n == 0) return 0;
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return u[0] | uint64_t(u[n / 2]) << (8 * (n / 2)) | uint64_t(u[n - 1]) << (8 * (n - 1));
}

inline uint64_t hash_bytes(std::string_view s) {
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0xff51afd7ed558ccdULL);
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
    p += 8;
    n -= 8;
  }
  if (n) h = (h ^ load_tail(p, n)) * 0x94d049bb133111ebULL;
  return mix64(h);
}

// Maps a 64-bit key to a 32-bit value. Key UINT64_MAX is reserved as "empty".
class U64Map {
 public:
  static constexpr uint64_t kEmpty = UINT64_MAX;
  static constexpr uint32_t kMissing = UINT32_MAX;

  explicit U64Map(size_t initial = 1024) { rehash(round_up(initial * 2)); }

  uint32_t find(uint64_t key) const {
    size_t i = mix64(key) & mask_;
    while (true) {
      const Slot& s = slots_[i];
      if (s.key == key) return s.value;
      if (s.key == kEmpty) return kMissing;
      i = (i + 1) & mask_;
    }
  }
  // Returns the value stored for key, inserting `value` first if key was absent.
  uint32_t find_or_insert(uint64_t key, uint32_t value) {
    if ((size_ + 1) * 4 > slots_.size() * 3) rehash(slots_.size() * 2);
    size_t i = mix64(key) & mask_;
    while (true) {
      Slot& s = slots_[i];
      if (s.key == key) return s.value;
      if (s.key == kEmpty) {
        s.key = key;
        s.value = value;
        ++size_;
        return value;
      }
      i = (i + 1) & mask_;
    }
  }
  void set(uint64_t key, uint32_t value) {
    if ((size_ + 1) * 4 > slots_.size() * 3) rehash(slots_.size() * 2);
    size_t i = mix64(key) & mask_;
    while (true) {
      Slot& s = slots_[i];
      if (s.key == key || s.key == kEmpty) {
        if (s.key == kEmpty) ++size_;
        s.key = key;
        s.value = value;
        return;
      }
      i = (i + 1) & mask_;
    }
  }
  size_t size() const { return size_; }
  size_t memory_bytes() const { return slots_.size() * sizeof(Slot); }

 private:
  struct Slot {
    uint64_t key;
    uint32_t value;
  };
  static size_t round_up(size_t n) {
    size_t p = 16;
    while (p < n) p <<= 1;
    return p;
  }
  void rehash(size_t n) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(n, Slot{kEmpty, 0});
    mask_ = n - 1;
    size_ = 0;
    for (const Slot& s : old)
      if (s.key != kEmpty) set(s.key, s.value);
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace flamefold
