// The pprof writer, checked with libprotobuf's generated classes (what the bytes say), and
// round trips flamefold -> pprof -> flamefold on hand-made, generated and real profiles of
// every input format in ../shared/data: the same weights on every path in every column.
#include <filesystem>
#include <string>

#include "flamefold/errors.h"
#include "flamefold/pipeline.h"
#include "flamefold/writers/pprof.h"
#include "pprof_util.h"

using namespace flamefold;
namespace pb = pprof_test::pb;

namespace {

// rank > process > thread on top, Python and native frames below, a kernel leaf, a label level,
// a device frame below an ordinary one (not a label: it is not on top), weight on the root,
// on a thread and a fractional one.
Profile hand_made() {
  Profile p;
  CategoryId rank = p.symbols.category("rank"), proc = p.symbols.category("process"),
             thread = p.symbols.category("thread"), py = p.symbols.category("python_function"),
             op = p.symbols.category("cpu_op"), kernel = p.symbols.category("kernel"),
             device = p.symbols.category("device"), label = p.symbols.category("label");
  int cpu = p.add_column("cpu", "ns"), calls = p.add_column("calls", "count"), samples = p.add_column("samples", "samples");
  p.default_column = calls;
  NodeId r = p.child(0, p.symbols.frame("rank 0", {}, 0, rank));
  NodeId pr = p.child(r, p.symbols.frame("python (12)", {}, 0, proc));
  NodeId t = p.child(pr, p.symbols.frame("MainThread", {}, 0, thread));
  NodeId lab = p.child(t, p.symbols.frame("phase=train", {}, 0, label));
  NodeId fwd = p.child(lab, p.symbols.frame("forward", "model.py", 10, py));
  NodeId mm = p.child(fwd, p.symbols.frame("aten::mm", {}, 0, op));
  NodeId gemm = p.child(mm, p.symbols.frame("gemm_kernel", {}, 0, kernel));
  NodeId dev = p.child(fwd, p.symbols.frame("GPU 0", {}, 0, device));
  NodeId fwd2 = p.child(t, p.symbols.frame("forward", "model.py", 20, py));  // the same name on another line
  p.add(0, samples, 4);
  p.add(t, cpu, 1000);
  p.add(fwd, cpu, 5000);
  p.add(fwd, calls, 2);
  p.add(mm, cpu, 300);
  p.add(mm, calls, 1);
  p.add(gemm, samples, 7);
  p.add(dev, cpu, 2.5);  // not whole: rounded (to 3, away from zero)
  p.add(fwd2, cpu, -40);  // a differential profile's negative weight
  p.facts.emplace_back("rank", "0");
  return p;
}

std::string name_of(const pb::Profile& p, int64_t i) { return p.string_table(static_cast<int>(i)); }

const pb::Location& location(const pb::Profile& p, uint64_t id) {
  for (const pb::Location& l : p.location())
    if (l.id() == id) return l;
  throw std::runtime_error("no location " + std::to_string(id));
}
const pb::Function& function(const pb::Profile& p, uint64_t id) {
  for (const pb::Function& f : p.function())
    if (f.id() == id) return f;
  throw std::runtime_error("no function " + std::to_string(id));
}

// The sample whose leaf location is the function `leaf` (or with no location when "").
const pb::Sample* sample_at(const pb::Profile& p, const std::string& leaf) {
  for (const pb::Sample& s : p.sample()) {
    if (leaf.empty() ? s.location_id_size() == 0 && s.label_size() == 0
                     : s.location_id_size() > 0 &&
                           name_of(p, function(p, location(p, s.location_id(0)).line(0).function_id()).name()) == leaf)
      return &s;
  }
  return nullptr;
}

}  // namespace

