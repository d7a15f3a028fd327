#include "flamefold/input.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "flamefold/errors.h"

#ifdef FLAMEFOLD_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

namespace flamefold {

namespace {

std::string errno_text() { return std::strerror(errno); }

// Produces decoded bytes from a file descriptor (plain, gzip or zstd).
class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual size_t read(char* dst, size_t n) = 0;  // 0 = end
};

class PlainDecoder : public Decoder {
 public:
  // `already_read`: bytes taken from fd before (a pipe cannot be rewound), handed out first.
  PlainDecoder(int fd, std::string path, std::string already_read = {})
      : fd_(fd), path_(std::move(path)), pending_(std::move(already_read)) {}
  size_t read(char* dst, size_t n) override {
    if (pending_at_ < pending_.size()) {
      size_t k = std::min(n, pending_.size() - pending_at_);
      std::memcpy(dst, pending_.data() + pending_at_, k);
      pending_at_ += k;
      return k;
    }
    while (true) {
      ssize_t r = ::read(fd_, dst, n);
      if (r >= 0) return static_cast<size_t>(r);
      if (errno == EINTR) continue;
      throw InputError(path_, "", "read failed: " + errno_text());
    }
  }

 private:
  int fd_;
  std::string path_;
  std::string pending_;
  size_t pending_at_ = 0;
};

class GzipDecoder : public Decoder {
 public:
  GzipDecoder(int fd, std::string path, std::string already_read)
      : raw_(fd, path, std::move(already_read)), path_(std::move(path)), in_(1 << 18) {
    std::memset(&z_, 0, sizeof z_);
    if (inflateInit2(&z_, 15 + 32) != Z_OK) throw InputError(path_, "", "cannot start gzip decoder");
  }
  ~GzipDecoder() override { inflateEnd(&z_); }
  size_t read(char* dst, size_t n) override {
    if (done_) return 0;
    z_.next_out = reinterpret_cast<Bytef*>(dst);
    z_.avail_out = static_cast<uInt>(n);
    while (z_.avail_out == n) {
      if (z_.avail_in == 0) {
        size_t got = raw_.read(in_.data(), in_.size());
        if (got == 0) {
          if (mid_stream_) throw InputError(path_, "byte " + std::to_string(compressed_), "truncated gzip stream");
          done_ = true;
          break;
        }
        compressed_ += got;
        z_.next_in = reinterpret_cast<Bytef*>(in_.data());
        z_.avail_in = static_cast<uInt>(got);
      }
      mid_stream_ = true;
      int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        mid_stream_ = false;
        inflateReset(&z_);  // concatenated gzip members continue
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        throw InputError(path_, "byte " + std::to_string(compressed_ - z_.avail_in),
                         std::string("corrupt gzip data: ") + (z_.msg ? z_.msg : "inflate failed"));
      }
    }
    return n - z_.avail_out;
  }

 private:
  PlainDecoder raw_;
  std::string path_;
  std::vector<char> in_;
  z_stream z_;
  bool done_ = false, mid_stream_ = false;
  uint64_t compressed_ = 0;
};

class ZstdDecoder : public Decoder {
 public:
  ZstdDecoder(int fd, std::string path, std::string already_read)
      : raw_(fd, path, std::move(already_read)), path_(std::move(path)), in_(ZSTD_DStreamInSize()) {
    ctx_ = ZSTD_createDStream();
    ZSTD_initDStream(ctx_);
  }
  ~ZstdDecoder() override { ZSTD_freeDStream(ctx_); }
  size_t read(char* dst, size_t n) override {
    ZSTD_outBuffer out{dst, n, 0};
    while (out.pos == 0) {
      if (in_pos_ == in_len_) {
        in_len_ = raw_.read(in_.data(), in_.size());
        in_pos_ = 0;
        if (in_len_ == 0) {
          if (last_rc_ != 0) throw InputError(path_, "byte " + std::to_string(compressed_), "truncated zstd stream");
          return 0;
        }
        compressed_ += in_len_;
      }
      ZSTD_inBuffer in{in_.data(), in_len_, in_pos_};
      last_rc_ = ZSTD_decompressStream(ctx_, &out, &in);
      in_pos_ = in.pos;
      if (ZSTD_isError(last_rc_))
        throw InputError(path_, "byte " + std::to_string(compressed_ - (in_len_ - in_pos_)),
                         std::string("corrupt zstd data: ") + ZSTD_getErrorName(last_rc_));
    }
    return out.pos;
  }

