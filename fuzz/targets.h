// The fuzz targets, one function each, called by the libFuzzer entry point (target.cpp, built
// once per target with FUZZ_TARGET naming it) and by the regression test that replays the
// inputs the fuzzers found (tests/unit/fuzz_regression_test.cpp).
#pragma once
#include <sqlite3.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/output.h"
#include "flamefold/readers/sqlite/sqlite_db.h"
#include "flamefold/readers/text/gpu_cpu_merge.h"
#include "harness.h"

namespace flamefold::fuzz {

// Reads the input as `format` and writes folded, SVG and HTML from it.
inline void read_and_write(std::string_view format, const uint8_t* data, size_t size, std::string_view suffix = "") {
  std::string in = write_input(data, size, suffix);
  ReadOptions ro = options_from(size ? data[size - 1] : 0);
  ro.format = std::string(format);
  expect_clean([&] {
    Profile p;
    try {
      p = read_profile({in}, ro);
    } catch (const UsageError&) {  // e.g. the weight asked for is not in this input: try the default
      ro.weight.clear();
      p = read_profile({in}, ro);
    }
    WriteOptions wo;
    write_profile(p, scratch_dir() + "/out.folded", wo);
    write_profile(p, scratch_dir() + "/out.svg", wo);
    write_profile(p, scratch_dir() + "/out.html", wo);
  });
  std::remove(in.c_str());
}


// `flamefold merge-gpu`'s two inputs (CPU launch stacks, CUPTI/Kineto JSON). The input's first
// byte places the cut between the two files, so mutations move it too.
inline void merge_gpu(const uint8_t* data, size_t size) {
  if (size < 1) return;
  size_t cut = 1 + (static_cast<size_t>(data[0]) * (size - 1)) / 255;
  std::string cpu = write_input(data + 1, cut - 1, ".txt");
  std::string gpu = write_input(data + cut, size - cut, ".json");
  expect_clean([&] {
    GpuMergeOptions o;
    o.weight_gpu = size & 1;
    OutputFile out(scratch_dir() + "/merged.folded");
    merge_gpu_cpu(cpu, gpu, o, out);
    out.commit();
  });
  std::remove(cpu.c_str());
  std::remove(gpu.c_str());
}

// The direct SQLite page reader against SQLite itself. Every table of the input database is
// scanned both ways; where both read it, they must give the same rows and values (the page
// reader's contract: values exactly as sqlite3_column_* gives them); a damaged page is refused
// with an InputError, never a crash.
namespace pages {

struct Cell {
  int type = SQLITE_NULL;
  int64_t i = 0;
  double f = 0;
  std::string s;
  bool operator==(const Cell& o) const {
    if (type != o.type) return false;
    if (type == SQLITE_INTEGER) return i == o.i;
    if (type == SQLITE_FLOAT) return std::memcmp(&f, &o.f, sizeof f) == 0 || (f != f && o.f != o.f);
    if (type == SQLITE_TEXT || type == SQLITE_BLOB) return s == o.s;
    return true;
  }
};

// The rows of `table` (at most `limit`): every column and the rowid.
inline std::vector<std::vector<Cell>> rows_of(sqlite::Db& db, const std::string& table, bool direct, size_t limit) {
  std::vector<std::string> cols = db.columns(table);
  cols.push_back("rowid");
  db.set_direct_scans(direct);
  sqlite::TableScan scan = db.scan(table, cols, "table " + table);
  std::vector<std::vector<Cell>> rows;
  while (rows.size() < limit && scan.step()) {
    std::vector<Cell> row(cols.size());
    for (size_t c = 0; c < cols.size(); ++c) {
      int col = static_cast<int>(c);
      Cell& cell = row[c];
      cell.type = scan.type(col);
      if (cell.type == SQLITE_INTEGER) cell.i = scan.i64(col);
      else if (cell.type == SQLITE_FLOAT) cell.f = scan.f64(col);
      else if (cell.type == SQLITE_TEXT || cell.type == SQLITE_BLOB) cell.s = std::string(scan.text(col));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace pages

inline void sqlite_pages(const uint8_t* data, size_t size) {
  std::string path = write_input(data, size, ".sqlite");
  expect_clean([&] {
    sqlite::Db db = sqlite::Db::open(path);
    for (const std::string& table : db.tables()) {
      if (table.rfind("sqlite_", 0) == 0) continue;
      constexpr size_t kLimit = 5000;
      std::vector<std::vector<pages::Cell>> api, direct;
      bool api_ok = true, direct_ok = true;
      try {
        api = pages::rows_of(db, table, false, kLimit);
      } catch (const InputError&) {
        api_ok = false;
      }
      try {
        direct = pages::rows_of(db, table, true, kLimit);
      } catch (const InputError&) {
        direct_ok = false;
      }
      // Either may refuse a damaged table the other happens not to notice (they check
      // different things); where both read it, they must agree.
      if (api_ok && direct_ok && api != direct) bug(("page reader and SQLite disagree on table " + table).c_str(), nullptr);
    }
  });
  std::remove(path.c_str());
}

// Every target by name: a reader's format name ("folded", "perf", "kineto", "nsys", "ascend",
// "pstats", "speedscope", "cpuprofile", "gecko"), "sniffed" (the format told from the bytes), "bundle"
// (the same, from seeds that are tar and zip archives: their members are read as the files they
// hold), "gpu_cpu_merge" or "sqlite_pages".
// The stack formats FlameGraph and inferno collapse, one fuzzer for all: the first byte picks
// the reader (fuzz/make_corpus.py writes the seeds in this order).
inline constexpr std::string_view kStackFormats[] = {"dtrace", "stap",     "sample", "xctrace", "vtune",
                                                     "vsprof", "ghcprof", "bpftrace", "go",     "jstack"};

inline void run_target(std::string_view target, const uint8_t* data, size_t size) {
  if (target == "stacks") {
    if (size < 1) return;
    constexpr size_t n = sizeof kStackFormats / sizeof kStackFormats[0];
    read_and_write(kStackFormats[data[0] % n], data + 1, size - 1);
  } else if (target == "gpu_cpu_merge") merge_gpu(data, size);
  else if (target == "sqlite_pages") sqlite_pages(data, size);
  else read_and_write(target == "sniffed" || target == "bundle" ? "" : target, data, size);
}

}  // namespace flamefold::fuzz
