// Readable ML stacks (readable_names.h): the name shortener on a table of real and made-up
// names, module instances merged with their subtrees, and the options on every output.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "flamefold/frame_label.h"
#include "flamefold/pipeline.h"
#include "flamefold/readable_names.h"
#include "html_payload.h"
#include "test_support.h"

using namespace flamefold;

namespace {

// tests/data/short_names.tsv: name <tab> expected short name; '#' lines are comments.
std::vector<std::pair<std::string, std::string>> name_table() {
  std::ifstream in(test::source_dir() + "/tests/data/short_names.tsv");
  std::vector<std::pair<std::string, std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    size_t tab = line.find('\t');
    EXPECT_NE(tab, std::string::npos) << line;
    if (tab != std::string::npos) rows.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  return rows;
}

// "a;b;c" -> weight in column c (frames made by name; "thread:X" makes a thread group frame).
NodeId add(Profile& p, const std::string& stack, double w, int column = 0) {
  std::vector<FrameId> frames;
  CategoryId thread = p.symbols.category(category::kThread);
  size_t pos = 0;
  while (pos <= stack.size()) {
    size_t semi = stack.find(';', pos);
    if (semi == std::string::npos) semi = stack.size();
    std::string_view name = std::string_view(stack).substr(pos, semi - pos);
    bool group = name.rfind("thread:", 0) == 0;
    frames.push_back(group ? p.symbols.frame(name.substr(7), {}, 0, thread) : p.symbols.frame(name));
    pos = semi + 1;
  }
  NodeId n = p.path(0, frames);
  p.add(n, column, w);
  return n;
}

// Every weighted path "a;b;c" -> self weight of column c.
std::map<std::string, double> stacks(const Profile& p, int c = 0) {
  std::map<std::string, double> out;
  for (NodeId n = 1; n < p.node_count(); ++n) {
    if (p.columns[c].self[n] == 0) continue;
    std::string s;
    for (NodeId m = n; m != 0; m = p.parent[m]) s = std::string(p.symbols.name(p.frame[m])) + (s.empty() ? "" : ";") + s;
    out[s] += p.columns[c].self[n];
  }
  return out;
}

// No two children of one parent share a frame.
void expect_merged_siblings(const Profile& p) {
  std::set<std::pair<NodeId, FrameId>> seen;
  for (NodeId n = 1; n < p.node_count(); ++n)
    EXPECT_TRUE(seen.emplace(p.parent[n], p.frame[n]).second) << "two children of one parent are " << p.symbols.name(p.frame[n]);
}

}  // namespace

TEST(ShortNames, TableOfRealAndMadeUpNames) {
  auto rows = name_table();
  ASSERT_GT(rows.size(), 40u);
  for (const auto& [name, expected] : rows) EXPECT_EQ(short_name(name), expected) << name;
}

TEST(ShortNames, IssueExamples) {
  EXPECT_EQ(short_name("void at::native::elementwise_kernel<128, 4, at::native::Functor<float> >(int, at::native::Functor<float>)"),
            "at::native::elementwise_kernel<\xE2\x80\xA6>");
  EXPECT_EQ(short_name("ampere_sgemm_128x64_tn"), "ampere_sgemm_128x64_tn");
  EXPECT_EQ(short_name("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x3_nn_align4>(cutlass_80_tensorop_s1688gemm_128x128_16x3_nn_align4::Params)"),
            "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x3_nn_align4>");
}

TEST(ShortNames, ShorterAndStableOnEveryKernelOfRealTraces) {
  REQUIRE_SHARED("data/kineto");
  const char* traces[] = {
      "data/kineto/AMD-AGI__TraceLens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
      "data/kineto/AMD-AGI__TraceLens/tests/traces/mi300/gaunernst_bert-small-uncased__1016001.json.gz",
      "data/kineto/pytorch__kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
  };
  size_t kernels = 0, shortened = 0;
  for (const char* t : traces) {
    Profile p = read_profile({shared_path + t}, ReadOptions{});
    for (FrameId f = 0; f < p.symbols.frame_count(); ++f) {
      if (p.symbols.category_name(p.symbols[f].category) != "kernel") continue;
      std::string name(p.symbols.name(f)), s = short_name(name);
      ++kernels;
      EXPECT_LE(s.size(), name.size()) << name;
      EXPECT_EQ(short_name(s), s) << "shortening twice changes " << name;
      EXPECT_EQ(s.find('('), std::string::npos) << "a parameter list is left in " << s;
      if (s != name) ++shortened;
    }
  }
  EXPECT_GT(kernels, 50u);
  EXPECT_GT(shortened, kernels / 3);
}

