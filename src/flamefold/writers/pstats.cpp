#include "flamefold/writers/pstats.h"
#include "flamefold/prefetch.h"

#include <cmath>
#include <cstring>

namespace flamefold {

namespace {

constexpr char kRefFlag = static_cast<char>(0x80);

class MarshalWriter {
 public:
  explicit MarshalWriter(std::string& out) : b_(out) {}

  void u32(uint32_t v) {
    char c[4] = {char(v), char(v >> 8), char(v >> 16), char(v >> 24)};
    b_.append(c, 4);
  }
  void integer(double value) {
    // Call counts are whole numbers; marshal 'i' holds 32 bits, bigger ones go as 'l'.
    double r = std::nearbyint(value);
    if (r >= -2147483648.0 && r <= 2147483647.0) {
      b_.push_back('i');
      u32(static_cast<uint32_t>(static_cast<int32_t>(r)));
      return;
    }
    bool negative = r < 0;
    uint64_t v = static_cast<uint64_t>(std::fabs(r));
    uint16_t digits[5];
    int n = 0;
    while (v) {
      digits[n++] = static_cast<uint16_t>(v & 0x7fff);
      v >>= 15;
    }
    b_.push_back('l');
    u32(static_cast<uint32_t>(negative ? -n : n));
    for (int i = 0; i < n; ++i) {
      b_.push_back(char(digits[i]));
      b_.push_back(char(digits[i] >> 8));
    }
  }
  void real(double v) {
    b_.push_back('g');
    char c[8];
    std::memcpy(c, &v, 8);  // little-endian IEEE 754, as marshal writes it
    b_.append(c, 8);
  }
  // A string, flagged for back-reference; returns its reference index.
  uint32_t string(std::string_view s) {
    bool ascii = true;
    for (unsigned char c : s)
      if (c >= 0x80) ascii = false;
    if (ascii && s.size() < 256) {
      b_.push_back(static_cast<char>('z' | kRefFlag));
      b_.push_back(static_cast<char>(s.size()));
    } else {
      b_.push_back(static_cast<char>('u' | kRefFlag));  // UTF-8
      u32(static_cast<uint32_t>(s.size()));
    }
    b_.append(s);
    return refs_++;
  }
  void ref(uint32_t index) {
    b_.push_back('r');
    u32(index);
  }
  uint32_t small_tuple(int n, bool flag) {
    b_.push_back(static_cast<char>(')' | (flag ? kRefFlag : 0)));
    b_.push_back(static_cast<char>(n));
    return flag ? refs_++ : kNone;
  }
  void raw(char c) { b_.push_back(c); }
  std::string& buffer() { return b_; }

 private:
  std::string& b_;
  uint32_t refs_ = 0;
};

// Appends the marshal bytes of the statistics to `out`, calling `drained()` after each
// function's entry (a file writer flushes its buffer there, so the file is never held whole).
template <class Drained>
void marshal_stats(const CallStats& st, std::string& out, Drained drained) {
  MarshalWriter w(out);
  std::vector<uint32_t> key_ref(st.functions.size(), kNone);
  // Consecutive functions of one file share the file-name string by reference.
  std::string_view last_file;
  uint32_t last_file_ref = kNone;

  auto key = [&](uint32_t fn) {
    if (key_ref[fn] != kNone) {
      w.ref(key_ref[fn]);
      return;
    }
    const FunctionStat& f = st.functions[fn];
    key_ref[fn] = w.small_tuple(3, true);
    if (last_file_ref != kNone && f.file == last_file) {
      w.ref(last_file_ref);
    } else {
      last_file = f.file;
      last_file_ref = w.string(f.file);
    }
    w.integer(f.line);
    w.string(f.name);
  };

  // Caller edges grouped by callee: a counting sort of their indices (4 B per edge, not a
  // copy of the 48-byte edges) keeps each callee's chain order.
  size_t nf = st.functions.size();
  std::vector<uint32_t> group_start(nf + 1, 0);
  std::vector<uint32_t> by_callee(st.callers.size());
  for (const CallerEdge& e : st.callers) ++group_start[e.callee + 1];
  for (size_t f = 0; f < nf; ++f) group_start[f + 1] += group_start[f];
  {
    std::vector<uint32_t> fill(group_start.begin(), group_start.end() - 1);
    // Chains run in increasing edge index (CallStats' invariant), so index order is chain order.
    for (uint32_t i = 0; i < st.callers.size(); ++i) by_callee[fill[st.callers[i].callee]++] = i;
  }

  w.raw('{');
  for (uint32_t fn = 0; fn < st.functions.size(); ++fn) {
    const FunctionStat& f = st.functions[fn];
    key(fn);
    w.small_tuple(5, false);
    w.integer(f.pcalls);
    w.integer(f.ncalls);
    w.real(f.tottime);
    w.real(f.cumtime);
    w.raw('{');
    for (uint32_t i = group_start[fn]; i < group_start[fn + 1]; ++i) {
      // A callee's edges are spread over the table: fetch a few ahead.
      if (i + 8 < by_callee.size()) flamefold::prefetch(&st.callers[by_callee[i + 8]]);
      const CallerEdge& edge = st.callers[by_callee[i]];
      key(edge.caller);
      if (edge.count_only) {
        w.integer(edge.ncalls);
        continue;
      }
      w.small_tuple(4, false);
      w.integer(edge.ncalls);
      w.integer(edge.pcalls);
      w.real(edge.tottime);
      w.real(edge.cumtime);
    }
    w.raw('0');
    drained();
  }
  w.raw('0');
}

}  // namespace

std::string pstats_bytes(const CallStats& st) {
  std::string out;
  out.reserve(64 + st.functions.size() * 96 + st.callers.size() * 48);
  marshal_stats(st, out, [] {});
  return out;
}

void write_pstats(const CallStats& stats, OutputFile& out) {
  marshal_stats(stats, out.buffer(), [&] { out.maybe_flush(); });
}

}  // namespace flamefold
