// What an output is: named by --to, else by the path's extension, else (stdout) the command's
// default: `flamegraph` writes SVG to stdout as flamegraph.pl and inferno do.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "flamefold/errors.h"
#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "test_support.h"

using flamefold::OutputKind;
using flamefold::output_kind;

namespace {

const char kStacks[] = "main;parse;read 7\nmain;parse 2\nmain;render 5\n";

std::string stacks_file() { return test::write_file("kind.folded", kStacks); }

}  // namespace

TEST(OutputKind, ToWinsThenTheExtensionThenStdoutsDefault) {
  EXPECT_EQ(output_kind("x.svg", "html"), OutputKind::Html);
  EXPECT_EQ(output_kind("x", "pprof"), OutputKind::Pprof);
  EXPECT_EQ(output_kind("f.HTML", ""), OutputKind::Html);
  EXPECT_EQ(output_kind("f.htm", ""), OutputKind::Html);
  EXPECT_EQ(output_kind("f.svg", ""), OutputKind::Svg);
  EXPECT_EQ(output_kind("f.collapsed", ""), OutputKind::Folded);
  EXPECT_EQ(output_kind("run.speedscope.json", ""), OutputKind::Speedscope);
  EXPECT_EQ(output_kind("cpu.pb.gz", ""), OutputKind::Pprof);
  EXPECT_EQ(output_kind("cpu.pb", ""), OutputKind::Pprof);
  EXPECT_EQ(output_kind("-", ""), OutputKind::Folded);
  EXPECT_EQ(output_kind("-", "", OutputKind::Svg), OutputKind::Svg);
  EXPECT_EQ(output_kind("/dev/stdout", "", OutputKind::Svg), OutputKind::Svg);
  EXPECT_EQ(output_kind("/proc/self/fd/1", "", OutputKind::Svg), OutputKind::Svg);
  EXPECT_EQ(output_kind("/dev/null", ""), OutputKind::Unknown);
  EXPECT_EQ(output_kind("out.json", ""), OutputKind::Unknown);  // a trace? speedscope? the CLI asks
  EXPECT_THROW(output_kind("x.svg", "png"), flamefold::UsageError);
  EXPECT_TRUE(flamefold::names_stdout("-"));
  EXPECT_TRUE(flamefold::names_stdout("/dev/fd/1"));
  EXPECT_FALSE(flamefold::names_stdout("/dev/stderr"));
  EXPECT_FALSE(flamefold::names_stdout("./-"));
}

TEST(OutputKind, FlamegraphWithoutAnOutputWritesSvgToStdout) {
  const std::string in = stacks_file(), svg = test::tmp_path("kind.svg");
  std::filesystem::remove(svg);
  test::RunResult to_file = test::flamefold("flamegraph " + in + " -o " + svg);
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  const std::string want = test::read_file(svg);
  ASSERT_NE(want.find("<svg"), std::string::npos);
  test::RunResult piped = test::flamefold("flamegraph " + in);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out, want) << "the same SVG as -o x.svg";
  EXPECT_EQ(piped.err, "") << "nothing said about a file written";
  test::RunResult dev = test::flamefold("flamegraph " + in + " -o /dev/stdout");
  ASSERT_EQ(dev.exit_code, 0) << dev.err;
  EXPECT_EQ(dev.out, want);
  // From stdin too, as `stackcollapse-perf.pl | flamegraph.pl > out.svg`.
  test::RunResult stdin_run = test::run("cat " + in + " | " + test::binary() + " flamegraph");
  ASSERT_EQ(stdin_run.exit_code, 0) << stdin_run.err;
  EXPECT_EQ(stdin_run.out, want);
}

