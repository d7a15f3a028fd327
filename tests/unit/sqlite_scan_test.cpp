// TableScan: the direct table-page reader must give exactly what `SELECT cols FROM t` gives
// through the SQLite API (every accessor, every row), fall back to the API where it cannot be
// trusted, and turn damaged pages into an InputError, never a crash or a hang.
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "flamefold/errors.h"
#include "flamefold/readers/sqlite/sqlite_db.h"
#include "sqlite_fixture.h"
#include "test_support.h"

using namespace flamefold;

namespace {

// Creates tmp_path(name) with `pragmas` run before anything is written (page size, reserved
// bytes), then `sql` in one transaction. reserve < 0: leave the reserved bytes alone.
std::string make_file(const std::string& name, const std::string& pragmas, const std::string& sql, int reserve = -1) {
  std::string path = test::tmp_path(name);
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  if (reserve >= 0) sqlite3_file_control(db, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve);
  char* err = nullptr;
  std::string script = pragmas + "; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;" + sql + ";COMMIT;";
  EXPECT_EQ(sqlite3_exec(db, script.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
  return path;
}

bool same_double(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Scans `table` both ways and compares every accessor of every column of every row. Returns
// the number of rows; `direct` says whether the fast path is expected to serve the scan.
size_t compare_scans(const std::string& path, const std::string& table, const std::vector<std::string>& cols,
                     bool direct, sqlite::RowidRange range = {}) {
  sqlite::Db fast = sqlite::Db::open(path);
  sqlite::Db slow = sqlite::Db::open(path);
  slow.set_direct_scans(false);
  sqlite::TableScan a = fast.scan(table, cols, "table " + table, range);
  sqlite::TableScan b = slow.scan(table, cols, "table " + table, range);
  EXPECT_EQ(a.direct(), direct) << table << ": " << a.fallback_reason();
  EXPECT_FALSE(b.direct());
  size_t rows = 0;
  for (;;) {
    bool more_a = a.step(), more_b = b.step();
    EXPECT_EQ(more_a, more_b) << table << " row " << rows;
    if (!more_a || !more_b) break;
    for (int c = 0; c < static_cast<int>(cols.size()); ++c) {
      SCOPED_TRACE(table + " row " + std::to_string(rows) + " column " + cols[c]);
      EXPECT_EQ(a.type(c), b.type(c));
      EXPECT_EQ(a.is_null(c), b.is_null(c));
      EXPECT_EQ(a.i64(c), b.i64(c));
      EXPECT_EQ(a.i64_or(c, -42), b.i64_or(c, -42));
      EXPECT_TRUE(same_double(a.f64(c), b.f64(c))) << a.f64(c) << " vs " << b.f64(c);
      EXPECT_EQ(a.time_ns(c), b.time_ns(c));
      EXPECT_EQ(a.text(c), b.text(c));
    }
    ++rows;
  }
  return rows;
}

// Values of every serial type (0-9, text, blob), negative numbers, text that converts.
const char* kTypes = R"(
CREATE TABLE t(i INTEGER, r REAL, s TEXT, b BLOB, any, n NUMERIC);
INSERT INTO t VALUES (NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO t VALUES (0, 0.0, '', x'', 1, 0);
INSERT INTO t VALUES (1, 1.0, 'a', x'00', -1, 1);
INSERT INTO t VALUES (127, -128, '12', x'0102', -128, '12');
INSERT INTO t VALUES (128, 32767, '  12', x'ff', 32767, '1.5');
INSERT INTO t VALUES (-129, -32769, '-7abc', x'3132', -32768, ' 7');
INSERT INTO t VALUES (8388607, -8388608, '99999999999999999999', NULL, 8388608, 'x');
INSERT INTO t VALUES (2147483647, -2147483648, '1736407067942010500', NULL, -2147483649, 2147483648);
INSERT INTO t VALUES (140737488355327, -140737488355328, '1.23282223627722e+17', 1.5, 140737488355328, -140737488355329);
INSERT INTO t VALUES (9223372036854775807, -9223372036854775808, '9223372036854775807', 'text', 9223372036854775807, 1e300);
INSERT INTO t VALUES (-9223372036854775808, 3.0, '9223372036854775808', 2.5, -9223372036854775808, -0.0);
INSERT INTO t VALUES (1.5, 1e300, '-12', 7, 0.1, 5.0);
INSERT INTO t VALUES (-2.5, -1e-300, 'abc', 'x', 'abc', '0x10');
INSERT INTO t VALUES ('77', '3.25', '1e3', -3, -9.75, 1);
INSERT INTO t VALUES (NULL, 12345678901234, '00000000000000000012', NULL, x'e282ac', NULL);
INSERT INTO t VALUES (4294967296, 1.0e19, '0.5', NULL, 281474976710656, 4294967295);
INSERT INTO t SELECT 1, 2, replace(hex(zeroblob(50000)), '0', 'x'), zeroblob(70000), replace(hex(zeroblob(3000)), '00', 'yz'), NULL;
INSERT INTO t SELECT 2, 3, 'short', NULL, replace(hex(zeroblob(700)), '0', 'q'), 1;
)";

const std::vector<std::string> kTypeColumns = {"i", "r", "s", "b", "any", "n", "rowid", "missing", "S", "i"};

}  // namespace

TEST(SqliteScan, EverySerialTypeReadsAsTheApiReadsIt) {
  std::string path = make_file("types.db", "PRAGMA page_size=1024", kTypes);
  EXPECT_EQ(compare_scans(path, "t", kTypeColumns, true), 18u);
}

TEST(SqliteScan, PageSizes512And65536) {
  for (int size : {512, 65536}) {
    std::string path = make_file("types" + std::to_string(size) + ".db", "PRAGMA page_size=" + std::to_string(size), kTypes);
    {
      std::ifstream f(path, std::ios::binary);
      unsigned char h[18];
      f.read(reinterpret_cast<char*>(h), 18);
      EXPECT_EQ((h[16] << 8 | h[17]) == 1 ? 65536 : (h[16] << 8 | h[17]), size);
    }
    EXPECT_EQ(compare_scans(path, "t", kTypeColumns, true), 18u) << "page size " << size;
  }
}

TEST(SqliteScan, ReservedBytesAtThePageEnd) {
  std::string path = make_file("reserved.db", "PRAGMA page_size=1024", kTypes, 32);
  unsigned char h[21];
  std::ifstream(path, std::ios::binary).read(reinterpret_cast<char*>(h), 21);
  if (h[20] != 32) GTEST_SKIP() << "this SQLite cannot set reserved bytes (SQLITE_FCNTL_RESERVE_BYTES)";
  EXPECT_EQ(compare_scans(path, "t", kTypeColumns, true), 18u);
}

// 30,000 rows on 512-byte pages: a root, a level of interior pages, then the leaves.
const char* kBig = R"(
CREATE TABLE big(a INTEGER, b TEXT, c REAL);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 30000)
INSERT INTO big SELECT x * 7 - 100000, 'row' || x, x / 3.0 FROM n;
DELETE FROM big WHERE rowid % 97 = 0;
)";

TEST(SqliteScan, ThreeLevelTreeAndRowidRanges) {
  std::string path = make_file("big.db", "PRAGMA page_size=512", kBig);
  {
    // The root is an interior page whose first child is interior too.
    sqlite::Db db = sqlite::Db::open(path);
    int64_t root = db.scalar("SELECT rootpage FROM sqlite_master WHERE name = 'big'", "test");
    std::string bytes = test::read_file(path);
    const unsigned char* page = reinterpret_cast<const unsigned char*>(bytes.data()) + (root - 1) * 512;
    ASSERT_EQ(page[0], 0x05);
    uint32_t off = (page[12] << 8) | page[13];
    uint32_t child = (page[off] << 24) | (page[off + 1] << 16) | (page[off + 2] << 8) | page[off + 3];
    EXPECT_EQ(static_cast<unsigned char>(bytes[(child - 1) * 512]), 0x05) << "expected a 3-level b-tree";
  }
  const std::vector<std::string> cols = {"a", "b", "c", "rowid"};
  EXPECT_EQ(compare_scans(path, "big", cols, true), 30000u - 30000 / 97);
  std::mt19937 rng(7);
  for (int k = 0; k < 20; ++k) {
    int64_t lo = static_cast<int64_t>(rng() % 31000), hi = lo + static_cast<int64_t>(rng() % 5000);
    compare_scans(path, "big", cols, true, {lo, hi});
  }
  EXPECT_EQ(compare_scans(path, "big", cols, true, {97, 97}), 0u);  // deleted
  EXPECT_EQ(compare_scans(path, "big", cols, true, {98, 98}), 1u);
  EXPECT_EQ(compare_scans(path, "big", cols, true, {40000, INT64_MAX}), 0u);
  EXPECT_EQ(compare_scans(path, "big", cols, true, {INT64_MIN, 0}), 0u);
  EXPECT_EQ(compare_scans(path, "big", cols, true, {15000, 14000}), 0u);
  // Two halves give the whole table, in order.
  size_t lower = compare_scans(path, "big", cols, true, {INT64_MIN, 15000});
  size_t upper = compare_scans(path, "big", cols, true, {15001, INT64_MAX});
  EXPECT_EQ(lower + upper, 30000u - 30000 / 97);
}

TEST(SqliteScan, IntegerPrimaryKeyIsTheRowid) {
  std::string path = make_file("pk.db", "", R"(
CREATE TABLE k(id INTEGER PRIMARY KEY, v TEXT);
INSERT INTO k VALUES (5, 'five'), (-3, 'minus three'), (9223372036854775807, 'max');
CREATE TABLE kd(id INTEGER PRIMARY KEY DESC, v TEXT);
INSERT INTO kd VALUES (5, 'five'), (-3, 'minus three');
CREATE TABLE ki(id int primary key, v TEXT);
INSERT INTO ki VALUES (5, 'five'), (-3, 'minus three');
CREATE TABLE two(a INTEGER, b INTEGER, PRIMARY KEY(a, b));
INSERT INTO two VALUES (1, 2), (3, 4);
)");
  EXPECT_EQ(compare_scans(path, "k", {"id", "v", "rowid", "ID"}, true), 3u);
  EXPECT_EQ(compare_scans(path, "kd", {"id", "v", "rowid"}, true), 2u);
  EXPECT_EQ(compare_scans(path, "ki", {"id", "v", "rowid"}, true), 2u);
  EXPECT_EQ(compare_scans(path, "two", {"a", "b", "rowid"}, true), 2u);
}

TEST(SqliteScan, RowsWrittenBeforeAddColumnReadNull) {
  std::string path = make_file("alter.db", "", R"(
CREATE TABLE t(a INTEGER, b TEXT);
INSERT INTO t VALUES (1, 'one'), (2, 'two');
ALTER TABLE t ADD COLUMN c INTEGER;
ALTER TABLE t ADD COLUMN d TEXT;
INSERT INTO t VALUES (3, 'three', 33, 'x');
CREATE TABLE u(a INTEGER);
INSERT INTO u VALUES (1), (2);
ALTER TABLE u ADD COLUMN c INTEGER DEFAULT 7;
INSERT INTO u VALUES (3, 4);
)");
  EXPECT_EQ(compare_scans(path, "t", {"d", "a", "c", "b"}, true), 3u);
  // A DEFAULT on a selected column: SQLite evaluates it for the short rows, so the API reads.
  EXPECT_EQ(compare_scans(path, "u", {"a", "c"}, false), 3u);
  EXPECT_EQ(compare_scans(path, "u", {"a"}, true), 3u);
  sqlite::Db db = sqlite::Db::open(path);
  sqlite::TableScan s = db.scan("u", {"c"}, "table u");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.i64(0), 7);
  EXPECT_NE(s.fallback_reason().find("DEFAULT"), std::string::npos) << s.fallback_reason();
}

