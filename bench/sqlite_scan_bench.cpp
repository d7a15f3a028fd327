// SQLite read rate and the Ascend read phases (bench/sqlite.sh).
//   sqlite_scan_bench scan DB TABLE COL [COL ...]   rows of one table through TableScan, both paths
//   sqlite_scan_bench times DB TABLE T COL [COL ...] the direct scan alone, 7 rounds (median); the first T
//                                                   columns read as timestamps (time_ns: TEXT ones parsed)
//   sqlite_scan_bench ascend[-j1] DB                 read_ascend_trace / build_profile phases
//   sqlite_scan_bench nsys DB                        read_nsys_trace (convert's reading)
// Rows per CPU-second = rows / (user + sys CPU time of this process during the phase).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "flamefold/readers/sqlite/ascend.h"
#include "flamefold/readers/sqlite/nsys.h"
#include "flamefold/readers/sqlite/sqlite_db.h"
#include "flamefold/timeline/build_profile.h"

namespace {

double cpu_seconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}
double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace flamefold;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s scan DB TABLE COL... | ascend DB | nsys DB\n", argv[0]);
    return 2;
  }
  std::string mode = argv[1], path = argv[2];
  try {
    if (mode == "scan" && argc >= 5) {
      std::vector<std::string> cols(argv + 4, argv + argc);
      for (bool direct : {true, false, true, false}) {  // the first two warm the page cache
        sqlite::Db db = sqlite::Db::open(path);
        db.set_direct_scans(direct);
        double c0 = cpu_seconds(), w0 = wall_seconds();
        sqlite::TableScan s = db.scan(argv[3], cols, "bench");
        uint64_t rows = 0, sum = 0;
        while (s.step()) {
          ++rows;
          for (int c = 0; c < static_cast<int>(cols.size()); ++c) sum += static_cast<uint64_t>(s.i64(c));
        }
        double cpu = cpu_seconds() - c0, wall = wall_seconds() - w0;
        std::printf("%s scan of %s (%zu columns): %llu rows, %.3f s wall, %.3f CPU-s, %.2f M rows per CPU-s (checksum %llx)\n",
                    s.direct() ? "direct" : "SQLite API", argv[3], cols.size(), static_cast<unsigned long long>(rows), wall, cpu,
                    rows / cpu / 1e6, static_cast<unsigned long long>(sum));
      }
    } else if (mode == "times" && argc >= 6) {
      const int times = std::atoi(argv[4]);
      std::vector<std::string> cols(argv + 5, argv + argc);
      std::vector<double> cpus;
      uint64_t rows = 0, sum = 0;
      for (int round = 0; round < 8; ++round) {  // the first warms the page cache
        sqlite::Db db = sqlite::Db::open(path);
        double c0 = cpu_seconds();
        sqlite::TableScan s = db.scan(argv[3], cols, "bench");
        rows = sum = 0;
        while (s.step()) {
          ++rows;
          for (int c = 0; c < static_cast<int>(cols.size()); ++c)
            sum += static_cast<uint64_t>(c < times ? s.time_ns(c) : s.i64_or(c, 0));
        }
        if (round) cpus.push_back(cpu_seconds() - c0);
      }
      std::sort(cpus.begin(), cpus.end());
      const double med = cpus[cpus.size() / 2];
      std::printf("direct scan of %s (%zu columns, %d as times): %llu rows, median %.3f CPU-s (%.1f ns per row), checksum %llx\n",
                  argv[3], cols.size(), times, static_cast<unsigned long long>(rows), med, med / rows * 1e9,
                  static_cast<unsigned long long>(sum));
    } else if (mode == "ascend" || mode == "ascend-j1") {
      ReadOptions r;
      if (mode == "ascend-j1") r.threads_to_use = 1;  // one scan, no second connection
      AscendOptions o;
      o.for_flamegraph = true;
      double c0 = cpu_seconds(), w0 = wall_seconds();
      AscendTrace t = read_ascend_trace(path, r, o);
      double c1 = cpu_seconds(), w1 = wall_seconds();
      size_t events = t.timeline.size();
      BuildOptions b;
      b.device_weight = "npu";
      Profile p = build_profile(std::move(t.timeline), r, b);
      double c2 = cpu_seconds(), w2 = wall_seconds();
      std::printf("read_ascend_trace: %zu events, %.3f s wall, %.3f CPU-s; build_profile: %zu nodes, %.3f s wall, %.3f CPU-s\n",
                  events, w1 - w0, c1 - c0, p.node_count(), w2 - w1, c2 - c1);
    } else if (mode == "nsys") {
      ReadOptions r;
      NsysOptions o;
      double c0 = cpu_seconds(), w0 = wall_seconds();
      NsysTrace t = read_nsys_trace(path, r, o);
      double c1 = cpu_seconds(), w1 = wall_seconds();
      std::printf("read_nsys_trace: %zu events, %.3f s wall, %.3f CPU-s\n", t.timeline.size(), w1 - w0, c1 - c0);
    } else {
      std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
      return 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
