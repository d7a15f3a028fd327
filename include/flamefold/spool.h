// Spool: an external sort of fixed-size records in bounded memory. Records are pushed in any
// order and read back sorted. While they fit in the memory budget nothing touches the disk;
// past it, each full buffer is sorted and written to an unlinked temporary file as a run, and
// reading merges the runs (SQLite's sorter does the same). Streaming readers use it so that peak
// memory follows the call tree, not the number of rows in the input.
//
// Profiler tables arrive nearly in order: a few interleaved ascending streams (one per thread,
// or per kind of row). Each record is therefore dealt, as it arrives, onto one of a few "lanes"
// that stay sorted (the first lane whose last record does not come after it, as in patience
// sorting). A full buffer is spilled lane by lane, each lane a sorted run, and the lanes go on
// into the next buffer, so that a lane's runs chain into one: reading merges as many sequences
// as there were lanes, and no record is compared at spill time. Input with no such order (more
// lanes than kMaxLanes would need) is sorted by radix or std::sort.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace flamefold {

// An unlinked temporary file that records are appended to and read back from by offset.
// Its directory is $TMPDIR, else /tmp. Failures (disk full, no directory) throw
// std::runtime_error("temporary file in DIR: PROBLEM").
class SpillFile {
 public:
  SpillFile() = default;
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  SpillFile(SpillFile&& o) noexcept : fd_(o.fd_), size_(o.size_), preallocate_(o.preallocate_), dir_(std::move(o.dir_)) {
    o.fd_ = -1;
  }
  SpillFile& operator=(SpillFile&& o) noexcept;
  ~SpillFile();

  uint64_t append(const void* data, size_t bytes);  // returns the offset written at
  void read(uint64_t offset, void* data, size_t bytes) const;
  uint64_t size() const { return size_; }

 private:
  void open();
  int fd_ = -1;
  uint64_t size_ = 0;
  bool preallocate_ = true;  // until fallocate fails
  std::string dir_;
};

// Bytes a spool may hold in memory by default (its buffer and the scratch space of its sort).
// 4 MB: a 1M-call Ascend DB -> HTML then peaks at ~31 MB instead of ~38, at the same speed up to
// 10M calls (runs that fit the CPU caches sort faster, which pays for merging twice as many).
inline constexpr size_t kSpoolBytes = size_t(4) << 20;

// Records of T (trivially copyable) in the order `less` gives. Equal records come out in no
// particular order: give the key a unique tie-break (a sequence number) when order matters.
// When the order starts with an unsigned integer key, `static uint64_t Less::key(const T&)`
// gives it: input without usable order is then sorted by radix on that key (and by `less`
// among equal keys) instead of std::sort.
template <class T, class Less>
class Spool {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  explicit Spool(size_t memory_bytes = kSpoolBytes, Less less = Less())
      : less_(less), capacity_(std::max<size_t>(64, memory_bytes / (2 * sizeof(T) + 1))) {}

  void push(const T& r) {
    if (buffer_.size() == buffer_.capacity()) {
      if (buffer_.size() == capacity_) spill();
      else reserve(std::min(capacity_, std::max<size_t>(4096, 2 * buffer_.capacity())));  // never past the budget
    }
    if (!unordered_) deal(r);
    buffer_.push_back(r);
    ++size_;
  }
  uint64_t size() const { return size_; }
  size_t runs_spilled() const { return spilled_; }
  // After finish(): the sorted sequences merged when reading (runs that follow one another are
  // read one after the other as one), the buffer kept in memory included.
  size_t merge_fan_in() const { return runs_.size() + (pos_ < buffer_.size() && !runs_.empty() ? 1 : 0); }