TEST(SqliteScan, FallsBackForWithoutRowidViewsAndGeneratedColumns) {
  std::string path = make_file("fallback.db", "", R"(
CREATE TABLE w(a INTEGER PRIMARY KEY, b TEXT) WITHOUT ROWID;
INSERT INTO w VALUES (2, 'two'), (1, 'one');
CREATE TABLE t(a INTEGER, b TEXT);
INSERT INTO t VALUES (1, 'x'), (2, 'y');
CREATE VIEW v AS SELECT a, b FROM t WHERE a > 1;
CREATE TABLE g(a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) VIRTUAL, c TEXT);
INSERT INTO g(a, c) VALUES (1, 'p'), (5, 'q');
)");
  EXPECT_EQ(compare_scans(path, "w", {"a", "b"}, false), 2u);
  EXPECT_EQ(compare_scans(path, "v", {"a", "b"}, false), 1u);
  EXPECT_EQ(compare_scans(path, "g", {"a", "b", "c"}, false), 2u);
  EXPECT_EQ(compare_scans(path, "t", {"a", "b"}, true), 2u);
  sqlite::Db db = sqlite::Db::open(path);
  EXPECT_EQ(db.scan("w", {"a"}, "table w").fallback_reason(), "WITHOUT ROWID table");
}

