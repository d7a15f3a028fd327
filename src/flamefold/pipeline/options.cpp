// Option texts that need more than a string or a number, read the same way by the CLI and the
// Python bindings.
#include <cstring>
#include <stdexcept>
#include <string>

#include "flamefold/errors.h"
#include "flamefold/options.h"

namespace flamefold {

void parse_time_window(const std::string& text, ReadOptions& r) {
  size_t colon = text.find(':');
  if (colon == std::string::npos) throw UsageError("expected START:END, e.g. 100:250 (ms) or 1s:2.5s");
  auto to_ns = [&](std::string part, int64_t& out) {
    if (part.empty()) return;
    double scale = 1e6;  // ms by default
    auto ends = [&](const char* unit) {
      size_t n = std::strlen(unit);
      if (part.size() > n && part.compare(part.size() - n, n, unit) == 0) {
        part.resize(part.size() - n);
        return true;
      }
      return false;
    };
    if (ends("ns")) scale = 1;
    else if (ends("us")) scale = 1e3;
    else if (ends("ms")) scale = 1e6;
    else if (ends("s")) scale = 1e9;
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != part.size() || part.empty()) throw UsageError("cannot read '" + text + "' as START:END");
    out = static_cast<int64_t>(v * scale + (v < 0 ? -0.5 : 0.5));
  };
  to_ns(text.substr(0, colon), r.window_start_ns);
  to_ns(text.substr(colon + 1), r.window_end_ns);
  if (r.window_end_ns < r.window_start_ns) throw UsageError("END is before START in '" + text + "'");
}

}  // namespace flamefold
