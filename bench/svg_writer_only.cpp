// Times write_svg alone (the profile is read once, outside the timing): the writer's own cost,
// separate from the folded reader. Built by bench/svg_writer_only.sh against libflamefold.a.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>
#include <algorithm>

#include "flamefold/options.h"
#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "flamefold/writers/svg.h"

using namespace flamefold;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: svg_writer_only IN.folded OUT.svg [--reverse]\n");
    return 2;
  }
  ReadOptions r;
  auto t0 = std::chrono::steady_clock::now();
  Profile p = read_profile({argv[1]}, r);
  auto t1 = std::chrono::steady_clock::now();
  WriteOptions w;
  w.reverse = argc > 3 && std::string(argv[3]) == "--reverse";
  std::vector<double> times;
  for (int i = 0; i < 5; ++i) {
    auto a = std::chrono::steady_clock::now();
    OutputFile out(argv[2]);
    write_svg(p, p.default_column, out, w);
    out.commit();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(times.begin(), times.end());
  std::printf("nodes %zu, read %.3f s, write_svg median of 5 %.4f s (min %.4f)\n", p.node_count(),
              std::chrono::duration<double>(t1 - t0).count(), times[2], times[0]);
}