 private:
  PlainDecoder raw_;
  std::string path_;
  std::vector<char> in_;
  size_t in_pos_ = 0, in_len_ = 0, last_rc_ = 0;
  uint64_t compressed_ = 0;
  ZSTD_DStream* ctx_;
};

}  // namespace

struct Input::Impl {
  std::string path;
  int fd = -1;
  bool regular = false;
  uint64_t file_size = 0;
  Compression compression = Compression::None;
  std::unique_ptr<Decoder> decoder;
  bool eof = false;

  std::string memory;  // from_memory()
  bool is_memory = false;

  // Decoded bytes read ahead (for head()) and not yet handed out.
  std::vector<char> buf;
  size_t buf_begin = 0, buf_end = 0;
  uint64_t consumed = 0;

  void* map = nullptr;
  size_t map_len = 0;
  std::unique_ptr<char[]> decoded;  // whole() of a gzip file decoded at once
  std::vector<char> whole_copy;
  bool have_whole = false;
  std::string_view whole_view;

  ~Impl() {
    if (map) munmap(map, map_len);
    if (fd > 0) ::close(fd);
  }

  // Reads more decoded bytes into buf after buf_end, growing it when full.
  bool fill(size_t want) {
    if (eof) return false;
    if (buf_begin > 0 && buf_begin == buf_end) buf_begin = buf_end = 0;
    if (buf.size() - buf_end < want) {
      if (buf_begin > 0) {
        std::memmove(buf.data(), buf.data() + buf_begin, buf_end - buf_begin);
        buf_end -= buf_begin;
        buf_begin = 0;
      }
      if (buf.size() - buf_end < want) buf.resize(buf_end + want);
    }
    size_t got = decoder->read(buf.data() + buf_end, buf.size() - buf_end);
    if (got == 0) {
      eof = true;
      return false;
    }
    buf_end += got;
    return true;
  }
};

namespace {

#ifdef FLAMEFOLD_HAVE_LIBDEFLATE
// A whole gzip file in one go with libdeflate: about three times zlib's speed, into a buffer
// sized from the trailer's ISIZE instead of one regrown (and copied) as it fills. False when
// that does not work out (a corrupt file, above all): the caller then streams through zlib,
// which also says what is wrong.
bool decode_gzip_whole(int fd, uint64_t file_size, size_t padding, std::unique_ptr<char[]>& out, size_t& out_size) {
  if (file_size < 18) return false;
  void* map = mmap(nullptr, file_size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) return false;
  madvise(map, file_size, MADV_SEQUENTIAL | MADV_WILLNEED);
  const auto* in = static_cast<const uint8_t*>(map);
  uint32_t isize;
  std::memcpy(&isize, in + file_size - 4, 4);  // the last member's size mod 2^32: a first guess
  size_t cap = std::max<size_t>(isize, file_size);
  std::unique_ptr<char[]> buf(new char[cap + padding]);
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  size_t in_pos = 0, out_pos = 0;
  bool ok = d != nullptr;
  while (ok && in_pos < file_size) {  // concatenated members follow each other
    size_t in_used = 0, out_used = 0;
    libdeflate_result r = libdeflate_gzip_decompress_ex(d, in + in_pos, file_size - in_pos, buf.get() + out_pos,
                                                        cap - out_pos, &in_used, &out_used);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {  // more members, or above 4 GB: grow and redo this member
      cap *= 2;
      std::unique_ptr<char[]> bigger(new char[cap + padding]);
      std::memcpy(bigger.get(), buf.get(), out_pos);
      buf = std::move(bigger);
      continue;
    }
    ok = r == LIBDEFLATE_SUCCESS;
    in_pos += in_used;
    out_pos += out_used;
  }
  if (d) libdeflate_free_decompressor(d);
  munmap(map, file_size);
  if (!ok) return false;
  std::memset(buf.get() + out_pos, 0, padding);
  out = std::move(buf);
  out_size = out_pos;
  return true;
}
#endif

}  // namespace

