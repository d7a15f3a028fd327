#include "flamefold/readers/sqlite_db.h"

#include <sys/stat.h>

#include <cstring>
#include <fstream>

#include "flamefold/errors.h"

namespace flamefold::sqlite {

namespace {

// URI-escape a path so '?', '#' and '%' in file names survive `file:` URIs.
std::string uri_for(const std::string& path) {
  std::string uri = "file:";
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x20) {
      static const char* hex = "0123456789ABCDEF";
      uri += '%';
      uri += hex[c >> 4];
      uri += hex[c & 15];
    } else {
      uri += static_cast<char>(c);
    }
  }
  uri += "?mode=ro&immutable=1";
  return uri;
}

[[noreturn]] void fail(sqlite3* db, const std::string& file, const std::string& place, const std::string& what) {
  std::string msg = what;
  if (db) {
    msg += ": ";
    msg += sqlite3_errmsg(db);
  }
  throw InputError(file, place, msg);
}

}  // namespace

Statement& Statement::operator=(Statement&& o) noexcept {
  if (this != &o) {
    if (stmt_) sqlite3_finalize(stmt_);
    stmt_ = o.stmt_;
    o.stmt_ = nullptr;
    file_ = std::move(o.file_);
    place_ = std::move(o.place_);
  }
  return *this;
}

Statement::~Statement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

void Statement::bind(int index, int64_t v) {
  if (sqlite3_bind_int64(stmt_, index, v) != SQLITE_OK) fail(sqlite3_db_handle(stmt_), file_, place_, "cannot bind a parameter");
}

void Statement::bind(int index, std::string_view v) {
  if (sqlite3_bind_text(stmt_, index, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT) != SQLITE_OK)
    fail(sqlite3_db_handle(stmt_), file_, place_, "cannot bind a parameter");
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(sqlite3_db_handle(stmt_), file_, place_, "cannot read the database (damaged or truncated?)");
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Db Db::open(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(path, "", "is a directory, not a database file");
  if (!S_ISREG(st.st_mode)) throw InputError(path, "", "is not a regular file");
  {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw InputError(path, "", std::string("cannot read: ") + std::strerror(errno));
    char header[16] = {};
    f.read(header, 16);
    if (f.gcount() < 16 || std::memcmp(header, "SQLite format 3\0", 16) != 0)
      throw InputError(path, "byte 0", "not an SQLite database (no 'SQLite format 3' header)");
  }
  Db d;
  d.path_ = path;
  int rc = sqlite3_open_v2(uri_for(path).c_str(), &d.db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) fail(d.db_, path, "", "cannot open the database");
  // Memory-mapped reads and a larger page cache: the readers scan whole tables once.
  sqlite3_exec(d.db_, "PRAGMA mmap_size = 68719476736; PRAGMA cache_size = -65536;", nullptr, nullptr, nullptr);
  Statement s = d.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", "sqlite_master");
  while (s.step()) d.tables_.emplace_back(s.text(0));
  return d;
}

Db::~Db() {
  if (db_) sqlite3_close_v2(db_);
}

bool Db::has_table(std::string_view name) const {
  for (const std::string& t : tables_)
    if (t == name) return true;
  return false;
}

std::vector<std::string> Db::columns(std::string_view table) const {
  std::vector<std::string> cols;
  if (!has_table(table)) return cols;
  Statement s = prepare("SELECT name FROM pragma_table_info(?) ORDER BY cid", "table " + std::string(table));
  s.bind(1, table);
  while (s.step()) cols.emplace_back(s.text(0));
  return cols;
}

Statement Db::prepare(std::string_view sql, std::string_view place) const {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    if (stmt) sqlite3_finalize(stmt);
    fail(db_, path_, std::string(place), "cannot query the database");
  }
  return Statement(stmt, path_, std::string(place));
}

int64_t Db::scalar(std::string_view sql, std::string_view place, int64_t fallback) const {
  Statement s = prepare(sql, place);
  if (!s.step() || s.is_null(0)) return fallback;
  return s.i64(0);
}

std::string_view profiler_db_kind(const std::string& path) {
  try {
    Db db = Db::open(path);
    if (db.has_table("StringIds")) return "nsys";
    if (db.has_table("STRING_IDS") && (db.has_table("PYTORCH_API") || db.has_table("CANN_API") || db.has_table("API")))
      return "ascend";
  } catch (const InputError&) {
  }
  return "";
}

int find_column(const std::vector<std::string>& cols, std::string_view name) {
  for (size_t i = 0; i < cols.size(); ++i)
    if (cols[i] == name) return static_cast<int>(i);
  return -1;
}

std::string quote_identifier(std::string_view name) {
  std::string q = "\"";
  for (char c : name) {
    if (c == '"') q += '"';
    q += c;
  }
  q += '"';
  return q;
}

}  // namespace flamefold::sqlite