TEST(ModuleNames, NumberedInstancesOnly) {
  EXPECT_EQ(module_class("nn.Module: Qwen2DecoderLayer_0"), "nn.Module: Qwen2DecoderLayer");
  EXPECT_EQ(module_class("nn.Module: Qwen2DecoderLayer_23"), "nn.Module: Qwen2DecoderLayer");
  EXPECT_EQ(module_class("nn.Module: Linear_117"), "nn.Module: Linear");
  EXPECT_EQ(module_class("nn.Module: My_Block_2"), "nn.Module: My_Block");
  EXPECT_EQ(module_class("nn.Module: Block"), "");
  EXPECT_EQ(module_class("nn.Module: Block_"), "");
  EXPECT_EQ(module_class("nn.Module: Block_2a"), "");
  EXPECT_EQ(module_class("nn.Module: _3"), "");
  EXPECT_EQ(module_class("aten::cat.out-dtype_Long-extraKey_1"), "");
  EXPECT_EQ(module_class("triton_poi_fused_add_cos_sin_0"), "");
  EXPECT_EQ(module_class("## forward ##"), "");
}

TEST(ModuleNames, InstancesAndSubtreesMergeTotalsKept) {
  Profile p;
  p.add_column("cpu", "ns");
  p.add_column("calls", "count");
  add(p, "thread:main;model.py:forward;nn.Module: Layer_0;attn;aten::mm", 30);
  add(p, "thread:main;model.py:forward;nn.Module: Layer_0;mlp", 5);
  add(p, "thread:main;model.py:forward;nn.Module: Layer_1;attn;aten::mm", 20);
  add(p, "thread:main;model.py:forward;nn.Module: Layer_1;attn;aten::softmax", 7);
  add(p, "thread:main;model.py:forward;nn.Module: Layer_2;mlp", 4);
  add(p, "thread:main;model.py:forward;nn.Module: Layer_2", 1);
  add(p, "thread:main;model.py:forward;nn.Module: Norm_0", 2);
  add(p, "thread:main;model.py:forward;nn.Module: Layer_1;attn", 1, 1);
  add(p, "thread:nn.Module: Worker_1;loop", 9);  // a group frame keeps its name
  const double cpu = p.total(0), calls = p.total(1);
  make_names_readable(p, NameOptions{false, true});
  EXPECT_EQ(p.total(0), cpu);
  EXPECT_EQ(p.total(1), calls);
  expect_merged_siblings(p);
  std::map<std::string, double> want = {
      {"main;model.py:forward;nn.Module: Layer;attn;aten::mm", 50},
      {"main;model.py:forward;nn.Module: Layer;attn;aten::softmax", 7},
      {"main;model.py:forward;nn.Module: Layer;mlp", 9},
      {"main;model.py:forward;nn.Module: Layer", 1},
      {"main;model.py:forward;nn.Module: Norm", 2},
      {"nn.Module: Worker_1;loop", 9},
  };
  EXPECT_EQ(stacks(p, 0), want);
  EXPECT_EQ(stacks(p, 1), (std::map<std::string, double>{{"main;model.py:forward;nn.Module: Layer;attn", 1}}));
  // One Layer node holds the three instances' inclusive weight.
  std::vector<double> tot = p.totals(0);
  size_t layers = 0;
  for (NodeId n = 1; n < p.node_count(); ++n)
    if (p.symbols.name(p.frame[n]) == "nn.Module: Layer") {
      ++layers;
      EXPECT_EQ(tot[n], 30 + 5 + 20 + 7 + 4 + 1);
    }
  EXPECT_EQ(layers, 1u);
  bool said = false;
  for (const auto& [k, v] : p.facts)
    if (k.find("--merge-modules") != std::string::npos) said = v == "4";  // Layer_0..2 and Norm_0
  EXPECT_TRUE(said);
}

TEST(ModuleNames, NothingToDoLeavesTheProfile) {
  Profile p;
  p.add_column("samples", "samples");
  add(p, "main;aten::mm", 3);
  size_t nodes = p.node_count(), frames = p.symbols.frame_count();
  make_names_readable(p, NameOptions{true, true});
  EXPECT_EQ(p.node_count(), nodes);
  EXPECT_EQ(p.symbols.frame_count(), frames);
  EXPECT_TRUE(p.facts.empty());
}

