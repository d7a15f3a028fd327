#include "flamefold/readers/sqlite/sqlite_db.h"

#include <sys/stat.h>

#include <cctype>
#include <charconv>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "flamefold/errors.h"
#include "flamefold/readers/sqlite/sqlite_pages.h"

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

Db::Db(Db&& o) noexcept
    : db_(o.db_),
      path_(std::move(o.path_)),
      tables_(std::move(o.tables_)),
      direct_scans_(o.direct_scans_),
      image_(std::move(o.image_)),
      image_problem_(std::move(o.image_problem_)),
      image_checked_(o.image_checked_) {
  o.db_ = nullptr;
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

// ---- TableScan ------------------------------------------------------------------------

TableScan::TableScan() = default;
TableScan::TableScan(TableScan&& o) noexcept { *this = std::move(o); }
TableScan& TableScan::operator=(TableScan&& o) noexcept {
  if (this != &o) {
    if (convert_) sqlite3_finalize(convert_);
    values_ = std::move(o.values_);
    pages_ = std::move(o.pages_);
    stmt_ = std::move(o.stmt_);
    fallback_reason_ = std::move(o.fallback_reason_);
    db_ = o.db_;
    convert_ = o.convert_;
    o.convert_ = nullptr;
    scratch_ = std::move(o.scratch_);
  }
  return *this;
}
TableScan::~TableScan() {
  if (convert_) sqlite3_finalize(convert_);
}

void TableScan::restart(RowidRange range) {
  if (!pages_) throw std::logic_error("TableScan::restart on a scan through SQLite's API");
  pages_->restart(range.lo, range.hi);
}

bool TableScan::step() {
  if (pages_) return pages_->next(values_.data());
  if (!stmt_.step()) return false;
  sqlite3_stmt* st = stmt_.handle();
  for (size_t c = 0; c < values_.size(); ++c) {
    Value& v = values_[c];
    const int col = static_cast<int>(c);
    v.type = sqlite3_column_type(st, col);
    switch (v.type) {
      case SQLITE_INTEGER: v.i = sqlite3_column_int64(st, col); break;
      case SQLITE_FLOAT: v.f = sqlite3_column_double(st, col); break;
      case SQLITE_TEXT:
        v.s = reinterpret_cast<const char*>(sqlite3_column_text(st, col));
        v.n = static_cast<uint32_t>(sqlite3_column_bytes(st, col));
        break;
      case SQLITE_BLOB:
        v.s = static_cast<const char*>(sqlite3_column_blob(st, col));
        v.n = static_cast<uint32_t>(sqlite3_column_bytes(st, col));
        break;
      default: break;
    }
  }
  return true;
}

// `SELECT ?1` on the scan's connection: binding a value and reading it back as another type
// converts exactly as sqlite3_column_* converts a column value.
sqlite3_stmt* TableScan::converter() const {
  if (!convert_ && sqlite3_prepare_v2(db_, "SELECT ?1", -1, &convert_, nullptr) != SQLITE_OK) convert_ = nullptr;
  return convert_;
}

namespace {
// Binds v (TEXT, BLOB or REAL) to the converter and steps it; false if that failed.
bool convert_bind(sqlite3_stmt* c, const Value& v) {
  if (!c) return false;
  sqlite3_reset(c);
  int rc = v.type == SQLITE_FLOAT  ? sqlite3_bind_double(c, 1, v.f)
           : v.type == SQLITE_BLOB ? sqlite3_bind_blob(c, 1, v.s, static_cast<int>(v.n), SQLITE_STATIC)
                                   : sqlite3_bind_text(c, 1, v.s, static_cast<int>(v.n), SQLITE_STATIC);
  return rc == SQLITE_OK && sqlite3_step(c) == SQLITE_ROW;
}
}  // namespace

int64_t TableScan::i64_slow(const Value& v) const {
  if (v.type == SQLITE_FLOAT) {
    // SQLite's REAL -> INTEGER: saturating, truncating toward zero.
    if (!(v.f == v.f)) return 0;
    if (v.f <= -9223372036854775808.0) return INT64_MIN;
    if (v.f >= 9223372036854775807.0) return INT64_MAX;
    return static_cast<int64_t>(v.f);
  }
  if (v.type != SQLITE_TEXT && v.type != SQLITE_BLOB) return 0;
  int64_t x;
  if (digits_value(v.s, v.n, x)) return x;  // plain digits (TEXT timestamps), the common case
  sqlite3_stmt* c = converter();
  int64_t r = convert_bind(c, v) ? sqlite3_column_int64(c, 0) : 0;
  if (c) sqlite3_reset(c);
  return r;
}

double TableScan::f64_slow(const Value& v) const {
  if (v.type != SQLITE_TEXT && v.type != SQLITE_BLOB) return 0.0;
  sqlite3_stmt* c = converter();
  double r = convert_bind(c, v) ? sqlite3_column_double(c, 0) : 0.0;
  if (c) sqlite3_reset(c);
  return r;
}

std::string_view TableScan::text_slow(int col) const {
  const Value& v = values_[col];
  if (scratch_.size() < values_.size()) scratch_.resize(values_.size());
  std::string& out = scratch_[col];
  out.clear();
  if (v.type == SQLITE_INTEGER) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v.i);
    out.assign(buf, r.ptr);
  } else if (v.type == SQLITE_FLOAT) {
    sqlite3_stmt* c = converter();
    if (convert_bind(c, v)) {
      const unsigned char* t = sqlite3_column_text(c, 0);
      if (t) out.assign(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(c, 0)));
    }
    if (c) sqlite3_reset(c);
  }
  return out;
}

