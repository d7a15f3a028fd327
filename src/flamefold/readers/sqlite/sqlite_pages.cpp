// The direct table-page reader behind TableScan (see sqlite_pages.h). Format facts used here
// (https://www.sqlite.org/fileformat2.html): big-endian header fields; page 1 carries the
// 100-byte file header before its b-tree header; table interior pages (0x05) hold
// (left child u32, rowid key varint) cells plus a right-most child, table leaf pages (0x0D)
// hold (payload size varint, rowid varint, payload, [first overflow page u32]) cells; a
// record is a header (its size, then one serial type per column) followed by the values.
#include "flamefold/readers/sqlite/sqlite_pages.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "flamefold/errors.h"

namespace flamefold::sqlite {

namespace {

inline uint32_t be16(const uint8_t* p) { return (uint32_t{p[0]} << 8) | p[1]; }
inline uint32_t be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// SQLite's varint: 1-9 bytes, 7 bits per byte with the high bit set on all but the last, the
// ninth byte contributing all 8 bits. False when it would run past `end`.
inline bool get_varint(const uint8_t*& q, const uint8_t* end, uint64_t& v) {
  if (q < end && *q < 0x80) {
    v = *q++;
    return true;
  }
  if (end - q >= 3) {  // two or three bytes (rowids up to 2 million): no check per byte
    const uint64_t b0 = q[0] & 0x7F, b1 = q[1];
    if (b1 < 0x80) {
      v = b0 << 7 | b1;
      q += 2;
      return true;
    }
    const uint64_t b2 = q[2];
    if (b2 < 0x80) {
      v = b0 << 14 | (b1 & 0x7F) << 7 | b2;
      q += 3;
      return true;
    }
  }
  v = 0;
  for (int k = 0; k < 9; ++k) {
    if (q >= end) return false;
    uint8_t b = *q++;
    if (k == 8) {
      v = (v << 8) | b;
      return true;
    }
    v = (v << 7) | (b & 0x7F);
    if (!(b & 0x80)) return true;
  }
  return true;  // not reached
}

// Bytes a value of serial type `st` occupies (10 and 11 are reserved: the caller rejects them).
inline uint64_t serial_size(uint64_t st) {
  static constexpr uint8_t kSmall[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0};
  return st < 12 ? kSmall[st] : (st - 12) >> 1;
}

// A big-endian two's-complement integer of `n` bytes (1..8) that ends at d + n, read as the
// 8 bytes before that end: the bytes before d belong to the same page or record buffer (a
// cell starts past its page's header and cell pointers; an overflow record is assembled
// after kRecordSlack bytes), so one load and a byte swap replace a loop over the bytes.
inline int64_t be_int(const uint8_t* d, uint32_t n) {
  uint64_t w;
  std::memcpy(&w, d + n - 8, 8);
  w = __builtin_bswap64(w);
  const uint32_t unused = 64 - 8 * n;
  return static_cast<int64_t>(w << unused) >> unused;
}

}  // namespace

FileImage::~FileImage() {
  if (fd >= 0) ::close(fd);
}

bool FileImage::read_pages(uint32_t first, uint32_t count, uint8_t* to) const {
  uint64_t at = uint64_t(first - 1) * page_size;
  size_t left = size_t(count) * page_size;
  while (left > 0) {
    const ssize_t got = ::pread(fd, to, left, static_cast<off_t>(at));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    to += got;
    at += static_cast<uint64_t>(got);
    left -= static_cast<size_t>(got);
  }
  return true;
}

std::shared_ptr<const FileImage> FileImage::open(const std::string& path, std::string& problem) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    problem = "cannot open the file for direct reading";
    return nullptr;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 512) {
    ::close(fd);
    problem = "not a regular file of at least one page";
    return nullptr;
  }
  auto img = std::make_shared<FileImage>();  // closes the file on every way out
  img->fd = fd;
  img->size = static_cast<uint64_t>(st.st_size);
  img->path = path;
  uint8_t h[100];
  if (::pread(fd, h, sizeof h, 0) != static_cast<ssize_t>(sizeof h)) {
    problem = "cannot read the file's header";
    return nullptr;
  }
  if (std::memcmp(h, "SQLite format 3\0", 16) != 0) {
    problem = "no SQLite header";
    return nullptr;
  }
  uint32_t page_size = be16(h + 16);
  if (page_size == 1) page_size = 65536;
  if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0) {
    problem = "page size " + std::to_string(page_size) + " is not a power of two in 512..65536";
    return nullptr;
  }
  if (h[18] > 2 || h[19] > 2) {
    problem = "file format version above 2";
    return nullptr;
  }
  if (h[18] == 2 || h[19] == 2) {
    // WAL mode: committed pages may still be in the -wal file, which only SQLite can merge.
    struct stat wal;
    if (::stat((path + "-wal").c_str(), &wal) == 0 && wal.st_size > 0) {
      problem = "WAL-mode database with a non-empty -wal file beside it";
      return nullptr;
    }
  }
  uint32_t usable = page_size - h[20];
  if (usable < 480) {
    problem = "fewer than 480 usable bytes per page";
    return nullptr;
  }
  uint32_t encoding = be32(h + 56);
  if (encoding > 1) {
    problem = "text encoding is UTF-16";
    return nullptr;
  }
  uint64_t pages = img->size / page_size;
  if (pages > UINT32_MAX - 1) pages = UINT32_MAX - 1;
  img->page_size = page_size;
  img->usable = usable;
  img->pages = static_cast<uint32_t>(pages);
  return img;
}

