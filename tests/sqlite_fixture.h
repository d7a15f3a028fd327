// Throwaway SQLite databases for reader tests, made with the SQLite C API.
#pragma once
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "test_support.h"

namespace test {

// Creates (or recreates) tmp_path(name) and runs sql in one transaction.
inline std::string make_db(const std::string& name, const std::string& sql) {
  std::string path = tmp_path(name);
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  // No journal, no fsync: fixtures are throwaway files.
  std::string script = "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;" + sql + ";COMMIT;";
  int rc = sqlite3_exec(db, script.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
  return path;
}

}  // namespace test