TEST(SqliteScan, WalFileWithContentFallsBack) {
  std::string path = test::tmp_path("wal.db");
  std::filesystem::remove(path);
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
  sqlite3* w = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &w), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(w, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(a INTEGER, b TEXT);"
                            "INSERT INTO t VALUES (1, 'one');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_wal_checkpoint_v2(w, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr), SQLITE_OK);
  {
    // WAL mode, empty -wal: the pages are the whole truth.
    sqlite::Db db = sqlite::Db::open(path);
    EXPECT_TRUE(db.scan("t", {"a"}, "table t").direct());
  }
  ASSERT_EQ(sqlite3_exec(w, "INSERT INTO t VALUES (2, 'two');", nullptr, nullptr, nullptr), SQLITE_OK);
  ASSERT_GT(std::filesystem::file_size(path + "-wal"), 0u);
  compare_scans(path, "t", {"a", "b"}, false);
  sqlite::Db db = sqlite::Db::open(path);
  EXPECT_NE(db.scan("t", {"a"}, "table t").fallback_reason().find("WAL"), std::string::npos);
  sqlite3_close(w);
}

TEST(SqliteScan, StoredNaNReadsAsNull) {
  std::string path = make_file("nan.db", "", "CREATE TABLE t(a REAL, b); INSERT INTO t VALUES (1.5, 1.5)");
  std::string bytes = test::read_file(path);
  const std::string one_and_half("\x3F\xF8\0\0\0\0\0\0", 8), nan("\x7F\xF8\0\0\0\0\0\1", 8);
  size_t at = bytes.find(one_and_half);
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 8, nan);  // SQL cannot store a NaN; a hand-edited file can
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  EXPECT_EQ(compare_scans(path, "t", {"a", "b"}, true), 1u);
  sqlite::Db db = sqlite::Db::open(path);
  sqlite::TableScan s = db.scan("t", {"a", "b"}, "table t");
  ASSERT_TRUE(s.step());
  EXPECT_TRUE(s.is_null(0));
  EXPECT_EQ(s.f64(1), 1.5);
}

// ---- damaged files ------------------------------------------------------------------------

