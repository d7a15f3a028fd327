// A thin read-only SQLite layer for the profiler-database readers (nsys, Ascend): opens
// with `file:...?mode=ro&immutable=1`, prepared statements with bound parameters only,
// table/column introspection, and TableScan: whole-table (or rowid-range) scans that read the
// table b-tree pages of the file directly (src/flamefold/readers/sqlite/sqlite_pages.cpp)
// and fall back to a prepared SELECT whenever that cannot be trusted. Every SQLite failure
// becomes an InputError naming the file.
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace flamefold::sqlite {

// A REAL time rounded to whole ns. NaN, or a value past int64's range, is no time at all:
// INT64_MIN, as NULL (the cast would be undefined; found by fuzzing the Ascend reader).
inline int64_t rounded_ns(double d) {
  if (!(d > -9.2e18 && d < 9.2e18)) return INT64_MIN;
  return static_cast<int64_t>(d + (d < 0 ? -0.5 : 0.5));
}

// Eight ASCII digits (the first in the lowest byte) as a number, or -1 when a byte is not a
// digit: checked and combined pairwise (SWAR).
inline int64_t eight_digits(uint64_t w) {
  if ((w & 0xF0F0F0F0F0F0F0F0ull) != 0x3030303030303030ull ||
      ((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) != 0x3030303030303030ull)
    return -1;
  w = ((w & 0x0F0F0F0F0F0F0F0Full) * 2561) >> 8;
  w = ((w & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
  w = ((w & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32;
  return static_cast<int64_t>(w & 0xFFFFFFFFull);
}

#if defined(__x86_64__)
// Sixteen ASCII digits as a number with SSE4.1 (on every x86-64 CPU of the last 15 years;
// checked once): checked and combined pairwise in a few vector steps. False on a non-digit.
__attribute__((target("sse4.1"))) inline bool sixteen_digits_sse41(const char* s, uint64_t& out) {
  const __m128i d = _mm_sub_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s)), _mm_set1_epi8('0'));
  const __m128i nine = _mm_set1_epi8(9);
  if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(d, nine), nine)) != 0xFFFF) return false;
  __m128i t = _mm_maddubs_epi16(d, _mm_set1_epi16(0x010A));               // 8 pairs: 10a + b
  t = _mm_madd_epi16(t, _mm_set1_epi32(0x00010064));                       // 4 quads: 100p + q
  t = _mm_packus_epi32(t, t);                                              // as 16-bit lanes
  t = _mm_madd_epi16(t, _mm_set1_epi32(0x00012710));                       // 2 octets: 10000x + y
  out = static_cast<uint64_t>(static_cast<uint32_t>(_mm_cvtsi128_si32(t))) * 100000000ull +
        static_cast<uint32_t>(_mm_extract_epi32(t, 1));
  return true;
}
inline const bool kHaveSse41 = (__builtin_cpu_init(), __builtin_cpu_supports("sse4.1"));
#endif

// The value of 1-19 ASCII digits (TEXT timestamps), 8 or 16 at a time; false when the text is
// not only digits or the value exceeds INT64_MAX.
inline bool digits_value(const char* s, uint32_t n, int64_t& out) {
  if (n == 0 || n > 19) return false;
  uint64_t v = 0;
  uint32_t k = 0;
#if defined(__x86_64__)
  if (n >= 16 && kHaveSse41) {
    if (!sixteen_digits_sse41(s, v)) return false;
    k = 16;
  }
#endif
  for (; k + 8 <= n; k += 8) {
    uint64_t w;
    std::memcpy(&w, s + k, 8);
    const int64_t d = eight_digits(w);
    if (d < 0) return false;
    v = v * 100000000ull + static_cast<uint64_t>(d);
  }
  if (k < n && n >= 8) {
    // The last 1-7 digits: the 8 bytes that end with them, the bytes already read set to '0'.
    static constexpr uint64_t kPow10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    const uint32_t rest = n - k, earlier = 8 - rest;
    uint64_t w;
    std::memcpy(&w, s + n - 8, 8);
    const uint64_t low = (uint64_t{1} << (8 * earlier)) - 1;
    const int64_t d = eight_digits((w & ~low) | (0x3030303030303030ull & low));
    if (d < 0) return false;
    v = v * kPow10[rest] + static_cast<uint64_t>(d);
  } else {
    for (; k < n; ++k) {
      unsigned d = static_cast<unsigned char>(s[k]) - '0';
      if (d > 9) return false;
      v = v * 10 + d;
    }
  }
  if (v > static_cast<uint64_t>(INT64_MAX)) return false;
  out = static_cast<int64_t>(v);
  return true;
}