int PageScanner::root_type(const FileImage& image, uint32_t root) {
  if (root < 1 || root > image.pages) return -1;
  std::vector<uint8_t> page(image.page_size);
  if (!image.read_pages(root, 1, page.data())) return -1;
  return page[root == 1 ? 100 : 0];
}

PageScanner::PageScanner(std::shared_ptr<const FileImage> image, std::string file, uint32_t root, std::string table,
                         std::vector<ColumnSource> columns, int64_t lo, int64_t hi)
    : image_(std::move(image)), file_(std::move(file)), root_(root), table_(std::move(table)), columns_(std::move(columns)), lo_(lo), hi_(hi) {
  for (uint32_t c = 0; c < columns_.size(); ++c) {
    const ColumnSource& src = columns_[c];
    if (src.kind == ColumnSource::kRowid) rowid_slots_.push_back(c);
    if (src.kind != ColumnSource::kRecord) continue;
    if (src.record_index >= slot_of_record_.size()) slot_of_record_.resize(src.record_index + 1, -1);
    if (slot_of_record_[src.record_index] < 0) slot_of_record_[src.record_index] = static_cast<int32_t>(c);
    else duplicates_.emplace_back(static_cast<uint32_t>(slot_of_record_[src.record_index]), c);
  }
  last_record_column_ = static_cast<uint32_t>(slot_of_record_.size());
  real_of_record_.assign(last_record_column_, 0);
  for (uint32_t k = 0; k < last_record_column_; ++k)
    if (slot_of_record_[k] >= 0) real_of_record_[k] = columns_[static_cast<uint32_t>(slot_of_record_[k])].real_affinity;
  stack_.reserve(64);
  visited_.assign(image_->pages / 64 + 1, 0);
  window_pages_ = std::max<uint32_t>(1, static_cast<uint32_t>(kWindowBytes / image_->page_size));
  // Not cleared: only what a read fills is touched (a small table's scan reads a page or two).
  const size_t bytes = size_t(window_pages_) * image_->page_size;
  window_.reset(new uint8_t[bytes + kWindowSlack]);
  std::memset(window_.get() + bytes, 0, kWindowSlack);
}

// A page of the tree: from the window when it holds it, else read into the window with the
// pages after it that the parent's next children name (a table written in one go keeps its
// leaves in order: one read brings in a stretch of them; interleaved tables, a shorter one).
const uint8_t* PageScanner::fetch(uint32_t page) {
  if (page - window_first_ < window_count_) return window_.get() + size_t(page - window_first_) * image_->page_size;
  uint32_t count = 1;
  if (!stack_.empty()) {
    const Level& parent = stack_.back();
    const uint32_t limit = std::min<uint64_t>(window_pages_, uint64_t{image_->pages} - page + 1);
    for (uint32_t i = parent.index + 1; i <= parent.cells && count < limit; ++i) {
      // Read without the checks of child(): a damaged pointer only ends the stretch here, and
      // push() reports it when the scan gets there.
      uint32_t c;
      if (i == parent.cells) {
        c = be32(parent.page + parent.header + 8);
      } else {
        const uint32_t off = be16(parent.ptrs + 2 * i);
        if (off < parent.area || off + 4 > image_->usable) break;
        c = be32(parent.page + off);
      }
      if (c != page + count) break;
      ++count;
    }
  }
  window_count_ = 0;
  if (!image_->read_pages(page, count, window_.get())) corrupt(page, "cannot be read: the file ends early or a read failed");
  window_first_ = page;
  window_count_ = count;
  return window_.get();
}

