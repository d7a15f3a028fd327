// `flamefold merge`: canonical order, the Merger's rules (levels, columns, default, units), and
// associativity and order independence on random splits of mixed inputs: every tree of merges,
// with pprof files in between, gives the same bytes in every output format.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <random>
#include <string>

#include "flamefold/errors.h"
#include "flamefold/merge.h"
#include "flamefold/pipeline.h"
#include "flamefold/writers/pprof.h"
#include "pprof_util.h"
#include "profile_compare.h"

using namespace flamefold;

namespace {

// Random folded stacks: a shared pool of names (some CPython-style file:function:line frames,
// which carry a file and a line), whole-number counts.
std::string random_folded(std::mt19937& rng, int lines) {
  static const char* names[] = {"main", "run", "step", "forward", "backward", "model.py:attn:12", "model.py:mlp:40",
                                "io.py:load:7", "memcpy", "gemm", "relu", "[unknown]", "libc.so.6", "poll"};
  std::string out;
  for (int i = 0; i < lines; ++i) {
    int depth = 1 + static_cast<int>(rng() % 6);
    std::string line;
    for (int d = 0; d < depth; ++d) line += std::string(d ? ";" : "") + names[rng() % std::size(names)];
    out += line + " " + std::to_string(1 + rng() % 1000) + "\n";
  }
  return out;
}

// The same profile built by adding the same paths in two orders.
Profile built(const std::vector<std::pair<std::vector<std::string>, double>>& paths) {
  Profile p;
  int c = p.add_column("samples", "samples");
  CategoryId cat = p.symbols.category("x");
  for (const auto& [path, w] : paths) {
    NodeId n = 0;
    for (const std::string& f : path) n = p.child(n, p.symbols.frame(f, "f.c", 3, cat));
    p.add(n, c, w);
  }
  return p;
}

std::vector<std::string> kOutputs = {"merged.pb.gz", "merged.pb", "merged.folded", "merged.html", "merged.svg"};

// Writes `p` in every output kind under dir; returns the files' bytes.
std::vector<std::string> outputs(const Profile& p, const std::string& dir) {
  std::vector<std::string> bytes;
  for (const std::string& name : kOutputs) {
    WriteOptions w;
    w.column = p.default_column;
    write_profile(p, dir + "/" + name, w);
    bytes.push_back(test::read_file(dir + "/" + name));
  }
  return bytes;
}

}  // namespace

TEST(Canonical, TheOrderPathsWereAddedInDoesNotMatter) {
  std::vector<std::pair<std::vector<std::string>, double>> paths = {
      {{"main", "b", "x"}, 3}, {{"main", "a"}, 1}, {{"main", "b"}, 2}, {{"zeta"}, 5}, {{"main", "a", "y"}, 4}};
  Profile one = built(paths);
  std::reverse(paths.begin(), paths.end());
  Profile two = built(paths);
  auto names_by_node = [](const Profile& p) {
    std::vector<std::string> names;
    for (NodeId n = 1; n < p.node_count(); ++n) names.emplace_back(p.symbols.name(p.frame[n]));
    return names;
  };
  ASSERT_NE(names_by_node(one), names_by_node(two));  // built differently ...
  Profile a = canonical(one), b = canonical(two);
  test::expect_same_profile(a, b);  // ... the same once canonical
  // Depth first, siblings by name: main, a, y, b, x, zeta.
  EXPECT_EQ(names_by_node(a), (std::vector<std::string>{"main", "a", "y", "b", "x", "zeta"}));
  EXPECT_EQ(a.parent, (std::vector<NodeId>{kNone, 0, 1, 2, 1, 4, 0}));
  // Frames numbered as met.
  for (NodeId n = 1; n < a.node_count(); ++n) EXPECT_EQ(a.frame[n], n - 1);
}

TEST(Canonical, SubtreesWithoutWeightAreLeftOut) {
  Profile p = built({{{"main", "a", "b"}, 0}, {{"main", "c"}, 2}, {{"lonely"}, 0}});
  Profile c = canonical(p);
  EXPECT_EQ(pprof_test::weights(c, "samples"), (std::map<std::string, double>{{"main;c", 2}}));
  EXPECT_EQ(c.node_count(), 3u);  // root, main, c
}