class Statement {
 public:
  Statement() = default;
  Statement(sqlite3_stmt* s, std::string file, std::string place) : stmt_(s), file_(std::move(file)), place_(std::move(place)) {}
  Statement(Statement&& o) noexcept { *this = std::move(o); }
  Statement& operator=(Statement&& o) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  void bind(int index, int64_t v);  // 1-based, as in SQLite
  void bind(int index, std::string_view v);
  bool step();  // true while a row is available; throws InputError on errors (corrupt file ...)
  void reset();
  sqlite3_stmt* handle() const { return stmt_; }

  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  int type(int col) const { return sqlite3_column_type(stmt_, col); }
  // Integer value; TEXT holding digits converts (Ascend stores timestamps as TEXT).
  int64_t i64(int col) const { return sqlite3_column_int64(stmt_, col); }
  // Integer or `missing` when NULL; asks for the type only when the value reads as 0, so the
  // common non-NULL case costs one call.
  int64_t i64_or(int col, int64_t missing) const {
    int64_t v = sqlite3_column_int64(stmt_, col);
    return (v == 0 && sqlite3_column_type(stmt_, col) == SQLITE_NULL) ? missing : v;
  }
  double f64(int col) const { return sqlite3_column_double(stmt_, col); }
  // A timestamp in ns: INTEGER, REAL, or TEXT holding either ("1736407067942010500",
  // "1.23282223627722e+17" in old msprof DBs, which an integer conversion would cut at '.').
  // INT64_MIN when NULL.
  int64_t time_ns(int col) const {
    int t = sqlite3_column_type(stmt_, col);
    if (t == SQLITE_NULL) return INT64_MIN;
    if (t == SQLITE_INTEGER) return sqlite3_column_int64(stmt_, col);
    int64_t x;
    if (t == SQLITE_TEXT &&  // digits only (torch_npu's TEXT startNs/endNs)
        digits_value(reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col)),
                     static_cast<uint32_t>(sqlite3_column_bytes(stmt_, col)), x))
      return x;
    return rounded_ns(sqlite3_column_double(stmt_, col));  // REAL, float-notation TEXT, negative ...
  }
  std::string_view text(int col) const {
    const unsigned char* p = sqlite3_column_text(stmt_, col);
    return p ? std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string_view();
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  std::string file_, place_;
};


// One value of the current row of a TableScan, in SQLite's storage classes. TEXT and BLOB
// point into the page window, a row buffer or SQLite's statement: valid until the next step().
struct Value {
  int type = SQLITE_NULL;  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL
  int64_t i = 0;
  double f = 0;
  const char* s = nullptr;
  uint32_t n = 0;
};

class PageScanner;  // the direct b-tree reader (sqlite_pages.h)
struct FileImage;

// A rowid range for Db::scan (inclusive).
struct RowidRange {
  int64_t lo = INT64_MIN, hi = INT64_MAX;
};

// The rows of one table, columns chosen by name ("rowid" = the rowid unless a column has that
// name; a name the table lacks reads as NULL in every row), in rowid order, optionally only
// the rowids in [lo, hi]. Values read exactly as sqlite3_column_* would give them for
// `SELECT cols FROM table`, whichever path reads them.
class TableScan {
 public:
  TableScan(TableScan&&) noexcept;
  TableScan& operator=(TableScan&&) noexcept;
  ~TableScan();

  bool step();  // true while a row is available; throws InputError on damaged pages
  // Direct scans only: the rows of `range` next, instead of what is left of this one.
  void restart(RowidRange range);
  // Whether the direct page reader serves this scan (false: the prepared-statement path).
  bool direct() const { return pages_ != nullptr; }
  // Why the prepared-statement path was taken ("" when direct): for tests and `info`.
  const std::string& fallback_reason() const { return fallback_reason_; }

  bool is_null(int col) const { return values_[col].type == SQLITE_NULL; }
  int type(int col) const { return values_[col].type; }
  int64_t i64(int col) const {
    const Value& v = values_[col];
    if (v.type == SQLITE_INTEGER) return v.i;
    return i64_slow(v);
  }
  int64_t i64_or(int col, int64_t missing) const {
    const Value& v = values_[col];
    if (v.type == SQLITE_INTEGER) return v.i;
    return v.type == SQLITE_NULL ? missing : i64_slow(v);
  }
  double f64(int col) const {
    const Value& v = values_[col];
    if (v.type == SQLITE_FLOAT) return v.f;
    if (v.type == SQLITE_INTEGER) return static_cast<double>(v.i);
    return f64_slow(v);
  }
  // As Statement::time_ns: INTEGER, REAL or TEXT holding either; INT64_MIN when NULL.
  int64_t time_ns(int col) const {
    const Value& v = values_[col];
    if (v.type == SQLITE_INTEGER) return v.i;
    if (v.type == SQLITE_NULL) return INT64_MIN;
    int64_t x;
    if (v.type == SQLITE_TEXT) {
      if (v.n >= 16 && static_cast<size_t>(col) < kLeadCached) {
        if (lead_[col].value_of(v.s, v.n, x)) return x;
      } else if (digits_value(v.s, v.n, x)) {
        return x;
      }
    }
    return rounded_ns(f64(col));
  }
  std::string_view text(int col) const {
    const Value& v = values_[col];
    if (v.type == SQLITE_TEXT || v.type == SQLITE_BLOB) return std::string_view(v.s, v.n);
    if (v.type == SQLITE_NULL) return std::string_view();
    return text_slow(col);
  }

