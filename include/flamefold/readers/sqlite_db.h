// A thin read-only SQLite layer for the profiler-database readers (nsys, Ascend): opens
// with `file:...?mode=ro&immutable=1`, prepared statements with bound parameters only,
// table/column introspection. Every SQLite failure becomes an InputError naming the file.
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace flamefold::sqlite {

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
    if (t == SQLITE_TEXT) {
      // Digits only (torch_npu's TEXT startNs/endNs): parsed here, in one pass.
      const unsigned char* p = sqlite3_column_text(stmt_, col);
      int n = sqlite3_column_bytes(stmt_, col);
      if (n > 0 && n <= 18) {
        uint64_t v = 0;
        int i = 0;
        for (; i < n && p[i] >= '0' && p[i] <= '9'; ++i) v = v * 10 + (p[i] - '0');
        if (i == n) return static_cast<int64_t>(v);
      } else if (n == 19) {
        uint64_t v = 0;
        int i = 0;
        for (; i < n && p[i] >= '0' && p[i] <= '9'; ++i) v = v * 10 + (p[i] - '0');
        if (i == n && v <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(v);
      }
    }
    double d = sqlite3_column_double(stmt_, col);  // REAL, float-notation TEXT, negative ...
    return static_cast<int64_t>(d + (d < 0 ? -0.5 : 0.5));
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

class Db {
 public:
  // Opens read-only and immutable; throws InputError when the file is not a readable SQLite DB.
  static Db open(const std::string& path);
  Db(Db&& o) noexcept : db_(o.db_), path_(std::move(o.path_)), tables_(std::move(o.tables_)) { o.db_ = nullptr; }
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

 private:
  Db() = default;
  sqlite3* db_ = nullptr;
  std::string path_;
  std::vector<std::string> tables_;
};

// Which profiler wrote a database, from its tables: "nsys" (StringIds), "ascend" (STRING_IDS with
// PYTORCH_API, CANN_API or API), or "" when it cannot be opened or is neither.
std::string_view profiler_db_kind(const std::string& path);

// Index of `name` in `cols`, or -1.
int find_column(const std::vector<std::string>& cols, std::string_view name);
// SQL identifier quoting for names that come from the schema itself (never from the user).
std::string quote_identifier(std::string_view name);

}  // namespace flamefold::sqlite
