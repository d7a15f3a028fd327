#include "flamefold/frame_label.h"

namespace flamefold {

void append_frame_label(std::string& out, const Symbols& s, FrameId id) {
  const Frame& f = s[id];
  if (f.file == 0) {
    out.append(s.strings[f.name]);
    return;
  }
  out.append(s.strings[f.file]);
  out.push_back(':');
  out.append(s.strings[f.name]);
  if (f.line) {
    out.push_back(':');
    out.append(std::to_string(f.line));
  }
}

std::string frame_label(const Symbols& s, FrameId id) {
  std::string out;
  append_frame_label(out, s, id);
  return out;
}

}  // namespace flamefold