const FileImage* Db::image() const {
  if (!image_checked_) {
    image_checked_ = true;
    image_ = FileImage::open(path_, image_problem_);
  }
  return image_.get();
}

namespace {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

bool has_ci(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return false;
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i)
    if (iequals(hay.substr(i, needle.size()), needle)) return true;
  return false;
}

bool is_rowid_name(std::string_view n) { return iequals(n, "rowid") || iequals(n, "oid") || iequals(n, "_rowid_"); }

struct SchemaColumn {
  std::string name, type;
  bool has_default = false;
  int pk = 0, hidden = 0;
};

}  // namespace

TableScan Db::scan(std::string_view table, const std::vector<std::string>& columns, std::string_view place,
                   RowidRange range) const {
  TableScan s;
  s.db_ = db_;
  s.values_.resize(columns.size());
  const std::string place_s(place);
  std::vector<SchemaColumn> schema;
  {
    Statement x = prepare("SELECT name, type, dflt_value IS NOT NULL, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid",
                          place_s);
    x.bind(1, table);
    while (x.step())
      schema.push_back(SchemaColumn{std::string(x.text(0)), std::string(x.text(1)), x.i64(2) != 0,
                                    static_cast<int>(x.i64(3)), static_cast<int>(x.i64(4))});
  }
  auto find = [&](std::string_view name) -> int {
    for (size_t i = 0; i < schema.size(); ++i)
      if (schema[i].name == name) return static_cast<int>(i);
    for (size_t i = 0; i < schema.size(); ++i)
      if (iequals(schema[i].name, name)) return static_cast<int>(i);
    return -1;
  };

  // Can the pages be read directly? Any doubt: the prepared-statement path.
  std::string why;
  uint32_t root = 0;
  std::vector<ColumnSource> sources(columns.size());
  if (!direct_scans_) why = "direct scans turned off";
  else if (!has_table(table)) why = "not a table";
  else if (!image()) why = image_problem_;
  if (why.empty()) {
    Statement r = prepare("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?", place_s);
    r.bind(1, table);
    int64_t rp = r.step() && !r.is_null(0) ? r.i64(0) : 0;
    int type = rp > 0 && rp <= image_->pages ? PageScanner::root_type(*image_, static_cast<uint32_t>(rp)) : -1;
    if (rp <= 0) why = "virtual table";
    else if (type == 0x02 || type == 0x0A) why = "WITHOUT ROWID table";
    else if (type != 0x05 && type != 0x0D) why = "root page is not a table b-tree page";
    root = static_cast<uint32_t>(rp);
  }
  if (why.empty()) {
    int pk_columns = 0;
    for (const SchemaColumn& c : schema) {
      if (c.hidden != 0) why = "generated or hidden columns";
      if (c.pk > 0) ++pk_columns;
    }
    for (size_t k = 0; k < columns.size() && why.empty(); ++k) {
      int i = columns[k].empty() ? -1 : find(columns[k]);
      ColumnSource& src = sources[k];
      if (i < 0) {
        src.kind = !columns[k].empty() && is_rowid_name(columns[k]) ? ColumnSource::kRowid : ColumnSource::kNull;
        continue;
      }
      const SchemaColumn& c = schema[static_cast<size_t>(i)];
      if (c.has_default) {
        // Rows written before an ADD COLUMN read the default, which SQLite evaluates.
        why = "column " + c.name + " has a DEFAULT";
        break;
      }
      src.kind = ColumnSource::kRecord;
      src.record_index = static_cast<uint32_t>(i);
      src.real_affinity = !has_ci(c.type, "int") && !has_ci(c.type, "char") && !has_ci(c.type, "clob") &&
                          !has_ci(c.type, "text") && !has_ci(c.type, "blob") &&
                          (has_ci(c.type, "real") || has_ci(c.type, "floa") || has_ci(c.type, "doub"));
      if (c.pk == 1 && pk_columns == 1 && iequals(c.type, "INTEGER")) {
        // Probably the rowid's alias (stored as NULL in the record); `INTEGER PRIMARY KEY DESC`
        // is not one. SQLite's own plan says which: Rowid for an alias, Column otherwise.
        Statement e = prepare("EXPLAIN SELECT " + quote_identifier(c.name) + " FROM " + quote_identifier(table), place_s);
        bool rowid_op = false, column_op = false;
        while (e.step()) {
          std::string_view op = e.text(1);
          if (op == "Rowid" || op == "IdxRowid") rowid_op = true;
          if (op == "Column") column_op = true;
        }
        if (rowid_op && !column_op) src.kind = ColumnSource::kRowid;
      }
    }
  }
  if (why.empty()) {
    s.pages_ = std::make_unique<PageScanner>(image_, path_, root, std::string(table), std::move(sources), range.lo, range.hi);
    return s;
  }
  s.fallback_reason_ = why;
  std::string sql = "SELECT ";
  for (size_t k = 0; k < columns.size(); ++k) {
    if (k) sql += ", ";
    bool known = !columns[k].empty() && (find(columns[k]) >= 0 || is_rowid_name(columns[k]));
    sql += known ? quote_identifier(columns[k]) : std::string("NULL");
  }
  if (columns.empty()) sql += "NULL";
  sql += " FROM " + quote_identifier(table);
  const bool ranged = range.lo != INT64_MIN || range.hi != INT64_MAX;
  if (ranged) {
    const char* rowid = find("rowid") < 0 ? "rowid" : find("_rowid_") < 0 ? "_rowid_" : "oid";
    sql += std::string(" WHERE ") + rowid + " BETWEEN ? AND ?";
  }
  s.stmt_ = prepare(sql, place);
  if (ranged) {
    s.stmt_.bind(1, range.lo);
    s.stmt_.bind(2, range.hi);
  }
  return s;
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