TEST(Merger, LevelsColumnsAndTheDefault) {
  Profile a = built({{{"main", "a"}, 3}});
  Profile b;
  int cpu = b.add_column("cpu", "ns");
  b.add_column("calls", "count");
  b.default_column = cpu;
  b.add(b.child(0, b.symbols.frame("main")), cpu, 100);
  Merger m;
  m.add(b, "rank 1", "b.json");
  m.add(a, "rank 0", "a.folded");
  Profile out = m.finish("");
  // Columns by name; the default the least of the inputs' defaults (cpu < samples).
  ASSERT_EQ(out.columns.size(), 3u);
  EXPECT_EQ(out.columns[0].name, "calls");
  EXPECT_EQ(out.columns[1].name, "cpu");
  EXPECT_EQ(out.columns[2].name, "samples");
  EXPECT_EQ(out.columns[out.default_column].name, "cpu");
  EXPECT_EQ(out.source_format, "merge");
  EXPECT_TRUE(out.inputs.empty());
  EXPECT_EQ(pprof_test::weights(out, "samples"), (std::map<std::string, double>{{"rank 0;main;a", 3}}));
  EXPECT_EQ(pprof_test::weights(out, "cpu"), (std::map<std::string, double>{{"rank 1;main", 100}}));
  EXPECT_TRUE(has_rank_levels(out));
  EXPECT_FALSE(has_rank_levels(a));

  Merger asked;
  asked.add(a, "", "a");
  asked.add(b, "", "b");
  EXPECT_EQ(asked.finish("samples").columns[2].name, "samples");
  Merger wrong;
  wrong.add(a, "", "a");
  EXPECT_THROW(wrong.finish("gpu"), UsageError);

  // The same name in another unit cannot be added up.
  Profile c;
  c.add_column("cpu", "samples");
  Merger clash;
  clash.add(b, "", "b.json");
  try {
    clash.add(c, "", "c.folded");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("c.folded: weight 'cpu' is in samples here but in ns"), std::string::npos) << e.what();
  }
}