TEST(PprofWriter, WhatLibprotobufReadsInIt) {
  Profile p = hand_made();
  PprofStats st;
  std::string bytes = encode_pprof(p, p.default_column, &st);
  pb::Profile msg;
  ASSERT_TRUE(msg.ParseFromString(bytes));
  // One sample type per column, with pprof's unit names; the default is the chosen column.
  ASSERT_EQ(msg.sample_type_size(), 3);
  EXPECT_EQ(name_of(msg, msg.sample_type(0).type()), "cpu");
  EXPECT_EQ(name_of(msg, msg.sample_type(0).unit()), "nanoseconds");
  EXPECT_EQ(name_of(msg, msg.sample_type(1).type()), "calls");
  EXPECT_EQ(name_of(msg, msg.sample_type(1).unit()), "count");
  EXPECT_EQ(name_of(msg, msg.sample_type(2).type()), "samples");
  EXPECT_EQ(name_of(msg, msg.sample_type(2).unit()), "count");
  EXPECT_EQ(name_of(msg, msg.default_sample_type()), "calls");
  EXPECT_EQ(msg.string_table(0), "");
  // A sample per node with weight of its own.
  EXPECT_EQ(msg.sample_size(), 7);
  EXPECT_EQ(st.samples, 7u);
  EXPECT_EQ(st.rounded, 1u);

  // The kernel's sample: its stack leaf first, group frames as labels.
  const pb::Sample* g = sample_at(msg, "gemm_kernel");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->location_id_size(), 3);
  EXPECT_EQ(name_of(msg, function(msg, location(msg, g->location_id(1)).line(0).function_id()).name()), "aten::mm");
  EXPECT_EQ(name_of(msg, function(msg, location(msg, g->location_id(2)).line(0).function_id()).name()), "forward");
  EXPECT_EQ(std::vector<int64_t>(g->value().begin(), g->value().end()), (std::vector<int64_t>{0, 0, 7}));
  std::map<std::string, std::string> labels;
  for (const pb::Label& l : g->label()) labels[name_of(msg, l.key())] = name_of(msg, l.str());
  EXPECT_EQ(labels, (std::map<std::string, std::string>{
                        {"rank", "rank 0"}, {"process", "python (12)"}, {"thread", "MainThread"}, {"phase", "train"}}));
  // A frame: a function with its file and line (as start_line and on the line), its category
  // as the location's mapping.
  const pb::Location& fwd = location(msg, g->location_id(2));
  const pb::Function& fn = function(msg, fwd.line(0).function_id());
  EXPECT_EQ(name_of(msg, fn.filename()), "model.py");
  EXPECT_EQ(fn.start_line(), 10);
  EXPECT_EQ(fwd.line(0).line(), 10);
  bool mapped = false;
  for (const pb::Mapping& m : msg.mapping())
    if (m.id() == fwd.mapping_id()) mapped = name_of(msg, m.filename()) == "python_function" && m.has_functions();
  EXPECT_TRUE(mapped);
  // forward on line 20 is another function.
  const pb::Sample* f2 = nullptr;
  for (const pb::Sample& s : msg.sample())
    if (s.value(0) == -40) f2 = &s;
  ASSERT_NE(f2, nullptr);
  EXPECT_EQ(function(msg, location(msg, f2->location_id(0)).line(0).function_id()).start_line(), 20);
  // The device frame below forward is a location (it is not on top), its weight rounded.
  const pb::Sample* d = sample_at(msg, "GPU 0");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->value(0), 3);
  // The root's own weight: a sample with no stack and no labels.
  const pb::Sample* root = sample_at(msg, "");
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->value(2), 4);
  // Facts become comments.
  ASSERT_EQ(msg.comment_size(), 1);
  EXPECT_EQ(name_of(msg, msg.comment(0)), "rank: 0");
}

TEST(PprofWriter, RoundTripKeepsEveryWeightFrameAndCategory) {
  Profile p = hand_made();
  Profile back = pprof_test::read_bytes(encode_pprof(p, p.default_column));
  pprof_test::expect_same_weights(back, p, /*rounded=*/true);
  bool fact = false;
  for (const auto& [k, v] : back.facts) fact |= k == "rank" && v == "0";
  EXPECT_TRUE(fact);
}

TEST(PprofWriter, BytesDependOnTheProfileAlone) {
  // Written twice: the same bytes. Read back and written again: the same bytes again (the
  // reader builds the tree in the order the samples come, which is the writer's walk).
  Profile p = hand_made();
  std::string a = encode_pprof(p, p.default_column), b = encode_pprof(p, p.default_column);
  EXPECT_EQ(a, b);
  std::string again = encode_pprof(pprof_test::read_bytes(a), p.default_column);
  std::string third = encode_pprof(pprof_test::read_bytes(again), p.default_column);
  EXPECT_EQ(again, third);
}

TEST(PprofWriter, OutputKindsByName) {
  EXPECT_TRUE(is_pprof_path("x.pb"));
  EXPECT_TRUE(is_pprof_path("dir/x.PB.GZ"));
  EXPECT_TRUE(is_pprof_path("cpu.pprof"));
  EXPECT_FALSE(is_pprof_path("x.pbx"));
  EXPECT_FALSE(is_pprof_path("x.folded"));
  EXPECT_TRUE(is_gzipped_pprof_path("x.pb.gz"));
  EXPECT_TRUE(is_gzipped_pprof_path("x.pprof"));
  EXPECT_FALSE(is_gzipped_pprof_path("x.pb"));
  // The CLI: .pb plain, .pb.gz gzipped, both read back the same.
  std::string in = test::write_file("in.folded", "main;a;b 3\nmain;a;c 4\nmain;d 5\n");
  std::string plain = test::tmp_path("o.pb"), gz = test::tmp_path("o.pb.gz");
  ASSERT_EQ(test::flamefold("flamegraph " + in + " -o " + plain).exit_code, 0);
  test::RunResult r = test::flamefold("convert " + in + " -o " + gz);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("3 samples"), std::string::npos) << r.err;
  EXPECT_EQ(static_cast<unsigned char>(test::read_file(gz)[0]), 0x1f);
  EXPECT_NE(static_cast<unsigned char>(test::read_file(plain)[0]), 0x1f);
  EXPECT_EQ(test::flamefold("collapse " + plain).out, test::flamefold("collapse " + gz).out);
  EXPECT_EQ(test::flamefold("collapse " + gz).out, "main;a;b 3\nmain;a;c 4\nmain;d 5\n");
}

