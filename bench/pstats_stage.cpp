// The pstats step alone (what seed 001's generate_pstats does): statistics derived from an
// already-built call tree, and the marshal bytes. Usage: pstats_stage INPUT [RUNS]
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>

#include "flamefold/call_stats.h"
#include "flamefold/pipeline.h"
#include "flamefold/writers/pstats.h"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  int runs = argc > 2 ? std::atoi(argv[2]) : 3;
  flamefold::ReadOptions o;
  flamefold::Profile p = flamefold::read_profile({argv[1]}, o);
  int cpu = p.column("cpu") >= 0 ? p.column("cpu") : p.default_column;
  for (int r = 0; r < runs; ++r) {
    std::clock_t c0 = std::clock();
    auto t0 = std::chrono::steady_clock::now();
    flamefold::CallStats st = flamefold::call_stats(p, cpu);
    auto t1 = std::chrono::steady_clock::now();
    std::string bytes = flamefold::pstats_bytes(st);
    auto t2 = std::chrono::steady_clock::now();
    std::clock_t c2 = std::clock();
    std::printf("nodes=%zu functions=%zu edges=%zu call_stats=%.3f s pstats_bytes=%.3f s total=%.3f s (cpu %.3f s) bytes=%zu\n",
                p.node_count(), st.functions.size(), st.callers.size(), std::chrono::duration<double>(t1 - t0).count(),
                std::chrono::duration<double>(t2 - t1).count(), std::chrono::duration<double>(t2 - t0).count(),
                double(c2 - c0) / CLOCKS_PER_SEC, bytes.size());
  }
}