namespace {

// Scans every column of `table` directly; returns "" when it completes, else the InputError.
std::string scan_all(const std::string& path, const std::string& table, const std::vector<std::string>& cols) {
  try {
    sqlite::Db db = sqlite::Db::open(path);
    sqlite::TableScan s = db.scan(table, cols, "table " + table);
    size_t n = 0;
    while (s.step()) {
      for (int c = 0; c < static_cast<int>(cols.size()); ++c) {
        (void)s.i64_or(c, 0);
        if (n % 64 == 0) {  // conversions that go through SQLite (REAL -> text ...) are slow: sampled
          (void)s.text(c);
          (void)s.time_ns(c);
        }
      }
      ++n;
    }
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

void write_at(const std::string& path, uint64_t offset, const std::string& bytes) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string be32(uint32_t v) {
  return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

}  // namespace

TEST(SqliteScanDamaged, TruncatedFileIsAClearError) {
  std::string good = make_file("big.db", "PRAGMA page_size=512", kBig);
  uint64_t size = std::filesystem::file_size(good);
  std::string cut = test::tmp_path("cut.db");
  std::filesystem::copy_file(good, cut, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::resize_file(cut, size / 2 + 100);  // mid-page
  // SQLite itself refuses the file while its header still counts the lost pages.
  std::string err = scan_all(cut, "big", {"a", "b", "c"});
  EXPECT_NE(err.find("cut.db:"), std::string::npos) << err;
  EXPECT_NE(err.find("malformed"), std::string::npos) << err;
  // With the header's page count marked stale (bytes 92-95 != the change counter), SQLite
  // sizes the database by the file and opens it; the scanner meets the missing pages.
  write_at(cut, 92, be32(0xDEADBEEF));
  err = scan_all(cut, "big", {"a", "b", "c"});
  EXPECT_NE(err.find("cut.db:table big page"), std::string::npos) << err;
  EXPECT_NE(err.find("beyond the end of the file"), std::string::npos) << err;
}

TEST(SqliteScanDamaged, RandomPagesAndBytesNeverCrash) {
  std::string good = make_file("big.db", "PRAGMA page_size=512", kBig);
  std::string original = test::read_file(good);
  const uint32_t pages = static_cast<uint32_t>(original.size() / 512);
  std::string bad = test::tmp_path("bad.db");
  std::mt19937 rng(12345);
  int errors = 0;
  for (int round = 0; round < 300; ++round) {
    std::string bytes = original;
    if (round % 2 == 0) {
      // A whole page (not page 1, which holds the schema) of random bytes.
      uint32_t page = 2 + rng() % (pages - 1);
      for (uint32_t k = 0; k < 512; ++k) bytes[(page - 1) * 512 + k] = static_cast<char>(rng());
    } else {
      // A handful of random bytes anywhere after the schema page.
      for (int k = 0; k < 8; ++k) bytes[512 + rng() % (bytes.size() - 512)] = static_cast<char>(rng());
    }
    std::ofstream(bad, std::ios::binary | std::ios::trunc) << bytes;
    std::string err = scan_all(bad, "big", {"a", "b", "c", "rowid"});
    if (!err.empty()) {
      ++errors;
      EXPECT_NE(err.find("bad.db:table big page"), std::string::npos) << err;
    }
  }
  EXPECT_GT(errors, 100);  // whole random pages are almost always caught
}

TEST(SqliteScanDamaged, RandomBytesInRecordsAndOverflowPagesNeverCrash) {
  // Every serial type, long text and blobs on overflow pages: damage lands in record headers,
  // varints and chains rather than in b-tree headers.
  std::string good = make_file("types.db", "PRAGMA page_size=1024", kTypes);
  std::string original = test::read_file(good);
  std::string bad = test::tmp_path("bad.db");
  std::mt19937 rng(99);
  for (int round = 0; round < 400; ++round) {
    std::string bytes = original;
    for (int k = 0; k < 1 + round % 6; ++k) bytes[1024 + rng() % (bytes.size() - 1024)] = static_cast<char>(rng());
    std::ofstream(bad, std::ios::binary | std::ios::trunc) << bytes;
    std::string err = scan_all(bad, "t", kTypeColumns);
    if (!err.empty()) EXPECT_NE(err.find("bad.db:"), std::string::npos) << err;
  }
}

TEST(SqliteScanDamaged, OverflowChainLoopIsAClearError) {
  std::string path = make_file("overflow.db", "PRAGMA page_size=1024",
                               "CREATE TABLE t(a INTEGER, s TEXT); INSERT INTO t VALUES (1, replace(hex(zeroblob(10000)), '0', 'A'))");
  EXPECT_EQ(scan_all(path, "t", {"a", "s"}), "");
  EXPECT_EQ(compare_scans(path, "t", {"a", "s"}, true), 1u);
  // Overflow pages hold a next-page number, then the text: point one at itself.
  std::string bytes = test::read_file(path);
  uint32_t victim = 0;
  for (uint32_t p = 3; p * 1024 <= bytes.size() && !victim; ++p)
    if (bytes.compare((p - 1) * 1024 + 4, 8, "AAAAAAAA") == 0) victim = p;
  ASSERT_NE(victim, 0u);
  write_at(path, (victim - 1) * 1024ull, be32(victim));
  std::string err = scan_all(path, "t", {"a", "s"});
  EXPECT_NE(err.find("overflow chain loops"), std::string::npos) << err;
  // A chain that ends early, and one that leaves the file.
  write_at(path, (victim - 1) * 1024ull, be32(0));
  EXPECT_NE(scan_all(path, "t", {"a", "s"}).find("ends before its record does"), std::string::npos);
  write_at(path, (victim - 1) * 1024ull, be32(999999));
  EXPECT_NE(scan_all(path, "t", {"a", "s"}).find("beyond the end of the file"), std::string::npos);
}

// A cell whose record is empty, at the very end of the file's last page: nothing past it may be
// read (the file ends there), and the scan reports the record.
TEST(SqliteScanDamaged, EmptyRecordAtTheEndOfTheFileIsAClearError) {
  std::string path = make_file("tail.db", "PRAGMA page_size=4096",
                               "CREATE TABLE t(a INTEGER, b INTEGER); INSERT INTO t VALUES (1, 2), (3, 4)");
  ASSERT_EQ(std::filesystem::file_size(path), 2u * 4096);  // the schema, then t's only (leaf) page
  EXPECT_EQ(scan_all(path, "t", {"a", "b"}), "");
  // Cell 0's pointer (bytes 8-9 of the leaf page) to the page's last two bytes: a payload size
  // of 0 and rowid 1, its (empty) record ending where the file does.
  write_at(path, 4096 + 8, std::string{static_cast<char>(0x0F), static_cast<char>(0xFE)});
  write_at(path, 4096 + 4094, std::string{'\0', '\1'});
  std::string err = scan_all(path, "t", {"a", "b"});
  EXPECT_NE(err.find("tail.db:table t page 2"), std::string::npos) << err;
  EXPECT_NE(err.find("record header"), std::string::npos) << err;
}

TEST(SqliteScanDamaged, TreeLoopIsAClearError) {
  std::string path = make_file("big.db", "PRAGMA page_size=512", kBig);
  sqlite::Db db = sqlite::Db::open(path);
  uint32_t root = static_cast<uint32_t>(db.scalar("SELECT rootpage FROM sqlite_master WHERE name = 'big'", "test"));
  // The root's right-most pointer (bytes 8-11 of its header) back to the root itself.
  write_at(path, (root - 1) * 512ull + 8, be32(root));
  std::string err = scan_all(path, "big", {"a"});
  EXPECT_NE(err.find("reached twice"), std::string::npos) << err;
}

// Pages are read a stretch at a time, as far as the parent's next children follow one another
// in the file: two tables written row by row in turn have their leaves interleaved (stretches
// of one page), a table written alone has long ones; both read as the API reads them.
TEST(SqliteScan, InterleavedAndContiguousLeavesReadTheSame) {
  std::string path = make_file("interleaved.db", "PRAGMA page_size=512", R"(
CREATE TABLE a(v INTEGER, s TEXT); CREATE TABLE b(v INTEGER, s TEXT); CREATE TABLE c(v INTEGER, s TEXT);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3000)
  SELECT count(*) FROM n;
)");
  {
    // Alternate inserts: each table's next leaf is allocated after the other's.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    std::string sql = "BEGIN;";
    for (int i = 0; i < 3000; ++i) {
      std::string row = std::to_string(i) + ", '" + std::string(40 + i % 50, static_cast<char>('a' + i % 26)) + "'";
      sql += "INSERT INTO a VALUES (" + row + "); INSERT INTO b VALUES (-" + row + ");";
    }
    sql += "INSERT INTO c SELECT v * 3, s || s FROM a; COMMIT;";
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  EXPECT_EQ(compare_scans(path, "a", {"v", "s", "rowid"}, true), 3000u);
  EXPECT_EQ(compare_scans(path, "b", {"v", "s", "rowid"}, true), 3000u);
  EXPECT_EQ(compare_scans(path, "c", {"v", "s", "rowid"}, true), 3000u);
  EXPECT_EQ(compare_scans(path, "a", {"s", "v"}, true, {1000, 2000}), 1001u);
}

// The scan's memory stays flat however big the table: pages are read into a small window, not
// mapped (a mapping keeps every page it touched resident until it is handed back).
TEST(SqliteScan, ReadingABigTableKeepsMemoryFlat) {
  std::string path = make_file("big_table.db", "PRAGMA page_size=4096", R"(
CREATE TABLE t(v INTEGER, s TEXT);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 200000)
  INSERT INTO t SELECT x, printf('%0120d', x) FROM n;
)");
  ASSERT_GT(std::filesystem::file_size(path), 25u << 20);
  auto rss_kb = [] {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return 0L;
  };
  sqlite::Db db = sqlite::Db::open(path);
  sqlite::TableScan scan = db.scan("t", {"v", "s"}, "table t");
  ASSERT_TRUE(scan.direct());
  const long before = rss_kb();
  int64_t rows = 0, sum = 0;
  while (scan.step()) {
    sum += scan.i64(0);
    ++rows;
  }
  const long grown = rss_kb() - before;
  EXPECT_EQ(rows, 200000);
  EXPECT_EQ(sum, int64_t{200000} * 200001 / 2);
  EXPECT_LT(grown, 6L << 10) << "KB";
}

// Every table of every real profiler DB reads the same through both paths.
TEST(SqliteScanReal, EveryTableOfTheRealDatabasesMatchesTheApi) {
  REQUIRE_SHARED("data");
  size_t files = 0, tables = 0, rows = 0;
  for (const char* dir : {"data/ascend", "data/nsys"}) {
    if (!std::filesystem::exists(shared_path + dir)) continue;
    for (const auto& e : std::filesystem::recursive_directory_iterator(shared_path + dir)) {
      std::string p = e.path().string();
      if (!e.is_regular_file() || (e.path().extension() != ".db" && e.path().extension() != ".sqlite")) continue;
      ++files;
      sqlite::Db db = sqlite::Db::open(p);
      for (const std::string& t : db.tables()) {
        std::vector<std::string> cols = db.columns(t);
        cols.push_back("rowid");
        sqlite::TableScan probe = db.scan(t, cols, "table " + t);
        SCOPED_TRACE(p + " " + t);
        rows += compare_scans(p, t, cols, probe.direct());
        ++tables;
      }
    }
  }
  EXPECT_GT(files, 0u);
  EXPECT_GT(rows, 0u);
  std::printf("compared %zu rows in %zu tables of %zu files\n", rows, tables, files);
}

TEST(SqliteTimes, RealTimesRoundToNanosecondsAndNonsenseIsNoTime) {
  using flamefold::sqlite::rounded_ns;
  EXPECT_EQ(rounded_ns(1.5), 2);
  EXPECT_EQ(rounded_ns(-1.5), -2);
  EXPECT_EQ(rounded_ns(1700000000123456789.0), 1700000000123456768);  // the nearest double
  EXPECT_EQ(rounded_ns(3.28222e+183), INT64_MIN);  // what the Ascend fuzzer found (a REAL startNs)
  EXPECT_EQ(rounded_ns(-1e300), INT64_MIN);
  EXPECT_EQ(rounded_ns(std::nan("")), INT64_MIN);
  EXPECT_EQ(rounded_ns(9.3e18), INT64_MIN);
}

// TEXT timestamps are parsed 8 digits at a time, the last 1-7 as the 8 bytes ending with them:
// every length from 1 to 20, every place of a non-digit, against digit-by-digit parsing.
TEST(SqliteTimes, DigitsAreReadAtEveryLengthAndANonDigitAnywhereIsNoNumber) {
  auto reference = [](const std::string& t, int64_t& out) {
    if (t.empty() || t.size() > 19) return false;
    unsigned __int128 v = 0;
    for (char c : t) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    if (v > static_cast<unsigned __int128>(INT64_MAX)) return false;
    out = static_cast<int64_t>(v);
    return true;
  };
  std::mt19937_64 rnd(11);
  const std::string odd = "/:.-+ e\x7f";  // beside '0' and '9' in ASCII, and the usual suspects
  size_t numbers = 0;
  for (size_t n = 1; n <= 20; ++n) {
    for (int round = 0; round < 200; ++round) {
      std::string t(n, '0');
      for (char& c : t) c = static_cast<char>('0' + rnd() % 10);
      if (round % 7 == 1) t.assign(n, '9');
      if (round % 2) t[rnd() % n] = odd[rnd() % odd.size()];
      // Bytes after the text are not part of it (a record's next value follows in the page).
      std::string padded = t + "12345678";
      int64_t want = -1, got = -1;
      const bool ok = reference(t, want);
      EXPECT_EQ(sqlite::digits_value(padded.data(), static_cast<uint32_t>(n), got), ok) << t;
      if (ok) {
        EXPECT_EQ(got, want) << t;
        ++numbers;
      }
    }
  }
  int64_t v = 0;
  EXPECT_TRUE(sqlite::digits_value("9223372036854775807", 19, v));
  EXPECT_EQ(v, INT64_MAX);
  EXPECT_FALSE(sqlite::digits_value("9223372036854775808", 19, v));
  EXPECT_TRUE(sqlite::digits_value("1718091839135966956", 19, v));
  EXPECT_EQ(v, 1718091839135966956);
  EXPECT_GT(numbers, 1000u);
}

// TEXT timestamps in the first columns keep the value of their leading digits from row to row:
// rows that share them, change them, change length, end in a non-digit, pass INT64_MAX or hold
// a non-digit up front read as the API path (no such cache) reads them.
TEST(SqliteTimes, LeadingDigitsKeptFromRowToRowReadAsEachRowAlone) {
  std::string path = make_file("times.db", "PRAGMA page_size=4096", R"(
CREATE TABLE t(a TEXT, b TEXT, c INTEGER, d TEXT, e TEXT);
WITH RECURSIVE n(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM n WHERE x < 4000)
  INSERT INTO t SELECT printf('%d', 1718091839135966956 + x * 37), printf('%d', 1718091839135966956 + x * 99991),
                       x, printf('%d', 171809183913596 + x), printf('%d', 1718091839135966956 + x * 7) FROM n;
INSERT INTO t VALUES ('1718091839135969999', '171809183913597x00', 1, '17180918391359799x', '1718091839135969999');
INSERT INTO t VALUES ('1718091839135970000', '171809183913597000', 2, '1718091839135979', '1718091839135970000');
INSERT INTO t VALUES ('171809183913597000', '17180918391359700', 3, '9223372036854775807', '17180918391359x000');
INSERT INTO t VALUES ('9223372036854775807', '9223372036854775808', 4, '9223372036854775808', '9223372036854775807');
INSERT INTO t VALUES ('9223372036854775808', '9223372036854775807', 5, '1x18091839135970000', '');
INSERT INTO t VALUES ('1718091839135970001', '1718091839135970001.5', 6, '-718091839135970001', '1718091839135970001');
INSERT INTO t VALUES ('1718091839135970002', ' 718091839135970002', 7, '1718091839135970002', '1718091839135970002');
)");
  EXPECT_EQ(compare_scans(path, "t", {"a", "b", "c", "d", "e"}, true), 4008u);
  EXPECT_EQ(compare_scans(path, "t", {"e", "d", "c", "b", "a"}, true), 4008u);
  // And the values themselves, for the rows that share their leading digits.
  sqlite::Db db = sqlite::Db::open(path);
  sqlite::TableScan s = db.scan("t", {"a", "b"}, "table t");
  for (int64_t x = 0; x <= 4000 && s.step(); ++x) {
    ASSERT_EQ(s.time_ns(0), 1718091839135966956 + x * 37) << x;
    ASSERT_EQ(s.time_ns(1), 1718091839135966956 + x * 99991) << x;
  }
}

// ScanAhead (scan_ahead.h): chained scans give every row in table order, one table after the
// other; and when a reader drops them early (it failed on a row), their workers end: a later scan
// waiting for an earlier one to finish, which waits for room, was a deadlock.
#include "flamefold/readers/sqlite/scan_ahead.h"

namespace {
const char* kTwoTables = R"(
CREATE TABLE first (v INTEGER); CREATE TABLE second (v INTEGER);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 50000) INSERT INTO first SELECT x FROM n;
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 50000) INSERT INTO second SELECT -x FROM n;
)";
using Ahead = sqlite::ScanAhead<int64_t>;
std::unique_ptr<Ahead> ahead_of(const std::string& path, const char* table, std::shared_ptr<sqlite::Gate> before,
                                std::shared_ptr<sqlite::Gate> after) {
  return std::make_unique<Ahead>(path, table, std::vector<std::string>{"v"}, std::string("table ") + table,
                                 [](const sqlite::TableScan& s) { return s.i64(0); }, before, after);
}
}  // namespace