TEST(ShortNames, FramesThatMeetMergeAndKernelStatisticsCombine) {
  Profile p;
  int gpu = p.add_column("gpu", "ns");
  int kernels = p.add_column("kernels", "count");
  CategoryId k = p.symbols.category("kernel");
  FrameId launch = p.symbols.frame("aten::add");
  FrameId a = p.symbols.frame("void at::native::vectorized_elementwise_kernel<4, A, B>(int, A, B)", {}, 0, k);
  FrameId b = p.symbols.frame("void at::native::vectorized_elementwise_kernel<4, C, D>(int, C, D)", {}, 0, k);
  NodeId l = p.child(0, launch);
  NodeId na = p.child(l, a), nb = p.child(l, b);
  p.add(na, gpu, 100);
  p.add(na, kernels, 2);
  p.add(nb, gpu, 60);
  p.add(nb, kernels, 3);
  p.device_ops = {DeviceOpStats{a, 2, 100, 40, 60}, DeviceOpStats{b, 3, 60, 10, 30}};
  make_names_readable(p, NameOptions{true, false});
  expect_merged_siblings(p);
  EXPECT_EQ(stacks(p, gpu), (std::map<std::string, double>{{"aten::add;at::native::vectorized_elementwise_kernel<\xE2\x80\xA6>", 160}}));
  EXPECT_EQ(stacks(p, kernels), (std::map<std::string, double>{{"aten::add;at::native::vectorized_elementwise_kernel<\xE2\x80\xA6>", 5}}));
  ASSERT_EQ(p.device_ops.size(), 1u);
  EXPECT_EQ(p.device_ops[0].count, 5u);
  EXPECT_EQ(p.device_ops[0].total_ns, 160);
  EXPECT_EQ(p.device_ops[0].min_ns, 10);
  EXPECT_EQ(p.device_ops[0].max_ns, 60);
  EXPECT_EQ(p.symbols.category_name(p.symbols[p.device_ops[0].frame].category), "kernel");
}

TEST(ModuleNames, RealQwenTraceFoldsTwentyFourLayersIntoOne) {
  REQUIRE_SHARED("data/kineto/AMD-AGI__TraceLens");
  std::string path = shared_path + "data/kineto/AMD-AGI__TraceLens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";
  Profile p = read_profile({path}, ReadOptions{});
  auto count_nodes = [](const Profile& q, auto&& pred) {
    size_t n = 0;
    for (NodeId v = 1; v < q.node_count(); ++v) n += pred(q.symbols.name(q.frame[v]));
    return n;
  };
  auto layer = [](std::string_view name) { return name.rfind("nn.Module: Qwen2DecoderLayer", 0) == 0; };
  EXPECT_EQ(count_nodes(p, layer), 24u);  // one per instance: 24 towers
  std::vector<double> before(p.columns.size());
  for (size_t c = 0; c < p.columns.size(); ++c) before[c] = p.total(int(c));
  std::vector<double> layer_total_before(p.columns.size(), 0);
  for (size_t c = 0; c < p.columns.size(); ++c) {
    std::vector<double> t = p.totals(int(c));
    for (NodeId v = 1; v < p.node_count(); ++v)
      if (layer(p.symbols.name(p.frame[v]))) layer_total_before[c] += t[v];
  }
  make_names_readable(p, NameOptions{false, true});
  for (size_t c = 0; c < p.columns.size(); ++c) EXPECT_DOUBLE_EQ(p.total(int(c)), before[c]) << p.columns[c].name;
  EXPECT_EQ(count_nodes(p, [](std::string_view n) { return n == "nn.Module: Qwen2DecoderLayer"; }), 1u);
  EXPECT_EQ(count_nodes(p, [](std::string_view n) { return n.rfind("nn.Module: Qwen2DecoderLayer_", 0) == 0; }), 0u);
  for (size_t c = 0; c < p.columns.size(); ++c) {
    std::vector<double> t = p.totals(int(c));
    for (NodeId v = 1; v < p.node_count(); ++v)
      if (p.symbols.name(p.frame[v]) == "nn.Module: Qwen2DecoderLayer") EXPECT_DOUBLE_EQ(t[v], layer_total_before[c]);
  }
  expect_merged_siblings(p);
}

// ---------------------------------------------------------------- the options on every output

namespace {

std::string fixture_folded() {
  return test::write_file("ml.folded",
                          "main;model;nn.Module: Block_0;void at::native::elementwise_kernel<128, 4, F>(int, F) 5\n"
                          "main;model;nn.Module: Block_1;void at::native::elementwise_kernel<128, 2, G>(int, G) 3\n"
                          "main;model;nn.Module: Block_1;aten::mm 4\n"
                          "main;model;nn.Module: Head_0 2\n");
}
const std::string kShort = "at::native::elementwise_kernel<\xE2\x80\xA6>";

}  // namespace