// Random trees of merges over mixed inputs (folded, pprof, and real perf/pstats/Kineto files when
// ../shared is there; their weights of one name have one unit: see Merger): with intermediate results written as .pb.gz and merged again, every
// shape and every order gives the same bytes in every output as merging all at once.
TEST(MergeAssociativity, RandomSplitsGiveTheSameBytesInEveryOutput) {
  std::mt19937 rng(2024);
  const std::string dir = test::tmp_path("");
  std::vector<std::string> inputs;
  for (int i = 0; i < 5; ++i) inputs.push_back(test::write_file("rank" + std::to_string(i) + ".folded", random_folded(rng, 40)));
  {  // a pprof input with a label level and two sample types
    Profile p = built({{{"main", "a"}, 7}, {{"main", "b", "c"}, 9}});
    int cpu = p.add_column("cpu", "ns");
    p.add(1, cpu, 1234);
    std::string path = dir + "rank5.pb.gz";
    OutputFile out(path);
    write_pprof(p, 0, out, true);
    out.commit();
    inputs.push_back(path);
  }
  std::string shared = test::shared_dir();
  if (!shared.empty()) {
    for (const char* f : {"data/flamegraph-tests/perf-funcab-cmd-01.txt", "data/pstats/jrfonseca__gprof2dot/tests/pstats/cProfile.pstats",
                          "data/kineto/facebookresearch__HolisticTraceAnalysis/tests/data/trace_compare/base/base.json.gz"}) {
      std::string from = shared + "/" + f;
      if (!std::filesystem::exists(from)) continue;
      // Copies named rankN.<ext>: --label-by rank finds the number in the name.
      std::string name = std::filesystem::path(from).filename().string(), ext = name.substr(name.find('.'));
      std::string to = dir + "rank" + std::to_string(inputs.size()) + ext;
      std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
      inputs.push_back(to);
    }
  }

  for (const char* label_by : {"file", "rank", "none"}) {
    SCOPED_TRACE(label_by);
    const std::string flat_dir = dir + "flat_" + label_by;
    std::filesystem::create_directories(flat_dir);
    Profile flat = merge_inputs(inputs, ReadOptions{}, label_by);
    const std::vector<std::string> want = outputs(flat, flat_dir);
    for (const std::string& b : want) EXPECT_GT(b.size(), 100u);

    for (int round = 0; round < 6; ++round) {
      SCOPED_TRACE(round);
      std::vector<std::string> order = inputs;
      std::shuffle(order.begin(), order.end(), rng);
      int made = 0;
      const std::string round_dir = dir + "r" + std::to_string(round) + "_" + label_by;
      std::filesystem::create_directories(round_dir);
      // Merges order[from, to) as a random tree: split into 2 or 3 random parts, merge each
      // into an intermediate .pb.gz (a lone input stays itself), then merge those.
      std::function<std::string(size_t, size_t)> merge_range = [&](size_t from, size_t to) -> std::string {
        if (to - from == 1) return order[from];
        std::vector<std::string> parts;
        size_t pieces = std::min<size_t>(to - from, 2 + rng() % 2);
        std::vector<size_t> cuts{from};
        for (size_t k = 1; k < pieces; ++k) cuts.push_back(from + 1 + rng() % (to - from - 1));
        cuts.push_back(to);
        std::sort(cuts.begin(), cuts.end());
        cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
        for (size_t k = 0; k + 1 < cuts.size(); ++k) parts.push_back(merge_range(cuts[k], cuts[k + 1]));
        std::string path = round_dir + "/m" + std::to_string(made++) + ".pb.gz";
        Profile m = merge_inputs(parts, ReadOptions{}, label_by);
        WriteOptions w;
        write_profile(m, path, w);
        return path;
      };
      std::string top = merge_range(0, order.size());
      Profile got = merge_inputs({top}, ReadOptions{}, label_by);
      std::vector<std::string> bytes = outputs(got, round_dir);
      for (size_t k = 0; k < kOutputs.size(); ++k) EXPECT_TRUE(bytes[k] == want[k]) << kOutputs[k] << " differs";
    }
  }
}

TEST(MergeCommand, MixedInputsAndLabels) {
  std::mt19937 rng(7);
  std::string a = test::write_file("a_rank3.folded", random_folded(rng, 20));
  std::string b = test::write_file("b_rank12.folded", random_folded(rng, 20));
  std::string nonum = test::write_file("nonum.folded", "main 1\n");
  std::string out = test::tmp_path("job.pb.gz");
  test::RunResult r = test::flamefold("merge " + a + " " + b + " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("merged 2 inputs into " + out), std::string::npos) << r.err;
  test::RunResult c = test::flamefold("collapse " + out);
  EXPECT_EQ(c.out.rfind("a_rank3.folded;", 0), 0u) << c.out.substr(0, 200);
  EXPECT_NE(c.out.find("\nb_rank12.folded;"), std::string::npos);

  r = test::flamefold("merge --label-by rank " + a + " " + b + " -o " + test::tmp_path("r.folded"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string folded = test::read_file(test::tmp_path("r.folded"));
  EXPECT_EQ(folded.rfind("rank 12;", 0), 0u);  // "rank 12" < "rank 3" by bytes
  EXPECT_NE(folded.find("\nrank 3;"), std::string::npos);

  r = test::flamefold("merge --label-by none " + a + " " + b + " -o -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("rank"), std::string::npos);

  r = test::flamefold("merge --label-by rank " + a + " " + nonum + " -o " + test::tmp_path("never.pb.gz"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nonum.folded: cannot tell its rank"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(test::tmp_path("never.pb.gz")));

  r = test::flamefold("merge " + a + " -o " + test::tmp_path("x.html") + " --label-by bogus");
  EXPECT_EQ(r.exit_code, 2);
}
