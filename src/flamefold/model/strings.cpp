#include "flamefold/strings.h"

#include <cstring>

#include "flamefold/hash.h"

namespace flamefold {

namespace {
constexpr size_t kBlock = 1 << 20;
}

// A slot holds id + 1 in its low half and the top half of the string's hash in its high half:
// probing compares hashes without reading the string or its hash (a cache miss each).
namespace {
inline uint64_t slot_of(StrId id, uint64_t h) { return (h & 0xFFFFFFFF00000000ULL) | (uint64_t(id) + 1); }
inline bool same_hash(uint64_t slot, uint64_t h) { return (slot ^ h) >> 32 == 0; }
inline StrId id_of(uint64_t slot) { return static_cast<StrId>(slot - 1); }  // the low half
}  // namespace

StringTable::StringTable() {
  slots_.assign(1024, 0);
  mask_ = slots_.size() - 1;
  intern(std::string_view());
}

std::string_view StringTable::store(std::string_view s) {
  if (s.empty()) return std::string_view("", 0);
  if (s.size() > kBlock / 4) {  // big strings get their own block
    auto big = std::make_unique<char[]>(s.size());
    std::memcpy(big.get(), s.data(), s.size());
    std::string_view v(big.get(), s.size());
    blocks_.insert(blocks_.begin(), std::move(big));  // keep the current block last
    return v;
  }
  if (block_used_ + s.size() > block_size_) {
    blocks_.push_back(std::make_unique<char[]>(kBlock));
    block_used_ = 0;
    block_size_ = kBlock;
  }
  char* dst = blocks_.back().get() + block_used_;
  std::memcpy(dst, s.data(), s.size());
  block_used_ += s.size();
  return std::string_view(dst, s.size());
}

void StringTable::reserve(size_t n) {
  views_.reserve(n);
  hashes_.reserve(n);
  size_t slots = slots_.size();
  while (n * 2 > slots) slots *= 2;
  if (slots != slots_.size()) rehash(slots);
}

void StringTable::grow() const { rehash(slots_.size() * 2); }

void StringTable::rehash(size_t slots) const {
  std::vector<uint64_t>(slots, 0).swap(slots_);
  mask_ = slots_.size() - 1;
  for (StrId id = 0; id < hashes_.size(); ++id) {
    size_t i = hashes_[id] & mask_;
    while (slots_[i]) i = (i + 1) & mask_;
    slots_[i] = slot_of(id, hashes_[id]);
  }
}

StrId StringTable::intern(std::string_view s) { return intern(s, hash_bytes(s)); }

StrId StringTable::intern(std::string_view s, uint64_t h) { return intern(s, h, true); }

StrId StringTable::intern_stored(std::string_view s, uint64_t h) { return intern(s, h, false); }

void StringTable::adopt(std::unique_ptr<char[]> text) {
  blocks_.insert(blocks_.begin(), std::move(text));  // keep the block being filled last
}

void StringTable::adopt(std::shared_ptr<const void> owner) { owners_.push_back(std::move(owner)); }

void StringTable::index_appended() const {
  for (StrId id = static_cast<StrId>(hashes_.size()); id < views_.size(); ++id) {
    const uint64_t h = hash_bytes(views_[id]);
    hashes_.push_back(h);
    if (hashes_.size() * 2 > slots_.size()) {
      grow();
      continue;  // placed it
    }
    size_t i = h & mask_;
    while (slots_[i]) i = (i + 1) & mask_;
    slots_[i] = slot_of(id, h);
  }
}

StrId StringTable::intern(std::string_view s, uint64_t h, bool copy) {
  catch_up();
  size_t i = h & mask_;
  while (uint64_t slot = slots_[i]) {
    if (same_hash(slot, h) && views_[id_of(slot)] == s) return id_of(slot);
    i = (i + 1) & mask_;
  }
  StrId id = static_cast<StrId>(views_.size());
  views_.push_back(copy ? store(s) : s);
  hashes_.push_back(h);
  slots_[i] = slot_of(id, h);
  if (views_.size() * 2 > slots_.size()) grow();
  return id;
}

StrId StringTable::find(std::string_view s) const {
  catch_up();
  uint64_t h = hash_bytes(s);
  size_t i = h & mask_;
  while (uint64_t slot = slots_[i]) {
    if (same_hash(slot, h) && views_[id_of(slot)] == s) return id_of(slot);
    i = (i + 1) & mask_;
  }
  return UINT32_MAX;
}

size_t StringTable::memory_bytes() const {
  return blocks_.size() * kBlock + views_.capacity() * sizeof(std::string_view) +
         hashes_.capacity() * 8 + slots_.capacity() * 8;
}

}  // namespace flamefold
