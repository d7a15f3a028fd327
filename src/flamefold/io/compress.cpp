#include "flamefold/compress.h"

#include <stdexcept>

#ifdef FLAMEFOLD_HAVE_LIBDEFLATE
#include <libdeflate.h>
#else
#include <zlib.h>
#endif

namespace flamefold {

std::string gzip_compress(std::string_view in, int level, const char* what) {
  const std::string failed = std::string("could not compress ") + what;
#ifdef FLAMEFOLD_HAVE_LIBDEFLATE
  libdeflate_compressor* c = libdeflate_alloc_compressor(level);
  if (!c) throw std::runtime_error("out of memory compressing " + std::string(what));
  std::string out(libdeflate_gzip_compress_bound(c, in.size()), '\0');
  size_t got = libdeflate_gzip_compress(c, in.data(), in.size(), out.data(), out.size());
  libdeflate_free_compressor(c);
  if (!got) throw std::runtime_error(failed);
  out.resize(got);
  return out;
#else
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::runtime_error(failed);
  std::string out(deflateBound(&z, in.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&z, Z_FINISH);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error(failed);
  out.resize(z.total_out);
  return out;
#endif
}

}  // namespace flamefold
