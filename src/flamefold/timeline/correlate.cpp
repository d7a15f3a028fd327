#include "flamefold/timeline/correlate.h"

#include <algorithm>

namespace flamefold {

bool is_device_work(EventKind k) { return k == EventKind::Kernel || k == EventKind::Memcpy || k == EventKind::Memset; }

namespace {
// Correlation ids restart in every rank's trace; the rank goes into the top bits of the key.
// (Ids at or above 2^48 from different ranks could then collide; real ids are far smaller.)
inline uint64_t join_key(uint32_t rank, uint64_t correlation) { return correlation ^ (uint64_t(rank) << 48); }
}  // namespace

LaunchJoin join_launches(const Timeline& tl) {
  // Two keys per launch: (rank, correlation), and (rank, process, correlation) for formats whose
  // device tracks carry the launching process (nsys with several processes, where CUPTI ids
  // repeat per process). A device op takes the per-process match when there is one. Kineto's
  // GPU tracks carry the device index instead, so they take the per-rank match.
  LaunchJoin j;
  const size_t n = tl.size();
  size_t launches = 0;
  std::vector<uint8_t> launching(tl.tracks.size(), 0);
  for (size_t e = 0; e < n; ++e)
    if (tl.kind[e] == EventKind::Launch && tl.correlation[e] != 0) {
      ++launches;
      launching[tl.track[e]] = 1;
    }
  // The per-process key can only differ from the per-rank one when a rank launches from several
  // processes: otherwise its first launch of an id is the first of its process too, and the
  // second map (half the join's time: a cache miss per launch and per device op) is skipped.
  bool several_processes = false;
  {
    std::vector<std::pair<uint32_t, int64_t>> rank_pid;
    for (size_t t = 0; t < tl.tracks.size(); ++t)
      if (launching[t]) rank_pid.emplace_back(tl.tracks[t].rank, tl.tracks[t].pid);
    std::sort(rank_pid.begin(), rank_pid.end());
    rank_pid.erase(std::unique(rank_pid.begin(), rank_pid.end()), rank_pid.end());
    for (size_t k = 1; k < rank_pid.size(); ++k) several_processes |= rank_pid[k].first == rank_pid[k - 1].first;
  }
  // Sized for a load of 0.55-0.75 without a rehash (U64Map takes twice its argument, rounded up
  // to a power of two): 8 MB for a 1 GB trace's 292k launches where `launches` took 16.
  U64Map by_id(launches * 2 / 3 + 16), by_process(several_processes ? launches * 2 / 3 + 16 : 0);
  auto process_key = [&](uint32_t rank, int64_t pid, uint64_t correlation) {
    uint64_t k = mix64(join_key(rank, correlation) ^ mix64(uint64_t(pid) + 0x9E3779B97F4A7C15ULL));
    return k == U64Map::kEmpty ? 0 : k;
  };
  std::vector<uint8_t> used(n, 0);
  for (size_t e = 0; e < n; ++e) {
    if (tl.kind[e] != EventKind::Launch || tl.correlation[e] == 0) continue;
    const Track& tr = tl.tracks[tl.track[e]];
    uint64_t key = join_key(tr.rank, tl.correlation[e]);
    if (key == U64Map::kEmpty) continue;
    ++j.launches;
    const bool first_of_rank = by_id.find_or_insert(key, static_cast<uint32_t>(e)) == e;
    if (several_processes ? by_process.find_or_insert(process_key(tr.rank, tr.pid, tl.correlation[e]),
                                                      static_cast<uint32_t>(e)) != e
                          : !first_of_rank)
      ++j.duplicate_launch_ids;
  }
  for (size_t e = 0; e < n; ++e) {
    if (!is_device_work(tl.kind[e])) continue;
    ++j.device_ops;
    uint32_t launch = kNone;
    const Track& tr = tl.tracks[tl.track[e]];
    uint64_t corr = tl.correlation[e];
    if (corr != 0 && join_key(tr.rank, corr) != U64Map::kEmpty) {
      uint32_t same = several_processes ? by_process.find(process_key(tr.rank, tr.pid, corr)) : U64Map::kMissing;
      if (same != U64Map::kMissing && tl.correlation[same] == corr && tl.tracks[tl.track[same]].rank == tr.rank &&
          tl.tracks[tl.track[same]].pid == tr.pid)
        launch = same;
      if (launch == kNone) {
        uint32_t any = by_id.find(join_key(tr.rank, corr));
        if (any != U64Map::kMissing) launch = any;
      }
    }
    if (launch == kNone) {
      ++j.device_without_launch;
      continue;
    }
    j.launched.emplace_back(static_cast<uint32_t>(e), launch);
    used[launch] = 1;
  }
  for (size_t e = 0; e < n; ++e)
    if (tl.kind[e] == EventKind::Launch && tl.correlation[e] != 0 && !used[e]) ++j.launches_without_device;
  return j;
}

}  // namespace flamefold
