// Input files: plain files are mapped, `.gz` and `.zst` (recognised by their magic bytes, not
// their names) are decompressed, `-` is stdin. Two ways to consume one:
//   whole()      — every byte at once, followed by kPadding zero bytes (simdjson needs them);
//   next_chunk() — a stream of chunks that each end at a line break, in bounded memory.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace flamefold {

enum class Compression { None, Gzip, Zstd };

class Input {
 public:
  static constexpr size_t kPadding = 64;
  static constexpr size_t kChunk = 4 << 20;

  // Throws InputError when the file cannot be opened (or is a directory).
  static Input open(const std::string& path);
  // An in-memory input (tests, stdin already read); the name is used in messages.
  static Input from_memory(std::string name, std::string data);

  Input(Input&&) noexcept;
  Input& operator=(Input&&) noexcept;
  ~Input();

  const std::string& path() const;
  Compression compression() const;
  // Bytes on disk (compressed size for .gz/.zst), 0 when unknown (stdin). For progress.
  uint64_t size_on_disk() const;
  // The first bytes of the decoded content (up to 64 KiB), for sniffing. Does not consume.
  std::string_view head();
  // All decoded bytes; the kPadding bytes after the end are readable zeros.
  std::string_view whole();
  // Whether whole() would map the file rather than read it into memory (a plain regular file
  // not read from yet).
  bool maps_whole() const;
  // Keeps what whole() returned readable after this Input is gone, for as long as the owner
  // lives (a profile keeping views into a mapped file). Call after whole().
  std::shared_ptr<const void> keep_whole();
  // Next piece of the decoded stream, ending just after a '\n' (or at the end of input).
  // Returns false at the end. A chunk is valid until the next call. Do not mix with whole().
  bool next_chunk(std::string_view& chunk, size_t chunk_size = kChunk);
  // Decoded bytes handed out so far by next_chunk().
  uint64_t consumed() const;

 private:
  struct Impl;
  explicit Input(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace flamefold