TEST(OutputKind, ToNamesTheKindOfAnyOutput) {
  const std::string in = stacks_file();
  test::RunResult html = test::flamefold("flamegraph " + in + " --to html");
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_EQ(html.out.rfind("<!DOCTYPE html>", 0), 0u);
  test::RunResult folded = test::flamefold("flamegraph " + in + " --to folded -o /dev/stdout");
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  EXPECT_EQ(folded.out, test::flamefold("collapse " + in).out);
  EXPECT_EQ(folded.out, "main;parse 2\nmain;parse;read 7\nmain;render 5\n");
  // A name without an extension takes the kind --to gives it.
  const std::string plain = test::tmp_path("kind-speedscope");
  test::RunResult ss = test::flamefold("flamegraph " + in + " --to speedscope -o " + plain);
  ASSERT_EQ(ss.exit_code, 0) << ss.err;
  EXPECT_NE(test::read_file(plain).find("speedscope.app/file-format-schema.json"), std::string::npos);
  // pprof's files are gzipped, as pprof writes them.
  test::RunResult pb = test::flamefold("flamegraph " + in + " --to pprof");
  ASSERT_EQ(pb.exit_code, 0) << pb.err;
  ASSERT_GE(pb.out.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(pb.out[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(pb.out[1]), 0x8b);
  // merge and diff take it too; diff's default on stdout stays its table.
  test::RunResult merged = test::flamefold("merge " + in + " " + in + " --label-by none --to folded -o -");
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(merged.out, "main;parse 4\nmain;parse;read 14\nmain;render 10\n");
  test::RunResult table = test::flamefold("diff " + in + " " + in);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.find("<svg"), std::string::npos);
  test::RunResult diff_svg = test::flamefold("diff " + in + " " + in + " --to svg");
  ASSERT_EQ(diff_svg.exit_code, 0) << diff_svg.err;
  EXPECT_NE(diff_svg.out.find("<svg"), std::string::npos);
}

TEST(OutputKind, ConvertTakesTo) {
  const std::string in = stacks_file(), prof = test::tmp_path("kind.prof");
  test::RunResult file = test::flamefold("convert " + in + " -o " + prof);
  ASSERT_EQ(file.exit_code, 0) << file.err;
  test::RunResult piped = test::flamefold("convert " + in + " --to pstats -o /dev/stdout");
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out, test::read_file(prof));
  test::RunResult ss = test::flamefold("convert " + in + " --to speedscope -o -");
  ASSERT_EQ(ss.exit_code, 0) << ss.err;
  EXPECT_NE(ss.out.find("speedscope.app/file-format-schema.json"), std::string::npos);
}

TEST(OutputKind, AnOutputOfNoKnownKindIsOneClearErrorAndNoFile) {
  const std::string in = stacks_file(), odd = test::tmp_path("kind.weird");
  std::filesystem::remove(odd);
  test::RunResult r = test::flamefold("flamegraph " + in + " -o " + odd);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot tell the output kind from '" + odd + "'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--to"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(odd));
  r = test::flamefold("flamegraph " + in + " --to png");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--to"), std::string::npos) << r.err;
  r = test::flamefold("convert " + in + " -o " + odd);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("name it with --to (chrome, pstats, speedscope, pprof)"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(odd));
  // Chrome trace JSON comes from databases: a sampled profile says so.
  r = test::flamefold("convert " + in + " -o " + test::tmp_path("kind.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("reads an Nsight Systems or Ascend database"), std::string::npos) << r.err;
}

// callgraph: DOT on stdout by default, as gprof2dot writes it for `| dot -Tpng`; --to has
// Graphviz draw another kind there.
TEST(OutputKind, CallgraphWritesDotToStdoutAsGprof2dot) {
  const std::string in = stacks_file(), dot = test::tmp_path("kind.dot");
  test::RunResult file = test::flamefold("callgraph " + in + " -o " + dot);
  ASSERT_EQ(file.exit_code, 0) << file.err;
  test::RunResult piped = test::flamefold("callgraph " + in);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out.rfind("digraph {", 0), 0u) << piped.out.substr(0, 80);
  EXPECT_EQ(piped.out, test::read_file(dot));
  test::RunResult odd = test::flamefold("callgraph " + in + " -o " + test::tmp_path("kind.weird"));
  EXPECT_EQ(odd.exit_code, 2);
  EXPECT_NE(odd.err.find("--to"), std::string::npos) << odd.err;
  if (test::run("command -v dot").exit_code != 0) GTEST_SKIP() << "Graphviz's dot is not installed: --to svg not tried";
  test::RunResult svg = test::flamefold("callgraph " + in + " --to svg -o /dev/stdout");
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  EXPECT_NE(svg.out.find("<svg"), std::string::npos);
}
