// JSON string escaping shared by the writers that emit JSON (Chrome traces, top --json, the
// viewer's metadata). Bytes are copied as they are apart from the characters JSON requires
// escaped; callers that need valid UTF-8 clean the text first.
#pragma once
#include <string>
#include <string_view>

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

}  // namespace flamefold