 private:
  friend class Db;
  TableScan();
  int64_t i64_slow(const Value& v) const;
  double f64_slow(const Value& v) const;
  std::string_view text_slow(int col) const;
  sqlite3_stmt* converter() const;

  // TEXT nanosecond timestamps of one column share their leading digits from row to row (the
  // first 11 of 19 change every 0.1 s): the value of all but the last eight digits is kept, and
  // a row with the same ones parses only its last eight.
  struct LeadingDigits {
    uint64_t head[2] = {~0ull, ~0ull};  // the leading n - 8 characters (8..11), zero-padded
    uint32_t n = 0;
    uint64_t value = 0;  // of those characters
    bool value_of(const char* s, uint32_t len, int64_t& out) {  // len 16..19
      uint64_t a, b, tail;
      std::memcpy(&a, s, 8);
      std::memcpy(&b, s + 8, 8);
      std::memcpy(&tail, s + len - 8, 8);
      const uint32_t extra = len - 16;  // leading characters past the first eight: 0..3
      b &= (uint64_t{1} << (8 * extra)) - 1;
      if (len == n && a == head[0] && b == head[1]) {
        const int64_t low = eight_digits(tail);
        const uint64_t v = value * 100000000ull + static_cast<uint64_t>(low);
        if (low >= 0 && v <= static_cast<uint64_t>(INT64_MAX)) {
          out = static_cast<int64_t>(v);
          return true;
        }
      }
      if (!digits_value(s, len, out)) return false;
      head[0] = a;
      head[1] = b;
      n = len;
      value = static_cast<uint64_t>(out) / 100000000ull;
      return true;
    }
  };
  static constexpr size_t kLeadCached = 4;  // the first columns (where readers put the times)
  mutable LeadingDigits lead_[kLeadCached];

  std::vector<Value> values_;
  std::unique_ptr<PageScanner> pages_;  // direct path
  Statement stmt_;                      // fallback path
  std::string fallback_reason_;
  sqlite3* db_ = nullptr;                // for the rare conversions (TEXT -> number, REAL -> TEXT)
  mutable sqlite3_stmt* convert_ = nullptr;
  mutable std::vector<std::string> scratch_;
};

class Db {
 public:
  // Opens read-only and immutable; throws InputError when the file is not a readable SQLite DB.
  static Db open(const std::string& path);
  Db(Db&& o) noexcept;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db();

  const std::string& path() const { return path_; }
  bool has_table(std::string_view name) const;
  const std::vector<std::string>& tables() const { return tables_; }
  // Column names of a table in declaration order (empty when the table does not exist).
  std::vector<std::string> columns(std::string_view table) const;
  // place is used in error messages ("table NVTX_EVENTS").
  Statement prepare(std::string_view sql, std::string_view place) const;
  // Runs a query returning one integer (COUNT(*), MAX(id) ...); `fallback` when NULL or no row.
  int64_t scalar(std::string_view sql, std::string_view place, int64_t fallback = 0) const;
  // `SELECT columns FROM table [WHERE rowid BETWEEN lo AND hi]`, read from the table pages
  // directly when the file allows it (see TableScan). place is used in error messages.
  TableScan scan(std::string_view table, const std::vector<std::string>& columns, std::string_view place,
                 RowidRange range = {}) const;
  // Forces the prepared-statement path for every scan (tests compare both paths).
  void set_direct_scans(bool on) { direct_scans_ = on; }

 private:
  Db() = default;
  // The file opened for direct scans (nullptr until the first scan; `image_checked_` then).
  const FileImage* image() const;

  sqlite3* db_ = nullptr;
  std::string path_;
  std::vector<std::string> tables_;
  bool direct_scans_ = true;
  mutable std::shared_ptr<const FileImage> image_;
  mutable std::string image_problem_;  // why the file cannot be read directly ("" = fine)
  mutable bool image_checked_ = false;
};

// Which profiler wrote a database, from its tables: "nsys" (StringIds), "ascend" (STRING_IDS with
// PYTORCH_API, CANN_API or API), or "" when it cannot be opened or is neither.
std::string_view profiler_db_kind(const std::string& path);

// Index of `name` in `cols`, or -1.
int find_column(const std::vector<std::string>& cols, std::string_view name);
// SQL identifier quoting for names that come from the schema itself (never from the user).
std::string quote_identifier(std::string_view name);

}  // namespace flamefold::sqlite
