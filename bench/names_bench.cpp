// Times make_names_readable alone (--short-names, --merge-modules, both) on a profile already in
// memory: per option set and run, reads INPUT and times the renaming alone, printing nodes and
// frames before and after and each run's seconds.
// Built and run by bench/viewer_ml.sh against the build's libflamefold.a.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "flamefold/pipeline.h"
#include "flamefold/readable_names.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: names_bench INPUT [runs=3]\n");
    return 2;
  }
  int runs = argc > 2 ? std::atoi(argv[2]) : 3;
  {
    flamefold::Profile p = flamefold::read_profile({argv[1]}, flamefold::ReadOptions{});
    std::printf("input nodes %zu frames %zu\n", p.node_count(), p.symbols.frame_count());
  }
  const struct {
    const char* what;
    flamefold::NameOptions o;
  } sets[] = {{"--short-names", {true, false}}, {"--merge-modules", {false, true}}, {"both", {true, true}}};
  for (const auto& s : sets) {
    for (int k = 0; k < runs; ++k) {
      flamefold::Profile q = flamefold::read_profile({argv[1]}, flamefold::ReadOptions{});
      auto t0 = std::chrono::steady_clock::now();
      flamefold::make_names_readable(q, s.o);
      double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("%s %.3f s -> nodes %zu frames %zu\n", s.what, sec, q.node_count(), q.symbols.frame_count());
    }
  }
  return 0;
}
