#include "flamefold/compress.h"

#include <stdexcept>

#ifdef FLAMEFOLD_HAVE_LIBDEFLATE
#include <libdeflate.h>
#else
#include <zlib.h>
#endif
#ifdef FLAMEFOLD_HAVE_ISAL
#include <isa-l/igzip_lib.h>

#include <cstdint>
#include <limits>
#include <memory>
#endif

namespace flamefold {

#ifdef FLAMEFOLD_HAVE_ISAL
namespace {

// igzip's level 1: 2.4x as fast as libdeflate's level 1 on a million-node HTML payload (29 MB in
// 4 MB members: 50 against 120 ms, one core), for 3.6 % more bytes. Its best level (3) is both
// slower than libdeflate's level 1 and bigger, so other levels stay with libdeflate.
std::string igzip_fastest(std::string_view in, const std::string& failed) {
  isal_zstream z;
  isal_deflate_init(&z);
  auto level_buf = std::make_unique_for_overwrite<uint8_t[]>(ISAL_DEF_LVL1_DEFAULT);  // igzip's own scratch
  z.level = 1;
  z.level_buf = level_buf.get();
  z.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
  z.gzip_flag = IGZIP_GZIP;  // the default header: no name, no time
  z.end_of_stream = 1;
  z.flush = NO_FLUSH;
  z.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uint32_t>(in.size());
  std::string out(in.size() / 2 + 1024, '\0');
  for (;;) {
    z.next_out = reinterpret_cast<uint8_t*>(out.data()) + z.total_out;
    z.avail_out = static_cast<uint32_t>(out.size() - z.total_out);
    const uint32_t in_before = z.avail_in, out_before = z.total_out;
    if (isal_deflate(&z) != COMP_OK) throw std::runtime_error(failed);
    if (z.internal_state.state == ZSTATE_END) break;
    if (z.avail_in == in_before && z.total_out == out_before && z.avail_out != 0) throw std::runtime_error(failed);
    if (z.avail_out == 0) out.resize(out.size() * 2);  // incompressible so far: more room
  }
  out.resize(z.total_out);
  return out;
}

}  // namespace
#endif

std::string gzip_compress(std::string_view in, int level, const char* what) {
  const std::string failed = std::string("could not compress ") + what;
#ifdef FLAMEFOLD_HAVE_ISAL
  if (level == 1 && in.size() < std::numeric_limits<uint32_t>::max() / 2) return igzip_fastest(in, failed);
#endif
#ifdef FLAMEFOLD_HAVE_LIBDEFLATE
  libdeflate_compressor* c = libdeflate_alloc_compressor(level);
  if (!c) throw std::runtime_error("out of memory compressing " + std::string(what));
  std::string out(libdeflate_gzip_compress_bound(c, in.size()), '\0');
  size_t got = libdeflate_gzip_compress(c, in.data(), in.size(), out.data(), out.size());
  libdeflate_free_compressor(c);
  if (!got) throw std::runtime_error(failed);
  out.resize(got);
  return out;
#else
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::runtime_error(failed);
  std::string out(deflateBound(&z, in.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&z, Z_FINISH);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error(failed);
  out.resize(z.total_out);
  return out;
#endif
}

GzipMembers::GzipMembers(int level, size_t member_bytes, Emit emit, const char* what)
    : level_(level), member_bytes_(member_bytes ? member_bytes : 1), emit_(std::move(emit)), what_(what) {
  worker_ = std::thread([this] { work(); });
}

GzipMembers::~GzipMembers() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

void GzipMembers::add_stable(std::string_view bytes, int level) {
  if (!open_.empty()) cut();
  while (!bytes.empty()) {
    const size_t take = std::min(bytes.size(), member_bytes_);
    Job j;
    j.bytes = bytes.substr(0, take);
    j.level = level;
    push(std::move(j));
    bytes.remove_prefix(take);
  }
}

size_t GzipMembers::reserve() {
  if (!open_.empty()) cut();
  std::lock_guard<std::mutex> lock(mu_);
  if (error_) std::rethrow_exception(error_);
  Job j;
  j.ready = false;
  jobs_.push_back(std::move(j));
  return first_ + jobs_.size() - 1;
}

void GzipMembers::fill(size_t reserved, std::string bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (error_) std::rethrow_exception(error_);
  Job& j = jobs_.at(reserved - first_);  // still queued: nothing is emitted past it before this
  j.owned = std::move(bytes);
  j.bytes = j.owned;
  j.ready = true;
  changed_.notify_all();
}

void GzipMembers::cut() {
  Job j;
  j.owned.swap(open_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!spares_.empty()) {
      open_.swap(spares_.front());
      spares_.pop_front();
      open_.clear();
    }
  }
  if (open_.capacity() < member_bytes_ + member_bytes_ / 8) open_.reserve(member_bytes_ + member_bytes_ / 8);
  j.bytes = j.owned;
  push(std::move(j));
}

void GzipMembers::push(Job job) {
  std::unique_lock<std::mutex> lock(mu_);
  const bool owned = !job.owned.empty();
  // Too many chunks of ours wait: compress one here rather than hold more memory.
  while (owned && owned_waiting_ >= kPending && !error_) {
    if (!run_one(lock)) changed_.wait(lock);
  }
  if (error_) std::rethrow_exception(error_);
  if (owned) ++owned_waiting_;
  job.counted = owned;
  jobs_.push_back(std::move(job));
  changed_.notify_all();
}

void GzipMembers::finish() {
  if (!open_.empty()) cut();
  std::unique_lock<std::mutex> lock(mu_);
  // Help with what is left, then wait for the worker's last member to be emitted.
  while (!error_ && (!jobs_.empty() || emitting_))
    if (!run_one(lock)) changed_.wait(lock);
  if (error_) std::rethrow_exception(error_);
}

void GzipMembers::work() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (closing_) return;  // finished, or the producer gave up: its stable bytes may be gone
    if (!run_one(lock)) changed_.wait(lock);
  }
}

// Takes the first job nobody has taken, compresses it with the lock released, then emits every
// finished member at the front, in order. Called with the lock held.
bool GzipMembers::run_one(std::unique_lock<std::mutex>& lock) {
  if (error_) return false;
  Job* job = nullptr;
  for (Job& j : jobs_)
    if (j.ready && !j.taken) {
      job = &j;
      break;
    }
  if (!job) return false;
  job->taken = true;  // deque elements stay in place while others are added or emitted
  lock.unlock();
  std::string packed;
  std::exception_ptr failed;
  try {
    packed = gzip_compress(job->bytes, job->level ? job->level : level_, what_);
  } catch (...) {
    failed = std::current_exception();
  }
  lock.lock();
  if (failed && !error_) error_ = failed;
  job->packed = std::move(packed);
  job->done = true;
  if (job->counted) --owned_waiting_;
  emit_ready(lock);
  changed_.notify_all();
  return true;
}

void GzipMembers::emit_ready(std::unique_lock<std::mutex>& lock) {
  if (emitting_) return;  // the thread emitting will find this member too
  emitting_ = true;
  while (!error_ && !jobs_.empty() && jobs_.front().done) {
    Job j = std::move(jobs_.front());
    jobs_.pop_front();
    ++first_;
    lock.unlock();
    std::exception_ptr failed;
    try {
      emit_(j.packed);
    } catch (...) {
      failed = std::current_exception();
    }
    lock.lock();
    if (failed && !error_) error_ = failed;
    ++emitted_;
    if (!j.owned.empty() && spares_.size() < 2) spares_.push_back(std::move(j.owned));
  }
  emitting_ = false;
  changed_.notify_all();
}

}  // namespace flamefold