TEST(SqliteScanAhead, ChainedScansGiveEveryRowInOrder) {
  std::string path = make_file("two_tables.db", "PRAGMA page_size=4096", kTwoTables);
  auto gate = std::make_shared<sqlite::Gate>();
  auto a = ahead_of(path, "first", nullptr, gate);
  auto b = ahead_of(path, "second", gate, nullptr);
  std::vector<int64_t> batch;
  int64_t expect = 1;
  while (a->next_batch(batch))
    for (int64_t v : batch) ASSERT_EQ(v, expect++);
  EXPECT_EQ(expect, 50001);
  expect = -1;
  while (b->next_batch(batch))
    for (int64_t v : batch) ASSERT_EQ(v, expect--);
  EXPECT_EQ(expect, -50001);
}

// RowSource gives a scan ahead's rows one at a time, and once they are out it stays at the end.
TEST(SqliteScanAhead, RowSourceGivesEveryRowAndThenStaysAtTheEnd) {
  std::string path = make_file("two_tables.db", "PRAGMA page_size=4096", kTwoTables);
  sqlite::Db db = sqlite::Db::open(path);
  auto decode = [](const sqlite::TableScan& s) { return s.i64(0); };
  sqlite::RowSource<int64_t> rows(db, "first", {"v"}, "table first", decode, ahead_of(path, "first", nullptr, nullptr));
  int64_t v = 0, expect = 1;
  while (rows.next(v)) ASSERT_EQ(v, expect++);
  EXPECT_EQ(expect, 50001);
  EXPECT_FALSE(rows.next(v));
  EXPECT_FALSE(rows.next(v));
}

