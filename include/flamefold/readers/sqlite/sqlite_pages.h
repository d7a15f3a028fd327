// A read-only reader of SQLite's file format for plain rowid tables
// (https://www.sqlite.org/fileformat2.html): the table b-tree is walked from its root page
// through interior (0x05) and leaf (0x0D) table pages, read with pread() a stretch of leaves at
// a time, and each cell's record is decoded straight into TableScan's values, without SQLite's
// VDBE. The pages are read rather than mapped: a mapping faults each 64 KB in, and handing the
// pages back (so a 10 GB table does not end up resident) flushed both cores' TLBs every 256 KB;
// a copy into a window that stays in the CPU cache costs less than either.
// Db::scan decides when this path can be trusted (UTF-8, no live WAL, no generated columns or
// ADD COLUMN defaults on the selected columns ...) and uses a prepared SELECT otherwise.
// Every offset, varint, page number and chain read here is bounds-checked: a damaged page is an
// InputError naming the file, "table T page N" and the problem.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flamefold/readers/sqlite/sqlite_db.h"

namespace flamefold::sqlite {

// The database file open read-only, with the header fields the scanner needs.
struct FileImage {
  int fd = -1;
  uint64_t size = 0;
  uint32_t page_size = 0;  // 512 .. 65536
  uint32_t usable = 0;     // page_size minus the reserved bytes at the end of every page
  uint32_t pages = 0;      // whole pages in the file
  std::string path;
  ~FileImage();

  // Opens `path`; returns nullptr and sets `problem` when the file cannot be read directly
  // (not UTF-8, a WAL file with content beside it, an odd header ...). Never throws for that.
  static std::shared_ptr<const FileImage> open(const std::string& path, std::string& problem);
  // Pages [first, first + count) into `to` (count * page_size bytes); false on a short read.
  bool read_pages(uint32_t first, uint32_t count, uint8_t* to) const;
};

// Where each output column of a scan comes from.
struct ColumnSource {
  enum Kind : uint8_t { kRecord, kRowid, kNull } kind = kNull;
  uint32_t record_index = 0;   // kRecord: the column's index in the record
  bool real_affinity = false;  // REAL columns read integer-stored values as REAL, like SQLite
};

class PageScanner {
 public:
  // root: the table's root page (checked to be a table b-tree page); [lo, hi]: rowid range.
  // file: the name errors give (the path the database was opened by).
  PageScanner(std::shared_ptr<const FileImage> image, std::string file, uint32_t root, std::string table,
              std::vector<ColumnSource> columns, int64_t lo, int64_t hi);
  ~PageScanner();
  PageScanner(const PageScanner&) = delete;
  PageScanner& operator=(const PageScanner&) = delete;
  // Decodes the next row into out[0 .. columns.size()); false at the end.
  bool next(Value* out);
  // Scans [lo, hi] next, from the root down again (pages read already stay in the window).
  void restart(int64_t lo, int64_t hi);
  // The page type byte of a table's root page (0x05/0x0D rowid table, 0x02/0x0A WITHOUT ROWID).
  static int root_type(const FileImage& image, uint32_t root);

 private:
  struct Level {
    const uint8_t* page;  // start of the page
    uint32_t number;
    uint32_t header;      // offset of the b-tree page header (100 on page 1)
    uint32_t cells;
    uint32_t index;       // interior: the child being walked (cells = the right-most pointer)
    const uint8_t* ptrs;  // the cell pointer array
    uint32_t area;        // cells start at or after this offset (the end of the pointer array)
  };

  [[noreturn]] void corrupt(uint32_t page, const std::string& problem) const;
  const uint8_t* fetch(uint32_t page);  // a page, from the window or read into it
  void push(uint32_t page);             // enters a page of the tree (checks and marks it)
  uint32_t child(const Level& l, uint32_t i) const;  // i-th child of an interior page
  int64_t interior_key(const Level& l, uint32_t i) const;
  uint32_t cell_offset(const Level& l, uint32_t i) const;
  bool advance_to_leaf();               // moves to the next leaf with cells left; false at the end
  void decode_record(const uint8_t* rec, uint64_t size, int64_t rowid, uint32_t page, Value* out);
  bool decode_simple_record(const uint8_t* rec, uint64_t size, Value* out);
  static void decode_value(uint64_t st, uint64_t len, const uint8_t* d, bool real, Value& v);
  const uint8_t* gather_overflow(const uint8_t* local, uint64_t local_size, uint64_t total, uint32_t first, uint32_t page);

  std::shared_ptr<const FileImage> image_;
  std::string file_;
  uint32_t root_;
  std::string table_;
  std::vector<ColumnSource> columns_;
  std::vector<int32_t> slot_of_record_;      // record column -> first output column, or -1
  std::vector<uint8_t> real_of_record_;      // record column -> read with REAL affinity
  std::vector<std::pair<uint32_t, uint32_t>> duplicates_;  // (from, to): a column selected twice
  std::vector<uint32_t> rowid_slots_;
  uint32_t last_record_column_ = 0;          // record columns needed: [0, last)
  int64_t lo_, hi_;
  std::vector<Level> stack_;
  std::vector<uint64_t> visited_;            // bitmap of tree pages already entered
  // The pages marked in visited_ since the scan (re)started, for restart() to unmark one by one:
  // a unit of a few thousand rows enters a hundred pages of a file that may have millions. Past
  // visited_.size() of them, clearing the whole bitmap is as cheap, and the list stops.
  std::vector<uint32_t> entered_;
  bool entered_all_ = false;
  std::vector<uint32_t> chain_mark_;         // overflow page -> the chain that last used it
  uint32_t chain_id_ = 0;
  std::string payload_;                      // a record assembled from overflow pages, after kRecordSlack bytes
  static constexpr size_t kRecordSlack = 8;  // readable bytes before a record (see be_int)
  // Pages read ahead: [window_first_, window_first_ + window_count_), kWindowBytes at most,
  // then kWindowSlack bytes that wide loads past a value's end may touch.
  static constexpr size_t kWindowBytes = 256 << 10, kWindowSlack = 64;
  std::unique_ptr<uint8_t[]> window_;
  uint32_t window_pages_ = 1, window_first_ = 0, window_count_ = 0;
  std::vector<std::vector<uint8_t>> interior_;  // per tree level: the interior page on the stack
  std::vector<uint8_t> overflow_page_;
  bool started_ = false, seek_done_ = false, done_ = false;
};

}  // namespace flamefold::sqlite