  // No more pushes: sorts what is left and prepares reading.
  void finish() {
    sort_buffer();
    std::vector<T>().swap(scratch_);
    std::vector<uint8_t>().swap(lane_of_);
    if (runs_.empty()) return;  // all in memory: next() walks the buffer
    chain_runs();
    // The last buffer stays in memory as one more run; the others are read in slices that
    // share the budget.
    size_t slice = std::max<size_t>(256, capacity_ / (runs_.size() + 1));
    buffer_.shrink_to_fit();
    for (Run& r : runs_) {
      r.slice = slice;
      refill(r);
    }
    heads_.assign(runs_.size() + 1, Head{});
    heap_.clear();
    for (uint32_t i = 0; i < runs_.size(); ++i) {
      heads_[i] = Head{runs_[i].data.data(), runs_[i].data.data() + runs_[i].data.size()};
      if (!runs_[i].data.empty()) heap_.push_back(i);
    }
    const uint32_t memory = static_cast<uint32_t>(runs_.size());
    heads_[memory] = Head{buffer_.data() + pos_, buffer_.data() + buffer_.size()};
    if (pos_ < buffer_.size()) heap_.push_back(memory);
    std::make_heap(heap_.begin(), heap_.end(), heap_after());
    current_ = kNoRun;
  }

  // The next record in sorted order; false when all were read.
  bool next(T& out) {
    if (runs_.empty()) {
      if (pos_ == buffer_.size()) return false;
      out = buffer_[pos_++];
      return true;
    }
    // The run that gave the last record usually gives the next ones too (runs cover
    // successive stretches of the order): it keeps giving while its head comes before every
    // other run's, one comparison per record instead of a heap update.
    if (current_ != kNoRun) {
      if (!heap_.empty() && less_(head(heap_.front()), head(current_))) {
        // The run on top gives next, and the current one takes its place: one sift down (none
        // with two runs) instead of a push and a pop. Runs a few interleaved streams make
        // switch at almost every record.
        std::swap(current_, heap_.front());
        sift_down();
      }
    } else {
      if (heap_.empty()) return false;
      std::pop_heap(heap_.begin(), heap_.end(), heap_after());
      current_ = heap_.back();
      heap_.pop_back();
    }
    Head& h = heads_[current_];
    out = *h.at++;
    if (h.at == h.end && !next_slice(current_)) current_ = kNoRun;
    return true;
  }

 private:
  static constexpr uint32_t kNoRun = UINT32_MAX;
  static constexpr size_t kMaxLanes = 64;
  // A buffer of at most this many lanes is spilled lane by lane: lanes that do not chain (input
  // with little order) would otherwise multiply the runs read at once by up to kMaxLanes.
  static constexpr size_t kMaxLaneRuns = 16;
  struct Run {
    uint64_t offset = 0, end = 0;  // bytes of the file still to read (of the current segment)
    std::vector<std::pair<uint64_t, uint64_t>> later;  // segments read after it, in order (chained runs)
    size_t next_segment = 0;
    T first, last;  // its first and last records
    size_t slice = 0;
    std::vector<T> data;  // the slice being read
  };
  // Where each run's reading stands in its slice (the buffer in memory last): the merge
  // compares heads through one pointer each.
  struct Head {
    const T* at = nullptr;
    const T* end = nullptr;
  };

  const T& head(uint32_t i) const { return *heads_[i].at; }
  // Source i's slice is spent: reads its next one; false when the source has no records left.
  bool next_slice(uint32_t i) {
    if (i == runs_.size()) {
      pos_ = buffer_.size();
      return false;
    }
    Run& r = runs_[i];
    refill(r);
    heads_[i] = Head{r.data.data(), r.data.data() + r.data.size()};
    return !r.data.empty();
  }
  // std heap order: the run whose head comes first on top.
  auto heap_after() const {
    return [this](uint32_t a, uint32_t b) { return less_(head(b), head(a)); };
  }
  // Restores that order after the top was replaced.
  void sift_down() {
    const size_t n = heap_.size();
    for (size_t i = 0;;) {
      size_t first = i;
      for (size_t c = 2 * i + 1; c <= 2 * i + 2 && c < n; ++c)
        if (less_(head(heap_[c]), head(heap_[first]))) first = c;
      if (first == i) return;
      std::swap(heap_[i], heap_[first]);
      i = first;
    }
  }

  void reserve(size_t n) {
    buffer_.reserve(n);
    lane_of_.reserve(n);
  }

