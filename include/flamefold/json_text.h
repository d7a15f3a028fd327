// JSON string escaping shared by the writers that emit JSON (Chrome traces, top --json, the
// viewer's metadata). Bytes are copied as they are apart from the characters JSON requires
// escaped; callers that need valid UTF-8 clean the text first.
#pragma once
#include <string>
#include <string_view>

#include "flamefold/utf8.h"

namespace flamefold {

inline void append_json_escaped(std::string& out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
}

inline void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  append_json_escaped(out, s);
  out.push_back('"');
}

// s as a JSON string of valid UTF-8 (each invalid byte becomes U+FFFD): for text from inputs
// that a strict JSON reader (JSON.parse, simdjson) will read back. Valid text is not copied.
inline void append_clean_json_string(std::string& out, std::string_view s) {
  if (is_valid_utf8(s)) {
    append_json_string(out, s);
    return;
  }
  std::string clean;
  append_valid_utf8(clean, s);
  append_json_string(out, clean);
}

}  // namespace flamefold