TEST(SqliteScanAhead, DroppingChainedScansEarlyEndsTheirWorkers) {
  std::string path = make_file("two_tables.db", "PRAGMA page_size=4096", kTwoTables);
  for (int taken = 0; taken < 3; ++taken) {
    auto gate = std::make_shared<sqlite::Gate>();
    auto a = ahead_of(path, "first", nullptr, gate);
    auto b = ahead_of(path, "second", gate, nullptr);
    std::vector<int64_t> batch;
    for (int k = 0; k < taken; ++k) ASSERT_TRUE(a->next_batch(batch));
    b.reset();  // as a reader's locals go: the later scan first, while `a` fills its queue
    a.reset();
  }
  // A scan dropped before its turn, whose gate nothing else would open, ends too.
  auto never = std::make_shared<sqlite::Gate>();
  auto c = ahead_of(test::tmp_path("no_such.db"), "first", never, nullptr);
  c.reset();
}

// A scan restarted on a rowid range reads that range alone, as a scan made for it would.
TEST(SqliteScan, RestartedScanReadsTheNewRange) {
  std::string path = make_file("two_tables.db", "PRAGMA page_size=4096", kTwoTables);
  sqlite::Db db = sqlite::Db::open(path);
  sqlite::TableScan s = db.scan("first", {"v"}, "table first", sqlite::RowidRange{10, 20});
  ASSERT_TRUE(s.direct());
  ASSERT_TRUE(s.step());  // part way through the first range
  // Small ranges unmark the pages they entered one by one; after the whole table, every page.
  for (auto [lo, hi] : {std::pair<int64_t, int64_t>{40000, 40100}, {1, INT64_MAX}, {1, 3}, {49990, INT64_MAX},
                        {60000, 70000}, {7, 7}}) {
    s.restart(sqlite::RowidRange{lo, hi});
    std::vector<int64_t> got;
    while (s.step()) got.push_back(s.i64(0));
    std::vector<int64_t> want;
    for (int64_t v = std::max<int64_t>(lo, 1); v <= std::min<int64_t>(hi, 50000); ++v) want.push_back(v);
    EXPECT_EQ(got, want) << lo << ".." << hi;
  }
}