  // Puts r on the lane whose last record is the greatest one not after r (patience sorting's
  // best fit: the fewest lanes, as many as the longest descending stretch of the input). The
  // tails are kept in order, so that lane is found by a binary search, and usually it is the
  // lane of the record before.
  void deal(const T& r) {
    size_t k = tails_.size();
    size_t at;  // position in tails_ of the lane r goes on
    if (last_ < k && !less_(r, tails_[last_]) && (last_ + 1 == k || less_(r, tails_[last_ + 1]))) {
      at = last_;
    } else {
      // The first tail after r; r goes on the lane before it.
      size_t lo = 0, hi = k;
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (less_(r, tails_[mid])) hi = mid;
        else lo = mid + 1;
      }
      if (lo == 0) {  // before every tail: a new lane, first in order
        if (k == kMaxLanes) {
          unordered_ = true;  // no usable order: std::sort at spill time
          return;
        }
        tails_.insert(tails_.begin(), r);
        lane_at_.insert(lane_at_.begin(), static_cast<uint8_t>(k));
        at = 0;
      } else {
        at = lo - 1;
      }
    }
    tails_[at] = r;
    last_ = at;
    lane_of_.push_back(lane_at_[at]);
  }

  // Runs that come one after another in the order (one's first record not before another's
  // last) become one run read segment by segment, so the merge compares only runs that overlap.
  // A spool fed by a few ascending streams in turn (launches nested thread by thread: each
  // buffer holds one stream's stretch) spills many runs but has as few overlapping as streams.
  void chain_runs() {
    std::vector<uint32_t> order(runs_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return less_(runs_[a].first, runs_[b].first); });
    std::vector<Run> chains;
    for (uint32_t i : order) {
      Run& r = runs_[i];
      // The chain whose last record is the latest one not after r's first (best fit).
      size_t best = SIZE_MAX;
      for (size_t c = 0; c < chains.size(); ++c)
        if (!less_(r.first, chains[c].last) && (best == SIZE_MAX || less_(chains[best].last, chains[c].last))) best = c;
      if (best == SIZE_MAX) {
        chains.push_back(std::move(r));
      } else {
        chains[best].later.emplace_back(r.offset, r.end);
        chains[best].last = r.last;
      }
    }
    runs_ = std::move(chains);
  }

  void refill(Run& r) {
    if (r.offset == r.end && r.next_segment < r.later.size()) {
      r.offset = r.later[r.next_segment].first;
      r.end = r.later[r.next_segment].second;
      ++r.next_segment;
    }
    size_t n = static_cast<size_t>(std::min<uint64_t>(r.slice, (r.end - r.offset) / sizeof(T)));
    r.data.resize(n);
    if (n) file_.read(r.offset, r.data.data(), n * sizeof(T));
    r.offset += n * sizeof(T);
  }

  void spill() {
    ++spilled_;
    if (unordered_ || tails_.size() <= 1 || tails_.size() > kMaxLaneRuns) {
      sort_buffer();
      add_run(file_.append(buffer_.data(), buffer_.size() * sizeof(T)), buffer_.data(), buffer_.size());
      buffer_.clear();
      return;
    }
    // Each lane is written as a run of its own, unmerged: the lanes go on into the next buffer,
    // so a lane's runs follow one another and chain_runs makes them one. Reading then merges
    // as many chains as there are lanes, once, where merging the lanes here and the buffers'
    // runs again there compared every record twice.
    const std::vector<size_t> at = gather_lanes();
    const uint64_t offset = file_.append(scratch_.data(), buffer_.size() * sizeof(T));
    for (size_t l = 0; l + 1 < at.size(); ++l)
      if (at[l] < at[l + 1]) add_run(offset + at[l] * sizeof(T), scratch_.data() + at[l], at[l + 1] - at[l]);
    buffer_.clear();
    lane_of_.clear();
  }

  void add_run(uint64_t offset, const T* records, size_t n) {
    Run r;
    r.offset = offset;
    r.end = offset + n * sizeof(T);
    r.first = records[0];
    r.last = records[n - 1];
    runs_.push_back(std::move(r));
  }

  // The buffered records into scratch_, lane after lane (a stable counting sort by lane);
  // returns where each lane starts there, and the end.
  std::vector<size_t> gather_lanes() {
    const size_t n = buffer_.size(), lanes = tails_.size();
    std::vector<size_t> at(lanes + 1, 0);
    for (uint8_t l : lane_of_) ++at[l + 1];
    for (size_t l = 1; l <= lanes; ++l) at[l] += at[l - 1];
    std::vector<size_t> cur(at.begin(), at.end() - 1);
    scratch_.resize(n);
    for (size_t i = 0; i < n; ++i) scratch_[cur[lane_of_[i]]++] = buffer_[i];
    return at;
  }

  // Sorts the buffer: its lanes gathered (a stable counting sort by lane) and merged in one
  // pass, or std::sort when the records had no usable order.
  void sort_buffer() {
    const size_t lanes = tails_.size();
    if (unordered_) {
      full_sort();
    } else if (lanes > 1) {
      const std::vector<size_t> at = gather_lanes();
      std::vector<size_t> end(at.begin() + 1, at.end());
      std::vector<size_t> cur(at.begin(), at.end() - 1);
      // k-way merge of the lanes back into the buffer; the lane that gave the last record
      // keeps giving while it is not behind any other lane's head.
      auto after = [&](uint32_t a, uint32_t b) { return less_(scratch_[cur[b]], scratch_[cur[a]]); };
      std::vector<uint32_t> heap;
      for (uint32_t l = 0; l < lanes; ++l)
        if (cur[l] < end[l]) heap.push_back(l);
      std::make_heap(heap.begin(), heap.end(), after);
      size_t w = 0;
      while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), after);
        uint32_t l = heap.back();
        heap.pop_back();
        do {
          buffer_[w++] = scratch_[cur[l]++];
        } while (cur[l] < end[l] && (heap.empty() || !less_(scratch_[cur[heap.front()]], scratch_[cur[l]])));
        if (cur[l] < end[l]) {
          heap.push_back(l);
          std::push_heap(heap.begin(), heap.end(), after);
        }
      }
    }
    tails_.clear();
    lane_at_.clear();
    lane_of_.clear();
    last_ = 0;
    unordered_ = false;
  }

  // Sorts the buffer from scratch: LSD radix on Less::key (16 bits a pass, as many passes as the
  // largest key needs), then `less` within each run of equal keys; std::sort without a key.
  void full_sort() {
    if constexpr (requires(const T& t) { Less::key(t); }) {
      const size_t n = buffer_.size();
      uint64_t top = 0;
      for (const T& r : buffer_) top |= Less::key(r);
      scratch_.resize(n);
      std::vector<size_t> count(65537);
      for (unsigned shift = 0; shift < 64 && (top >> shift) != 0; shift += 16) {
        std::fill(count.begin(), count.end(), 0);
        for (const T& r : buffer_) ++count[((Less::key(r) >> shift) & 0xFFFF) + 1];
        for (size_t d = 1; d < count.size(); ++d) count[d] += count[d - 1];
        for (const T& r : buffer_) scratch_[count[(Less::key(r) >> shift) & 0xFFFF]++] = r;
        buffer_.swap(scratch_);
      }
      for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && Less::key(buffer_[j]) == Less::key(buffer_[i])) ++j;
        if (j - i > 1) std::sort(buffer_.begin() + i, buffer_.begin() + j, less_);
        i = j;
      }
    } else {
      std::sort(buffer_.begin(), buffer_.end(), less_);
    }
  }

  Less less_;
  size_t capacity_;  // records per buffer
  std::vector<T> buffer_, scratch_;
  std::vector<uint8_t> lane_of_;  // per buffered record: its lane
  std::vector<T> tails_;          // the last record of each lane, in order
  std::vector<uint8_t> lane_at_;  // the lane whose tail is tails_[i]
  size_t last_ = 0;               // the position in tails_ used last
  bool unordered_ = false;
  size_t pos_ = 0;  // reading position in buffer_
  uint64_t size_ = 0;
  SpillFile file_;
  std::vector<Run> runs_;
  size_t spilled_ = 0;
  std::vector<Head> heads_;
  std::vector<uint32_t> heap_;  // the runs other than current_ that have records left
  uint32_t current_ = kNoRun;
};

}  // namespace flamefold