void PageScanner::corrupt(uint32_t page, const std::string& problem) const {
  throw InputError(file_, "table " + table_ + " page " + std::to_string(page), problem + " (damaged file?)");
}

void PageScanner::push(uint32_t page) {
  const uint32_t from = stack_.empty() ? page : stack_.back().number;
  if (page < 1 || page > image_->pages)
    corrupt(from, "points to page " + std::to_string(page) + ", beyond the end of the file (" + std::to_string(image_->pages) +
                      " pages)");
  uint64_t& bits = visited_[page >> 6];
  const uint64_t bit = uint64_t{1} << (page & 63);
  if (bits & bit) corrupt(page, "is reached twice in the table's b-tree (a loop)");
  if (stack_.size() >= 64) corrupt(page, "the table's b-tree is deeper than 64 levels");
  bits |= bit;
  if (!entered_all_) {
    if (entered_.size() < visited_.size()) {
      entered_.push_back(page);
    } else {
      entered_all_ = true;
      std::vector<uint32_t>().swap(entered_);
    }
  }
  const uint8_t* p = fetch(page);
  const uint32_t header = page == 1 ? 100 : 0;
  const uint8_t type = p[header];
  if (type == 0x05) {
    // An interior page stays in use while its children pass through the window: a copy of its own.
    if (interior_.size() <= stack_.size()) interior_.resize(stack_.size() + 1);
    std::vector<uint8_t>& copy = interior_[stack_.size()];
    copy.assign(p, p + image_->page_size);
    p = copy.data();
  }
  if (type != 0x05 && type != 0x0D) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", type);
    corrupt(page, std::string("is not a table b-tree page (type ") + hex + ")");
  }
  const uint32_t cells = be16(p + header + 3);
  const uint32_t header_size = type == 0x05 ? 12 : 8;
  if (header + header_size + 2 * cells > image_->usable)
    corrupt(page, "its cell count (" + std::to_string(cells) + ") does not fit in the page");
  stack_.push_back(Level{p, page, header, cells, 0, p + header + header_size, header + header_size + 2 * cells});
}

uint32_t PageScanner::cell_offset(const Level& l, uint32_t i) const {
  const uint32_t off = be16(l.ptrs + 2 * i);
  if (off < l.area || off >= image_->usable)
    corrupt(l.number, "cell " + std::to_string(i) + " starts at byte " + std::to_string(off) + ", outside the cell area");
  return off;
}

uint32_t PageScanner::child(const Level& l, uint32_t i) const {
  if (i == l.cells) return be32(l.page + l.header + 8);  // the right-most pointer
  const uint32_t off = cell_offset(l, i);
  if (off + 4 > image_->usable) corrupt(l.number, "cell " + std::to_string(i) + " runs past the end of the page");
  return be32(l.page + off);
}

int64_t PageScanner::interior_key(const Level& l, uint32_t i) const {
  const uint32_t off = cell_offset(l, i);
  const uint8_t* q = l.page + off + 4;
  const uint8_t* end = l.page + image_->usable;
  uint64_t key = 0;
  if (q > end || !get_varint(q, end, key)) corrupt(l.number, "cell " + std::to_string(i) + " runs past the end of the page");
  return static_cast<int64_t>(key);
}

PageScanner::~PageScanner() = default;

void PageScanner::restart(int64_t lo, int64_t hi) {
  lo_ = lo;
  hi_ = hi;
  stack_.clear();
  // The pages on the way down are entered again.
  if (entered_all_) std::fill(visited_.begin(), visited_.end(), 0);
  else
    for (uint32_t p : entered_) visited_[p >> 6] &= ~(uint64_t{1} << (p & 63));
  entered_.clear();
  entered_all_ = false;
  started_ = seek_done_ = done_ = false;
}

// From the top of the stack down to a leaf: at each interior page, the first child that can
// hold rowids >= lo_ (the left child of cell i holds the rowids <= key i).

bool PageScanner::advance_to_leaf() {
  if (!started_) {
    started_ = true;
    push(root_);
  } else {
    // The leaf on top is finished: climb to the first ancestor with a child left.
    stack_.pop_back();
    for (;;) {
      if (stack_.empty()) return false;
      Level& t = stack_.back();
      if (t.index < t.cells) {
        // Every rowid in the next child is above key `index`.
        if (hi_ != INT64_MAX && interior_key(t, t.index) >= hi_) return false;
        ++t.index;
        uint32_t next = child(t, t.index);
        push(next);
        break;
      }
      stack_.pop_back();
    }
  }
  while (stack_.back().page[stack_.back().header] == 0x05) {
    Level& t = stack_.back();
    uint32_t i = 0;
    if (lo_ != INT64_MIN && !seek_done_) {
      uint32_t a = 0, b = t.cells;  // first cell whose key >= lo_
      while (a < b) {
        uint32_t m = (a + b) / 2;
        if (interior_key(t, m) < lo_) a = m + 1;
        else b = m;
      }
      i = a;
    }
    t.index = i;
    uint32_t next = child(t, i);
    push(next);
  }
  seek_done_ = true;
  return true;
}

