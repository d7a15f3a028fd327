// Times write_html alone (the profile already in memory): reads INPUT once, then writes
// OUTPUT `runs` times and prints node count, bytes, bytes per node and each run's seconds.
// Built and run by bench/html_bench.sh against the build's libflamefold.a.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "flamefold/writers/html.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: html_write_bench INPUT OUTPUT.html [runs=3]\n");
    return 2;
  }
  int runs = argc > 3 ? std::atoi(argv[3]) : 3;
  flamefold::ReadOptions r;
  flamefold::Profile p = flamefold::read_profile({argv[1]}, r);
  flamefold::WriteOptions w;
  uint64_t bytes = 0;
  std::printf("nodes %zu\n", p.node_count());
  for (int k = 0; k < runs; ++k) {
    auto t0 = std::chrono::steady_clock::now();
    flamefold::OutputFile out(argv[2]);
    flamefold::write_html(p, out, w);
    bytes = out.bytes_written();
    out.commit();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("write_html %.3f s\n", s);
  }
  std::printf("bytes %llu\nbytes_per_node %.2f\n", static_cast<unsigned long long>(bytes),
              static_cast<double>(bytes) / static_cast<double>(p.node_count()));
  return 0;
}