TEST(NameOptions, CollapseAndFoldedOutputs) {
  std::string in = fixture_folded();
  test::RunResult r = test::flamefold("collapse " + in + " --short-names --merge-modules");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "main;model;nn.Module: Block;" + kShort + " 8\n"
                   "main;model;nn.Module: Block;aten::mm 4\n"
                   "main;model;nn.Module: Head 2\n");
  r = test::flamefold("collapse " + in + " --merge-modules");
  EXPECT_NE(r.out.find("nn.Module: Block;void at::native::elementwise_kernel<128, 4, F>(int, F) 5"), std::string::npos) << r.out;
  r = test::flamefold("collapse " + in + " --short-names");
  EXPECT_NE(r.out.find("nn.Module: Block_0;" + kShort + " 5"), std::string::npos) << r.out;
  std::string folded = test::tmp_path("out.folded");
  r = test::flamefold("flamegraph " + in + " --short-names --merge-modules -o " + folded);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_file(folded), test::flamefold("collapse " + in + " --short-names --merge-modules").out);
}

TEST(NameOptions, SvgAndTop) {
  std::string in = fixture_folded();
  std::string svg = test::tmp_path("out.svg");
  test::RunResult r = test::flamefold("flamegraph " + in + " --short-names --merge-modules -o " + svg);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string s = test::read_file(svg);
  EXPECT_NE(s.find("nn.Module: Block"), std::string::npos);
  EXPECT_EQ(s.find("Block_1"), std::string::npos);
  EXPECT_EQ(s.find("(int, F)"), std::string::npos);
  r = test::flamefold("top " + in + " --short-names --merge-modules --sort total");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nn.Module: Block\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(kShort + "\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Block_0"), std::string::npos) << r.out;
  r = test::flamefold("top " + in + " --merge-modules --json");
  EXPECT_NE(r.out.find("\"name\":\"nn.Module: Block\",\"self\":0,\"total\":12"), std::string::npos) << r.out;
  // The python -m pstats table (a pstats sort key) goes through the renamed tree too.
  r = test::flamefold("top " + in + " --merge-modules --sort cumulative");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nn.Module: Block"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Block_1"), std::string::npos) << r.out;
}

TEST(NameOptions, HtmlKeepsFullNamesAndTurnsThePageSwitchesOn) {
  std::string in = fixture_folded();
  std::string html = test::tmp_path("out.html");
  test::RunResult r = test::flamefold("flamegraph " + in + " --short-names --merge-modules -o " + html);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string payload = html_payload::payload_of(test::read_file(html));
  EXPECT_NE(payload.find("\"short_names\":true"), std::string::npos);
  EXPECT_NE(payload.find("\"merge_modules\":true"), std::string::npos);
  EXPECT_NE(payload.find("nn.Module: Block_1"), std::string::npos);
  EXPECT_NE(payload.find("void at::native::elementwise_kernel<128, 4, F>(int, F)"), std::string::npos);
}

TEST(NameOptions, DiffConvertAndCallgraph) {
  std::string before = test::write_file("before.folded", "main;nn.Module: Block_0;aten::mm 5\nmain;nn.Module: Block_1;aten::mm 5\n");
  std::string after = test::write_file("after.folded", "main;nn.Module: Block_0;aten::mm 7\nmain;nn.Module: Block_1;aten::mm 6\n");
  std::string out = test::tmp_path("diff.folded");
  test::RunResult r = test::flamefold("diff " + before + " " + after + " --merge-modules -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_file(out), "main;nn.Module: Block;aten::mm 10 13\n");
  r = test::flamefold("diff " + before + " " + after + " --merge-modules");
  EXPECT_NE(r.out.find("nn.Module: Block"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Block_0"), std::string::npos) << r.out;

  std::string in = fixture_folded(), prof = test::tmp_path("out.prof");
  r = test::flamefold("convert " + in + " --merge-modules --short-names -o " + prof);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::flamefold("top " + prof + " --sort tottime");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nn.Module: Block"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(kShort), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Block_1"), std::string::npos) << r.out;

  std::string dot = test::tmp_path("calls.dot");
  r = test::flamefold("callgraph " + in + " --merge-modules --node-thres 0 --edge-thres 0 -o " + dot);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string d = test::read_file(dot);
  EXPECT_NE(d.find("nn.Module: Block"), std::string::npos);
  EXPECT_EQ(d.find("Block_1"), std::string::npos);

  // Trace events are not renamed: said, not ignored, and no file is left behind.
  std::string json = test::tmp_path("trace.json");
  r = test::flamefold("convert " + in + " --short-names -o " + json);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--short-names"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(json));
}
