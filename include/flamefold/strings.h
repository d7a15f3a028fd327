// Interned strings: every name, file and category is stored once and referred to by a
// 32-bit id. Views returned by get() stay valid for the table's lifetime.
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace flamefold {

using StrId = uint32_t;

class StringTable {
 public:
  StringTable();
  StringTable(StringTable&&) noexcept = default;
  StringTable& operator=(StringTable&&) noexcept = default;

  // Id 0 is always the empty string.
  StrId intern(std::string_view s);
  StrId intern(std::string_view s, uint64_t hash);  // when the caller already hashed s
  // Returns the id of s, or UINT32_MAX when s was never interned.
  StrId find(std::string_view s) const;
  std::string_view get(StrId id) const { return views_[id]; }
  std::string_view operator[](StrId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }
  size_t memory_bytes() const;

 private:
  std::string_view store(std::string_view s);
  void grow();
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_used_ = 0, block_size_ = 0;
  std::vector<std::string_view> views_;
  std::vector<uint64_t> hashes_;
  std::vector<uint32_t> slots_;  // open addressing: id + 1, 0 = empty
  size_t mask_ = 0;
};

}  // namespace flamefold
