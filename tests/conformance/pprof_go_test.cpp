// pprof conformance against the reference reader, `go tool pprof` (Debian's golang-go):
//  * every profile flamefold writes, `go tool pprof -raw` reads, with the same sample types,
//    the same default and, per sample type, the same total as flamefold's;
//  * `-tagfocus` on flamefold's labels selects exactly a thread's / a rank's weight;
//  * real pprof files (Go's runtime/pprof CPU and heap profiles of tests/conformance/go/
//    profiled.go, pprof's own -proto rewrite, a legacy heap profile converted by pprof without
//    symbols): flamefold's totals per sample type equal go tool pprof's.
// Skipped, saying so, when go is not installed.
#include <cmath>
#include <filesystem>
#include <string>

#include "flamefold/pipeline.h"
#include "flamefold/writers/pprof.h"
#include "pprof_util.h"

using namespace flamefold;

namespace {

// flamefold's totals of `path` (read with flamefold) equal go tool pprof -raw's, type by type.
void expect_go_totals_equal(const std::string& go, const std::string& path) {
  SCOPED_TRACE(path);
  test::RunResult raw = test::run(go + " tool pprof -raw " + path);
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  pprof_test::RawTotals t = pprof_test::parse_raw(raw.out);
  Profile p = read_profile({path}, ReadOptions{});
  ASSERT_EQ(t.types.size(), p.columns.size()) << raw.out.substr(0, 400);
  ASSERT_GT(t.samples, 0u);
  for (size_t c = 0; c < p.columns.size(); ++c) {
    const std::string type = t.types[c].substr(0, t.types[c].find('/'));
    EXPECT_EQ(type, p.columns[c].name);
    EXPECT_EQ(static_cast<long long>(p.total(static_cast<int>(c))), t.totals[c]) << type;
  }
  if (!t.default_type.empty()) EXPECT_EQ(t.default_type.substr(0, t.default_type.find('/')), p.columns[p.default_column].name);
}

// The total of `column` under the top-level subtree(s) whose frame is named `name`, at any
// group depth.
double group_total(const Profile& p, const std::string& name, int column) {
  std::vector<double> tot = p.totals(column);
  double sum = 0;
  for (NodeId n = 1; n < p.node_count(); ++n) {
    bool on_top = true;
    for (NodeId m = p.parent[n]; m != 0 && on_top; m = p.parent[m]) on_top = p.symbols.is_group(p.frame[m]);
    if (on_top && p.symbols.name(p.frame[n]) == name) sum += tot[n];
  }
  return sum;
}

}  // namespace