TEST(PprofWriter, ConvertWeightChoosesTheDefaultSampleType) {
  std::string in = test::write_file("in.folded", "main;a 3\n");
  std::string out = test::tmp_path("o.pb");
  test::RunResult r = test::flamefold("convert " + in + " -o " + out + " --weight nope");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no 'nope' weight"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// convert takes every command's read options: --steps and --thread shape the profile written, as
// they shape collapse's; the Chrome-trace conversion of a database refuses them.
TEST(PprofWriter, ConvertTakesTheReadOptions) {
  std::string trace = test::write_file("steps.json", R"({"traceEvents": [
    {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}},
    {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "loader"}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 50},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 200, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 210, "dur": 30},
    {"ph": "X", "cat": "cpu_op", "name": "next", "pid": 1, "tid": 2, "ts": 220, "dur": 40}
  ]})");
  std::string out = test::tmp_path("steps.pb.gz");
  for (const std::string options : {"--steps 2", "--thread loader", "--steps 1 --weight calls"}) {
    test::RunResult r = test::flamefold("convert " + trace + " " + options + " -o " + out);
    ASSERT_EQ(r.exit_code, 0) << options << ": " << r.err;
    std::string collapsed = test::flamefold("collapse " + trace + " " + options).out;
    // The default sample type of the file is the weight asked for, so both collapse alike.
    EXPECT_EQ(test::flamefold("collapse " + out).out, collapsed) << options;
    EXPECT_NE(test::flamefold("collapse " + trace).out, collapsed) << options << " changed nothing";
  }
  test::RunResult r = test::flamefold("convert " + trace + " --steps 2 -o " + test::tmp_path("x.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--steps selects from a profile"), std::string::npos) << r.err;
}

// Every real file in ../shared/data flamefold reads (perf script, Kineto, nsys, Ascend, pstats),
// through pprof and back: the same weights on every path, frame and category.
TEST(PprofRoundTrip, RealFilesOfEveryFormat) {
  REQUIRE_SHARED("data");
  size_t tried = 0, compared = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(shared_path + "data")) {
    const std::string path = e.path().string();
    if (!e.is_regular_file() || e.file_size() > (4u << 20) || path.find("/results/") != std::string::npos) continue;
    ++tried;
    Profile p;
    try {
      p = read_profile({path}, ReadOptions{});
    } catch (const std::exception&) {
      continue;  // not a profile flamefold reads (expected outputs, metric files)
    }
    if (p.columns.empty()) continue;
    SCOPED_TRACE(path);
    Profile back = pprof_test::read_bytes(encode_pprof(p, p.default_column));
    pprof_test::expect_same_weights(back, p, /*rounded=*/true);
    ++compared;
  }
  EXPECT_GT(compared, 40u) << "of " << tried;
}

TEST(PprofRoundTrip, GeneratedKinetoTraceEveryWeight) {
  REQUIRE_SHARED("gen/gen_kineto.py");
  std::string trace = test::tmp_path("k.json");
  test::RunResult gen = test::run("python3 " + shared_path + "gen/gen_kineto.py -o " + trace + " --layers 3 --steps 2 --seed 5");
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  Profile p = read_profile({trace}, ReadOptions{});
  ASSERT_EQ(p.columns.size(), 4u);  // cpu, calls, gpu, kernels
  std::string pbgz = test::tmp_path("k.pb.gz");
  test::RunResult r = test::flamefold("convert " + trace + " -o " + pbgz);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Profile back = read_profile({pbgz}, ReadOptions{});
  EXPECT_EQ(back.source_format, "pprof");
  pprof_test::expect_same_weights(back, p);
  // And every column's folded output from the CLI, byte for byte.
  for (const char* w : {"cpu", "calls", "gpu", "kernels"})
    EXPECT_EQ(test::flamefold("collapse " + trace + " --weight " + w).out, test::flamefold("collapse " + pbgz + " --weight " + w).out)
        << w;
}
