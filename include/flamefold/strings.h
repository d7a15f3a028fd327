// Interned strings: every name, file and category is stored once and referred to by a
// 32-bit id. Views returned by get() stay valid for the table's lifetime.
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "flamefold/prefetch.h"

namespace flamefold {

using StrId = uint32_t;

class StringTable {
 public:
  StringTable();
  StringTable(StringTable&&) noexcept = default;
  StringTable& operator=(StringTable&&) noexcept = default;

  // Id 0 is always the empty string.
  StrId intern(std::string_view s);
  StrId intern(std::string_view s, uint64_t hash);  // when the caller already hashed s (hash_bytes)
  // Room for n strings in all without growing (one table instead of a series of doublings).
  void reserve(size_t n);
  // Takes over text that intern_stored() may then refer to in place.
  void adopt(std::unique_ptr<char[]> text);
  void adopt(std::shared_ptr<const void> owner);  // whatever keeps such text alive
  // intern(s, hash) for s inside adopted text: a new string is not copied.
  StrId intern_stored(std::string_view s, uint64_t hash);
  // A string inside adopted text that the table does not have and that no other string appended
  // this way has either: added without a lookup. The lookup table catches up at the next
  // intern() or find().
  void reserve_appended(size_t n) { views_.reserve(n); }  // room for n strings in all, appended
  StrId append_unique_stored(std::string_view s) {
    views_.push_back(s);
    return static_cast<StrId>(views_.size() - 1);
  }
  // Asks for the table slot intern(s, hash) will read first, ahead of time.
  void prefetch(uint64_t hash) const { flamefold::prefetch(&slots_[hash & mask_]); }
  // Returns the id of s, or UINT32_MAX when s was never interned.
  StrId find(std::string_view s) const;
  // Asks for where string `id` is kept, ahead of a read of operator[](id) in random order.
  void prefetch_view(StrId id) const { flamefold::prefetch(&views_[id]); }
  std::string_view get(StrId id) const { return views_[id]; }
  std::string_view operator[](StrId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }
  size_t memory_bytes() const;

 private:
  std::string_view store(std::string_view s);
  StrId intern(std::string_view s, uint64_t hash, bool copy);
  void grow() const;
  void rehash(size_t slots) const;
  void catch_up() const {  // indexes strings appended without a lookup
    if (hashes_.size() < views_.size()) index_appended();
  }
  void index_appended() const;
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::vector<std::shared_ptr<const void>> owners_;  // of adopted text
  size_t block_used_ = 0, block_size_ = 0;
  std::vector<std::string_view> views_;
  // The lookup table, for the first hashes_.size() strings (the others were appended).
  mutable std::vector<uint64_t> hashes_;
  mutable std::vector<uint64_t> slots_;  // open addressing: the hash's top half, id + 1; 0 = empty
  mutable size_t mask_ = 0;
};

}  // namespace flamefold