TEST(PprofGo, EveryProfileFlamefoldWritesGoToolPprofReadsWithTheSameTotals) {
  REQUIRE_GO();
  std::vector<std::string> inputs;
  inputs.push_back(test::write_file("plain.folded", "main;a;b 3\nmain;a;c 4\nmain;d 5\nother 1\n"));
  inputs.push_back(test::write_file("py.folded", "tid:1;model.py:forward:10;model.py:attn:22 7\ntid:2;io.py:load:3 2\n"));
  std::string shared = test::shared_dir();
  if (!shared.empty()) {
    for (const char* f : {"data/flamegraph-tests/perf-vertx-stacks-01.txt", "data/flamegraph-tests/perf-iperf-stacks-pidtid-01.txt",
                          "data/pstats/jrfonseca__gprof2dot/tests/pstats/memtrail.pstats",
                          "data/kineto/facebookresearch__HolisticTraceAnalysis/tests/data/critical_path/alexnet/"
                          "benchmark_result_2869224_1695835535_trace.json.gz",
                          "data/kineto/AMD-AGI__TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz",
                          "data/nsys/NVIDIA__Fuser/report2.sqlite", "data/ascend/level0/ascend_pytorch_profiler_0.db"}) {
      if (std::filesystem::exists(shared + "/" + f)) inputs.push_back(shared + "/" + f);
    }
    std::string gen = test::tmp_path("gen.json");
    if (test::run("python3 " + shared + "/gen/gen_kineto.py -o " + gen + " --layers 2 --steps 2 --seed 9").exit_code == 0)
      inputs.push_back(gen);
  } else {
    std::fprintf(stderr, "../shared is not present: only the built-in inputs are checked\n");
  }
  int k = 0;
  for (const std::string& in : inputs) {
    SCOPED_TRACE(in);
    const std::string out = test::tmp_path("w" + std::to_string(k++) + ".pb.gz");
    test::RunResult r = test::flamefold("convert " + in + " -o " + out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_go_totals_equal(go, out);
    // ... and they are the totals of the profile written (whole numbers per node).
    Profile p = read_profile({in}, ReadOptions{}), back = read_profile({out}, ReadOptions{});
    for (size_t c = 0; c < p.columns.size(); ++c) {
      double rounded = 0;
      for (double w : p.columns[c].self) rounded += static_cast<double>(std::llround(w));
      EXPECT_EQ(back.total(back.column(p.columns[c].name)), rounded) << p.columns[c].name;
    }
  }
  // A merge of several of them.
  std::string merged = test::tmp_path("merged.pb.gz");
  test::RunResult m = test::flamefold("merge " + inputs[0] + " " + inputs[1] + " -o " + merged);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  expect_go_totals_equal(go, merged);
}

TEST(PprofGo, TagfocusSelectsARankOrAThread) {
  REQUIRE_GO();
  std::string a = test::write_file("a.folded", "main;x 3\nmain;y 4\n");
  std::string b = test::write_file("b.folded", "main;x 10\n");
  std::string merged = test::tmp_path("m.pb.gz");
  ASSERT_EQ(test::flamefold("merge " + a + " " + b + " -o " + merged).exit_code, 0);
  std::string focused = test::tmp_path("focused.pb.gz");
  test::RunResult r = test::run(go + " tool pprof -proto -output=" + focused + " -tagfocus=rank=b.folded " + merged);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Profile f = read_profile({focused}, ReadOptions{});
  EXPECT_EQ(pprof_test::weights(f, "samples"), (std::map<std::string, double>{{"b.folded;main;x", 10}}));

  // Threads of a Kineto trace: each thread's total through -tagfocus equals flamefold's.
  std::string shared = test::shared_dir();
  if (shared.empty()) GTEST_SKIP() << "../shared is not present: the trace part is skipped";
  std::string trace = test::tmp_path("t.json");
  ASSERT_EQ(test::run("python3 " + shared + "/gen/gen_kineto.py -o " + trace + " --layers 2 --steps 1 --seed 4").exit_code, 0);
  std::string pbgz = test::tmp_path("t.pb.gz");
  ASSERT_EQ(test::flamefold("convert " + trace + " -o " + pbgz).exit_code, 0);
  Profile p = read_profile({pbgz}, ReadOptions{});
  const int cpu = p.column("cpu");
  size_t threads = 0;
  for (NodeId n = 1; n < p.node_count(); ++n) {
    if (p.symbols.category_name(p.symbols[p.frame[n]].category) != category::kThread) continue;
    std::string name(p.symbols.name(p.frame[n]));
    std::string regex;  // the thread's name as a regular expression
    for (char c : name) regex += std::isalnum(static_cast<unsigned char>(c)) ? std::string(1, c) : std::string(".");
    std::string one = test::tmp_path("thread" + std::to_string(threads++) + ".pb.gz");
    test::RunResult t = test::run(go + " tool pprof -proto -output=" + one + " '-tagfocus=thread=^" + regex + "$' " + pbgz);
    ASSERT_EQ(t.exit_code, 0) << t.err;
    Profile only = read_profile({one}, ReadOptions{});
    EXPECT_EQ(only.total(only.column("cpu")), group_total(p, name, cpu)) << name;
  }
  EXPECT_GE(threads, 2u);
}

TEST(PprofGo, RealGoProfilesTotalsEqualGoToolPprofs) {
  REQUIRE_GO();
  const std::string cpu = test::tmp_path("cpu.pb.gz"), heap = test::tmp_path("heap.pb.gz");
  test::RunResult run = test::run(go + " run " + test::source_dir() + "/tests/conformance/go/profiled.go " + cpu + " " + heap);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // pprof's own writer (the profiles rewritten by go tool pprof -proto).
  const std::string rewritten = test::tmp_path("rewritten.pb.gz");
  ASSERT_EQ(test::run(go + " tool pprof -proto -output=" + rewritten + " " + cpu).exit_code, 0);
  // A legacy (text) heap profile that pprof converts without symbols: mappings, addresses, no
  // functions, so flamefold names its locations module+0xoffset.
  std::string legacy = test::write_file("legacy.heap",
                                        "heap profile:    3:   393216 [     3:   393216] @ heapprofile\n"
                                        "     1:   262144 [     1:   262144] @ 0x0000000000401234 0x0000000000401567 0x00007f0000001100\n"
                                        "     2:   131072 [     2:   131072] @ 0x0000000000401300 0x0000000000401567\n"
                                        "\nMAPPED_LIBRARIES:\n"
                                        "00400000-00452000 r-xp 00000000 08:01 123   /usr/bin/myprog\n"
                                        "7f0000000000-7f0000100000 r-xp 00000000 08:01 456   /lib/x86_64-linux-gnu/libc.so.6\n");
  const std::string legacy_pb = test::tmp_path("legacy.pb.gz");
  ASSERT_EQ(test::run(go + " tool pprof -proto -symbolize=none -output=" + legacy_pb + " " + legacy).exit_code, 0);
  for (const std::string& f : {cpu, heap, rewritten, legacy_pb}) expect_go_totals_equal(go, f);

  // The CPU profile: labels are levels, the inlined function a frame below its caller.
  Profile p = read_profile({cpu}, ReadOptions{});
  EXPECT_EQ(p.columns[p.default_column].name, "cpu");
  EXPECT_EQ(p.columns[p.default_column].unit, "ns");
  bool inlined = false, labelled = false;
  for (const auto& [path, w] : pprof_test::weights(p, "cpu")) {
    inlined |= path.find("main.work;main.inlined;main.leaf") != std::string::npos;
    labelled |= path.rfind("worker=a;", 0) == 0 || path.rfind("worker=b;", 0) == 0;
  }
  EXPECT_TRUE(inlined);
  EXPECT_TRUE(labelled);
  // -tagfocus=worker=a keeps what flamefold has under worker=a.
  const std::string focused = test::tmp_path("worker_a.pb.gz");
  ASSERT_EQ(test::run(go + " tool pprof -proto -output=" + focused + " -tagfocus=worker=a " + cpu).exit_code, 0);
  Profile a = read_profile({focused}, ReadOptions{});
  EXPECT_EQ(a.total(a.column("cpu")), group_total(p, "worker=a", p.column("cpu")));
  // The unsymbolized one.
  Profile l = read_profile({legacy_pb}, ReadOptions{});
  EXPECT_EQ(pprof_test::weights(l, "space"),
            (std::map<std::string, double>{{"libc.so.6+0x10ff;myprog+0x1566;myprog+0x1233", 262144},
                                           {"myprog+0x1566;myprog+0x12ff", 131072}}));
  // flamefold's own rewrite of the real profiles reads the same in go tool pprof.
  for (const std::string& f : {cpu, heap}) {
    const std::string again = f + ".flamefold.pb.gz";
    ASSERT_EQ(test::flamefold("convert " + f + " -o " + again).exit_code, 0);
    expect_go_totals_equal(go, again);
  }
}