Input::Input(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Input::Input(Input&&) noexcept = default;
Input& Input::operator=(Input&&) noexcept = default;
Input::~Input() = default;

Input Input::open(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  if (path == "-") {
    impl->path = "<stdin>";
    impl->fd = 0;
    struct stat st;
    if (fstat(0, &st) == 0 && S_ISREG(st.st_mode)) impl->regular = true;  // `- < file`
  } else {
    impl->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (impl->fd < 0) throw InputError(path, "", "cannot open: " + errno_text());
    struct stat st;
    if (fstat(impl->fd, &st) == 0) {
      if (S_ISDIR(st.st_mode)) throw InputError(path, "", "is a directory, not a profile file");
      impl->regular = S_ISREG(st.st_mode);
      impl->file_size = static_cast<uint64_t>(st.st_size);
    }
  }
  // Sniff the compression from the magic bytes.
  unsigned char magic[4] = {0, 0, 0, 0};
  size_t got = 0;
  impl->buf.resize(1 << 16);
  {
    PlainDecoder raw(impl->fd, impl->path);
    while (got < 4) {
      size_t r = raw.read(impl->buf.data() + got, impl->buf.size() - got);
      if (r == 0) break;
      got += r;
    }
  }
  std::memcpy(magic, impl->buf.data(), got < 4 ? got : 4);
  if (got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b)
    impl->compression = Compression::Gzip;
  else if (got >= 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd)
    impl->compression = Compression::Zstd;

  if (impl->compression == Compression::None) {
    impl->decoder = std::make_unique<PlainDecoder>(impl->fd, impl->path);
    impl->buf_end = got;  // the bytes already read are content
  } else {
    // Compressed: rewind, or, for a pipe, feed the bytes already read back in.
    std::string already_read;
    if (impl->regular)
      lseek(impl->fd, 0, SEEK_SET);
    else
      already_read.assign(impl->buf.data(), got);
    if (impl->compression == Compression::Gzip)
      impl->decoder = std::make_unique<GzipDecoder>(impl->fd, impl->path, std::move(already_read));
    else
      impl->decoder = std::make_unique<ZstdDecoder>(impl->fd, impl->path, std::move(already_read));
    impl->buf_end = 0;
  }
  return Input(std::move(impl));
}

Input Input::from_memory(std::string name, std::string data) {
  auto impl = std::make_unique<Impl>();
  impl->path = std::move(name);
  impl->is_memory = true;
  impl->memory = std::move(data);
  impl->file_size = impl->memory.size();
  impl->buf.assign(impl->memory.begin(), impl->memory.end());
  impl->buf_end = impl->buf.size();
  impl->eof = true;
  struct NoDecoder : Decoder {
    size_t read(char*, size_t) override { return 0; }
  };
  impl->decoder = std::make_unique<NoDecoder>();
  return Input(std::move(impl));
}

const std::string& Input::path() const { return impl_->path; }
Compression Input::compression() const { return impl_->compression; }
uint64_t Input::size_on_disk() const { return impl_->file_size; }
uint64_t Input::consumed() const { return impl_->consumed; }

std::string_view Input::head() {
  Impl& m = *impl_;
  while (m.buf_end - m.buf_begin < (1 << 16) && m.fill(1 << 16)) {
  }
  size_t n = m.buf_end - m.buf_begin;
  if (n > (1 << 16)) n = 1 << 16;
  return std::string_view(m.buf.data() + m.buf_begin, n);
}

std::string_view Input::whole() {
  Impl& m = *impl_;
  if (m.have_whole) return m.whole_view;
  m.have_whole = true;
  if (m.compression == Compression::None && m.regular && m.consumed == 0 && m.file_size > 0) {
    // Reserve size + padding of anonymous zero pages, then map the file over the front:
    // the padding after the last byte is readable and zero.
    long page = sysconf(_SC_PAGESIZE);
    size_t len = ((m.file_size + kPadding + page - 1) / page) * page;
    void* area = mmap(nullptr, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area != MAP_FAILED) {
      void* f = mmap(area, m.file_size, PROT_READ, MAP_PRIVATE | MAP_FIXED, m.fd, 0);
      if (f != MAP_FAILED) {
        madvise(f, m.file_size, MADV_SEQUENTIAL | MADV_WILLNEED);
        m.map = area;
        m.map_len = len;
        m.whole_view = std::string_view(static_cast<char*>(f), m.file_size);
        return m.whole_view;
      }
      munmap(area, len);
    }
  }
#ifdef FLAMEFOLD_HAVE_LIBDEFLATE
  size_t decoded_size = 0;
  if (m.compression == Compression::Gzip && m.regular && m.consumed == 0 &&
      decode_gzip_whole(m.fd, m.file_size, kPadding, m.decoded, decoded_size)) {
    m.whole_view = std::string_view(m.decoded.get(), decoded_size);
    m.consumed += decoded_size;
    m.buf_begin = m.buf_end = 0;
    m.eof = true;
    return m.whole_view;
  }
#endif
  // Decode everything into memory.
  if (m.buf_begin > 0) {
    std::memmove(m.buf.data(), m.buf.data() + m.buf_begin, m.buf_end - m.buf_begin);
    m.buf_end -= m.buf_begin;
    m.buf_begin = 0;
  }
  size_t step = 1 << 20;
  if (m.compression == Compression::None && m.file_size > m.buf_end) step = m.file_size - m.buf_end + 1;
  while (m.fill(step)) {
    if (step < (64u << 20)) step *= 2;
  }
  m.buf.resize(m.buf_end + kPadding);
  std::memset(m.buf.data() + m.buf_end, 0, kPadding);
  m.whole_view = std::string_view(m.buf.data() + m.buf_begin, m.buf_end - m.buf_begin);
  m.consumed += m.whole_view.size();
  m.buf_begin = m.buf_end;
  return m.whole_view;
}

bool Input::maps_whole() const {
  const Impl& m = *impl_;
  return m.compression == Compression::None && m.regular && m.consumed == 0 && m.file_size > 0 && !m.have_whole;
}

std::shared_ptr<const void> Input::keep_whole() {
  Impl& m = *impl_;
  if (m.map) {
    size_t len = m.map_len;
    std::shared_ptr<const void> owner(m.map, [len](const void* p) { munmap(const_cast<void*>(p), len); });
    m.map = nullptr;  // the owner unmaps it now
    return owner;
  }
  if (m.decoded) return std::shared_ptr<const void>(m.decoded.release(), [](const void* p) { delete[] static_cast<const char*>(p); });
  return std::make_shared<std::vector<char>>(std::move(m.buf));  // whole_view stays valid: a move keeps the buffer
}

bool Input::next_chunk(std::string_view& chunk, size_t chunk_size) {
  Impl& m = *impl_;
  // Hand out everything up to the last line break; keep reading while there is none.
  size_t scanned = m.buf_begin;
  while (true) {
    size_t avail = m.buf_end - m.buf_begin;
    if (avail >= chunk_size || m.eof) {
      const char* base = m.buf.data();
      const char* nl = nullptr;
      for (size_t i = m.buf_end; i > scanned; --i)
        if (base[i - 1] == '\n') {
          nl = base + i;
          break;
        }
      if (nl) {
        chunk = std::string_view(base + m.buf_begin, static_cast<size_t>(nl - (base + m.buf_begin)));
        m.buf_begin += chunk.size();
        m.consumed += chunk.size();
        return true;
      }
      if (m.eof) {
        if (avail == 0) return false;
        chunk = std::string_view(base + m.buf_begin, avail);
        m.buf_begin = m.buf_end;
        m.consumed += chunk.size();
        return true;
      }
      scanned = m.buf_end;  // one line longer than a chunk: keep reading
      chunk_size = avail + chunk_size;
    }
    size_t before_begin = m.buf_begin;
    m.fill(chunk_size - (m.buf_end - m.buf_begin) + 1);
    scanned -= (before_begin - m.buf_begin);  // fill() may have moved the data to the front
  }
}

}  // namespace flamefold
