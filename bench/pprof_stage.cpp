// Times the pprof writer and reader alone (bench/pprof.sh): reads INPUT (any format) once, then
// `runs` times: encode_pprof, gzip of the result, write_pprof to OUT.pb.gz, read_pprof of the
// plain and gzipped files; and, for the record of why the reader decodes the wire format by
// hand, libprotobuf's generated classes parsing the same bytes (ParseFromString only, no tree).
// Prints each phase's median.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "flamefold/compress.h"
#include "flamefold/input.h"
#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "flamefold/readers/proto/pprof.h"
#include "flamefold/writers/pprof.h"
#include "profile.pb.h"

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Phase {
  const char* name;
  std::vector<double> s;
  void add(double t) { s.push_back(t); }
  double median() {
    std::sort(s.begin(), s.end());
    return s.empty() ? 0 : s[s.size() / 2];
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: pprof_stage INPUT OUT_PREFIX [runs=5]\n");
    return 2;
  }
  const int runs = argc > 3 ? std::atoi(argv[3]) : 5;
  const std::string plain = std::string(argv[2]) + ".pb", gz = std::string(argv[2]) + ".pb.gz";
  flamefold::ReadOptions r;
  flamefold::Profile p = flamefold::read_profile({argv[1]}, r);
  std::printf("nodes %zu frames %zu columns %zu\n", p.node_count(), p.symbols.frame_count(), p.columns.size());
  Phase encode{"encode_pprof"}, compress{"gzip (level 1)"}, write_gz{"write_pprof .pb.gz (encode+gzip+write)"},
      read_plain{"read_pprof .pb"}, read_gz{"read_pprof .pb.gz"}, libprotobuf{"libprotobuf ParseFromString"};
  std::string bytes;
  for (int k = 0; k < runs; ++k) {
    double t = now();
    bytes = flamefold::encode_pprof(p, p.default_column);
    encode.add(now() - t);
    t = now();
    std::string z = flamefold::gzip_compress(bytes, 1, "bench");
    compress.add(now() - t);
    {
      flamefold::OutputFile out(plain);
      out.write(bytes);
      out.commit();
    }
    t = now();
    {
      flamefold::OutputFile out(gz);
      flamefold::write_pprof(p, p.default_column, out, true);
      out.commit();
    }
    write_gz.add(now() - t);
    for (auto [path, phase] : {std::pair{&plain, &read_plain}, std::pair{&gz, &read_gz}}) {
      t = now();
      flamefold::Input in = flamefold::Input::open(*path);
      flamefold::Profile back = flamefold::read_pprof(in, r);
      phase->add(now() - t);
      if (back.node_count() != p.node_count()) std::fprintf(stderr, "read back %zu nodes, not %zu\n", back.node_count(), p.node_count());
    }
    t = now();
    perftools::profiles::Profile msg;
    if (!msg.ParseFromString(bytes)) std::fprintf(stderr, "libprotobuf could not parse it\n");
    libprotobuf.add(now() - t);
  }
  std::printf("encoded bytes %zu\n", bytes.size());
  for (Phase* ph : {&encode, &compress, &write_gz, &read_plain, &read_gz, &libprotobuf})
    std::printf("%-42s %.3f s (median of %d)\n", ph->name, ph->median(), runs);
  return 0;
}
