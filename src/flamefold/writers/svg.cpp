#include "flamefold/writers/svg.h"

#include <stdexcept>

namespace flamefold {

void write_svg(const Profile&, int, OutputFile&, const WriteOptions&) {
  throw std::runtime_error("SVG output is not implemented yet");
}

}  // namespace flamefold
