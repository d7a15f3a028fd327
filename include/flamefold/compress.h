// Compressing a whole buffer for output (HTML payloads, .pb.gz profiles): gzip through
// libdeflate when the build has it (several times faster than zlib), else zlib.
#pragma once
#include <string>
#include <string_view>

namespace flamefold {

// A gzip member holding `in`; its header has no file name and no time, so the same input and
// level always give the same bytes. Throws std::runtime_error naming `what` on failure.
std::string gzip_compress(std::string_view in, int level, const char* what);

}  // namespace flamefold
