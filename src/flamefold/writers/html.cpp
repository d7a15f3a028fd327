#include "flamefold/writers/html.h"

#include <stdexcept>

namespace flamefold {

void write_html(const Profile&, OutputFile&, const WriteOptions&) {
  throw std::runtime_error("HTML output is not implemented yet");
}

}  // namespace flamefold
