#include "flamefold/strings.h"

#include <cstring>

#include "flamefold/hash.h"

namespace flamefold {

namespace {
constexpr size_t kBlock = 1 << 20;
}

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

void StringTable::grow() {
  std::vector<uint32_t> old(slots_.size() * 2, 0);
  old.swap(slots_);
  mask_ = slots_.size() - 1;
  for (uint32_t slot : old) {
    if (!slot) continue;
    size_t i = hashes_[slot - 1] & mask_;
    while (slots_[i]) i = (i + 1) & mask_;
    slots_[i] = slot;
  }
}

StrId StringTable::intern(std::string_view s) { return intern(s, hash_bytes(s)); }

StrId StringTable::intern(std::string_view s, uint64_t h) {
  size_t i = h & mask_;
  while (uint32_t slot = slots_[i]) {
    if (hashes_[slot - 1] == h && views_[slot - 1] == s) return slot - 1;
    i = (i + 1) & mask_;
  }
  StrId id = static_cast<StrId>(views_.size());
  views_.push_back(store(s));
  hashes_.push_back(h);
  slots_[i] = id + 1;
  if (views_.size() * 2 > slots_.size()) grow();
  return id;
}

StrId StringTable::find(std::string_view s) const {
  uint64_t h = hash_bytes(s);
  size_t i = h & mask_;
  while (uint32_t slot = slots_[i]) {
    if (hashes_[slot - 1] == h && views_[slot - 1] == s) return slot - 1;
    i = (i + 1) & mask_;
  }
  return UINT32_MAX;
}

size_t StringTable::memory_bytes() const {
  return blocks_.size() * kBlock + views_.capacity() * sizeof(std::string_view) +
         hashes_.capacity() * 8 + slots_.capacity() * 4;
}

}  // namespace flamefold