// A SharedScan gives every row once, in rowid order, whichever side decodes each unit: a reader
// that takes its time leaves the units to the worker; one that takes none decodes units itself
// while the worker is busy. Rowids with gaps (deleted rows, empty units) read the same.
TEST(SqliteScanAhead, SharedScanGivesEveryRowInOrderWhoeverDecodes) {
  std::string path = make_file("shared_scan.db", "PRAGMA page_size=4096", R"(
CREATE TABLE t (v INTEGER, s TEXT);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 60000) INSERT INTO t SELECT x, printf('%040d', x) FROM n;
DELETE FROM t WHERE rowid BETWEEN 9000 AND 17000 OR rowid % 7 = 3;
)");
  sqlite::Db db = sqlite::Db::open(path);
  std::vector<int64_t> want;
  {
    sqlite::TableScan s = db.scan("t", {"v"}, "table t");
    while (s.step()) want.push_back(s.i64(0));
  }
  ASSERT_GT(want.size(), 40000u);
  const std::thread::id reader = std::this_thread::get_id();
  for (int slow_reader : {0, 1}) {
    SCOPED_TRACE(slow_reader ? "a slow reader" : "a slow worker");
    // The slow side sleeps a little per row or per unit.
    auto decode = [&, slow_reader](const sqlite::TableScan& s) {
      if (!slow_reader && std::this_thread::get_id() != reader) std::this_thread::sleep_for(std::chrono::microseconds(5));
      return s.i64(0);
    };
    auto after = std::make_shared<sqlite::Gate>();
    sqlite::SharedScan<int64_t> shared(db, path, "t", {"v"}, "table t", decode, 1, 60000, after);
    std::vector<int64_t> got, batch;
    while (shared.next_batch(batch)) {
      got.insert(got.end(), batch.begin(), batch.end());
      if (slow_reader) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(got, want);
    EXPECT_FALSE(shared.next_batch(batch));
    after->wait();  // opened once the worker took no more units
    if (slow_reader) EXPECT_LT(shared.units_read_here(), shared.units() / 2) << "the worker decodes ahead";
    else EXPECT_GT(shared.units_read_here(), shared.units() / 2) << "the reader decodes while the worker is busy";
  }
  // The reader's connection reading through SQLite's API (no restart): a scan made per unit.
  sqlite::Db api = sqlite::Db::open(path);
  api.set_direct_scans(false);
  auto slow_worker = [&](const sqlite::TableScan& s) {
    if (std::this_thread::get_id() != reader) std::this_thread::sleep_for(std::chrono::microseconds(5));
    return s.i64(0);
  };
  sqlite::SharedScan<int64_t> shared(api, path, "t", {"v"}, "table t", slow_worker, 1, 60000);
  std::vector<int64_t> got, batch;
  while (shared.next_batch(batch)) got.insert(got.end(), batch.begin(), batch.end());
  EXPECT_EQ(got, want);
  EXPECT_GT(shared.units_read_here(), 1);
}