bool PageScanner::next(Value* out) {
  if (done_) return false;
  if (!started_ && !advance_to_leaf()) {
    done_ = true;
    return false;
  }
  const uint32_t usable = image_->usable;
  for (;;) {
    Level& leaf = stack_.back();
    while (leaf.index < leaf.cells) {
      const uint32_t i = leaf.index++;
      const uint32_t off = be16(leaf.ptrs + 2 * i);
      if (off < leaf.area || off >= usable) cell_offset(leaf, i);  // reports the damage
      const uint8_t* q = leaf.page + off;
      const uint8_t* end = leaf.page + usable;
      uint64_t size = 0, key = 0;
      if (!get_varint(q, end, size) || !get_varint(q, end, key))
        corrupt(leaf.number, "cell " + std::to_string(i) + " runs past the end of the page");
      const int64_t rowid = static_cast<int64_t>(key);
      if (rowid < lo_) continue;
      if (rowid > hi_) {
        done_ = true;
        return false;
      }
      const uint64_t max_local = usable - 35;
      if (size <= max_local) {
        if (size > static_cast<uint64_t>(end - q))
          corrupt(leaf.number, "cell " + std::to_string(i) + "'s record runs past the end of the page");
        decode_record(q, size, rowid, leaf.number, out);
      } else {
        // Spilled payload: the first `local` bytes here, the rest on a chain of overflow pages.
        const uint64_t min_local = (uint64_t{usable - 12} * 32 / 255) - 23;
        uint64_t local = min_local + (size - min_local) % (usable - 4);
        if (local > max_local) local = min_local;
        if (local + 4 > static_cast<uint64_t>(end - q))
          corrupt(leaf.number, "cell " + std::to_string(i) + " runs past the end of the page");
        const uint8_t* rec = gather_overflow(q, local, size, be32(q + local), leaf.number);
        decode_record(rec, size, rowid, leaf.number, out);
      }
      return true;
    }
    if (!advance_to_leaf()) {
      done_ = true;
      return false;
    }
  }
}

const uint8_t* PageScanner::gather_overflow(const uint8_t* local, uint64_t local_size, uint64_t total, uint32_t first,
                                            uint32_t page) {
  const uint32_t per_page = image_->usable - 4;
  if (total > 0x7FFFFFFF || total - local_size > uint64_t{image_->pages} * per_page)
    corrupt(page, "a record claims " + std::to_string(total) + " bytes, more than the file holds");
  if (chain_mark_.empty()) chain_mark_.assign(uint64_t{image_->pages} + 1, 0);
  if (++chain_id_ == 0) {
    std::fill(chain_mark_.begin(), chain_mark_.end(), 0);
    chain_id_ = 1;
  }
  payload_.resize(kRecordSlack + total);
  char* dst = payload_.data() + kRecordSlack;
  std::memcpy(dst, local, local_size);
  uint64_t have = local_size;
  uint32_t next = first;
  while (have < total) {
    if (next == 0) corrupt(page, "an overflow chain ends before its record does");
    if (next > image_->pages)
      corrupt(page, "an overflow chain points to page " + std::to_string(next) + ", beyond the end of the file");
    if (chain_mark_[next] == chain_id_) corrupt(page, "an overflow chain loops (page " + std::to_string(next) + " again)");
    chain_mark_[next] = chain_id_;
    overflow_page_.resize(image_->page_size);
    if (!image_->read_pages(next, 1, overflow_page_.data()))
      corrupt(page, "overflow page " + std::to_string(next) + " cannot be read: the file ends early or a read failed");
    const uint8_t* op = overflow_page_.data();
    const uint64_t take = std::min<uint64_t>(total - have, per_page);
    std::memcpy(dst + have, op + 4, take);
    have += take;
    next = be32(op);
  }
  return reinterpret_cast<const uint8_t*>(dst);
}