// A damaged page stops a SharedScan at the unit that holds it, with the page's error, whichever
// side decoded that unit; dropping one part way through ends its worker.
TEST(SqliteScanAhead, SharedScanStopsAtADamagedPageAndCanBeDroppedEarly) {
  std::string path = make_file("shared_damaged.db", "PRAGMA page_size=4096", R"(
CREATE TABLE t (v INTEGER, s TEXT);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 60000) INSERT INTO t SELECT x, printf('%040d', x) FROM n;
)");
  auto decode = [](const sqlite::TableScan& s) { return s.i64(0); };
  {
    sqlite::Db db = sqlite::Db::open(path);
    for (int taken = 0; taken < 3; ++taken) {
      sqlite::SharedScan<int64_t> shared(db, path, "t", {"v"}, "table t", decode, 1, 60000);
      std::vector<int64_t> batch;
      for (int k = 0; k < taken; ++k) ASSERT_TRUE(shared.next_batch(batch));
    }
  }
  // The last leaf page of the table: its type byte made invalid.
  std::string bytes = test::read_file(path);
  const size_t page_size = 4096;
  size_t leaf = 0;
  for (size_t p = bytes.size() / page_size; p-- > 1;)
    if (static_cast<unsigned char>(bytes[p * page_size]) == 0x0D) {
      leaf = p;
      break;
    }
  ASSERT_GT(leaf, 0u);
  bytes[leaf * page_size] = 0x7F;
  const std::string damaged = test::write_file("shared_damaged_1.db", bytes);
  sqlite::Db db = sqlite::Db::open(damaged);
  for (int slow : {0, 1}) {
    sqlite::SharedScan<int64_t> shared(db, damaged, "t", {"v"}, "table t", decode, 1, 60000);
    std::vector<int64_t> batch;
    int64_t rows = 0;
    try {
      while (shared.next_batch(batch)) {
        rows += static_cast<int64_t>(batch.size());
        if (slow) std::this_thread::sleep_for(std::chrono::microseconds(300));
      }
      ADD_FAILURE() << "a damaged page read without an error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("page " + std::to_string(leaf + 1)), std::string::npos) << e.what();
      EXPECT_GT(rows, 0);
      EXPECT_LT(rows, 60000);
    }
  }
}