// One value of serial type st (not 10 or 11) whose len bytes start at d.
inline void PageScanner::decode_value(uint64_t st, uint64_t len, const uint8_t* d, bool real, Value& v) {
  if (st - 1 < 6) {  // integers of 1, 2, 3, 4, 6 or 8 bytes: the usual value
    v.type = SQLITE_INTEGER;
    v.i = be_int(d, static_cast<uint32_t>(len));
  } else if (st >= 12) {
    v.type = (st & 1) ? SQLITE_TEXT : SQLITE_BLOB;
    v.s = reinterpret_cast<const char*>(d);
    v.n = static_cast<uint32_t>(len);
  } else if (st == 7) {
    uint64_t u = static_cast<uint64_t>(be_int(d, 8));
    std::memcpy(&v.f, &u, 8);
    v.type = v.f == v.f ? SQLITE_FLOAT : SQLITE_NULL;  // SQLite reads a stored NaN as NULL
  } else if (st == 0) {
    v.type = SQLITE_NULL;
  } else {  // 8 and 9: the constants 0 and 1
    v.type = SQLITE_INTEGER;
    v.i = static_cast<int64_t>(st - 8);
  }
  if (v.type == SQLITE_INTEGER && real) {
    // SQLite stores integral REAL values as integers and converts them back on reading.
    v.type = SQLITE_FLOAT;
    v.f = static_cast<double>(v.i);
  }
}

// The usual record: a one-byte header size, a one-byte serial type for every column read (text
// and blobs under 58 bytes), every value inside the record. False (nothing reported) for any
// other record, which the checked path below then reads.
inline bool PageScanner::decode_simple_record(const uint8_t* rec, uint64_t size, Value* out) {
  if (size == 0) return false;  // (an empty record may end where the file does: rec[0] is not there)
  const uint32_t last = last_record_column_;
  const uint64_t header_size = rec[0];
  if (header_size >= 0x80 || header_size < 1 + uint64_t{last} || header_size > size) return false;
  const uint8_t* h = rec + 1;
  uint64_t data = header_size;
  const int32_t* slot_of = slot_of_record_.data();
  for (uint32_t c = 0; c < last; ++c) {
    const uint64_t st = h[c];
    if (st >= 0x80 || st == 10 || st == 11) return false;
    const uint64_t len = serial_size(st);
    if (data + len > size) return false;
    if (slot_of[c] >= 0) decode_value(st, len, rec + data, real_of_record_[c], out[slot_of[c]]);
    data += len;
  }
  return true;
}

void PageScanner::decode_record(const uint8_t* rec, uint64_t size, int64_t rowid, uint32_t page, Value* out) {
  if (decode_simple_record(rec, size, out)) {
    for (uint32_t s : rowid_slots_) {
      out[s].type = SQLITE_INTEGER;
      out[s].i = rowid;
    }
    for (auto [from, to] : duplicates_) out[to] = out[from];
    return;
  }
  const uint8_t* rec_end = rec + size;
  const uint8_t* h = rec;
  uint64_t header_size = 0;
  if (!get_varint(h, rec_end, header_size) || header_size > size || header_size < static_cast<uint64_t>(h - rec))
    corrupt(page, "a record header does not fit in its record (rowid " + std::to_string(rowid) + ")");
  const uint8_t* header_end = rec + header_size;
  uint64_t data = header_size;  // offset of the current value
  const int32_t* slot_of = slot_of_record_.data();
  for (uint32_t c = 0; c < last_record_column_; ++c) {
    if (h >= header_end) {
      // A record shorter than the schema (columns added later): NULL for the rest.
      for (uint32_t k = c; k < last_record_column_; ++k)
        if (slot_of[k] >= 0) out[slot_of[k]] = Value{};
      break;
    }
    uint64_t st = *h;
    if (st < 0x80) ++h;  // h < header_end: a one-byte serial type, the usual one
    else if (!get_varint(h, header_end, st)) corrupt(page, "a record header is cut short (rowid " + std::to_string(rowid) + ")");
    const uint64_t len = serial_size(st);
    const int32_t slot = slot_of[c];
    if (slot >= 0) {
      if (st == 10 || st == 11) corrupt(page, "a record uses reserved serial type " + std::to_string(st));
      if (len > size || data + len > size)
        corrupt(page, "a value runs past the end of its record (rowid " + std::to_string(rowid) + ")");
      decode_value(st, len, rec + data, real_of_record_[c], out[slot]);
    }
    data += len > size ? size + 1 : len;
  }
  for (uint32_t s : rowid_slots_) {
    out[s].type = SQLITE_INTEGER;
    out[s].i = rowid;
  }
  for (auto [from, to] : duplicates_) out[to] = out[from];
}

}  // namespace flamefold::sqlite
