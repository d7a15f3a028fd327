// Parity with the peer collapsers: FlameGraph's stackcollapse-*.pl and inferno's collapse-*
// (../shared/peers) run on the same inputs as `flamefold collapse`, and their folded stacks
// compared: the same stacks with the same counts. The peers' lines are added up per stack and
// sorted first (inferno-collapse-sample and stackcollapse-bpftrace.pl print stacks as they meet
// them), and stacks of zero weight are left out (flamefold does not write them). Skips when
// ../shared/peers is absent.
#include <map>
#include <sstream>
#include <string>

#include "stack_fixtures.h"
#include "stack_generators.h"
#include "test_support.h"

namespace {

std::string normalize(const std::string& folded) {
  std::map<std::string, double> sum;
  std::istringstream in(folded);
  for (std::string line; std::getline(in, line);) {
    size_t sp = line.rfind(' ');
    if (sp == std::string::npos) continue;
    sum[line.substr(0, sp)] += std::stod(line.substr(sp + 1));
  }
  std::string out;
  for (const auto& [stack, w] : sum) {
    if (w == 0) continue;
    char num[64];
    std::snprintf(num, sizeof num, "%.17g", w);
    out += stack + " " + num + "\n";
  }
  return out;
}

size_t lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// Runs each peer that collapses this format on `file`, comparing with flamefold's output.
// Returns how many peers were compared.
int compare_with_peers(const std::string& shared, const std::string& file, const char* perl, const char* inferno) {
  test::RunResult ours = test::flamefold("collapse " + file);
  EXPECT_EQ(ours.exit_code, 0) << file << ": " << ours.err;
  EXPECT_EQ(ours.out, normalize(ours.out)) << "flamefold's lines are sorted, one per stack";
  int compared = 0;
  auto check = [&](const std::string& command, const std::string& peer) {
    test::RunResult theirs = test::run(command);
    ASSERT_EQ(theirs.exit_code, 0) << peer << " failed on " << file << ": " << theirs.err;
    std::string expected = normalize(theirs.out);
    EXPECT_GT(lines(expected), 0u) << peer << " printed no stack for " << file;
    EXPECT_EQ(normalize(ours.out), expected) << "flamefold differs from " << peer << " on " << file;
    ++compared;
  };
  if (*perl) check("perl " + shared + "peers/FlameGraph/" + perl + " " + file, perl);
  if (*inferno) check(shared + "peers/inferno/" + inferno + " " + file, inferno);
  return compared;
}

}  // namespace

TEST(StackCollapseParity, HandWrittenInputsOfEveryFormat) {
  REQUIRE_SHARED("peers");
  int compared = 0;
  for (const test::StackFixture& f : test::stack_fixtures()) {
    std::string file = test::write_file(f.file, f.text);
    compared += compare_with_peers(shared_path, file, f.perl, f.inferno);
  }
  // dtrace has two peers; go -traces has none (pprof's own text, no collapser reads it).
  EXPECT_EQ(compared, 11);
}

TEST(StackCollapseParity, GeneratedInputsOfEveryFormat) {
  REQUIRE_SHARED("peers");
  int compared = 0;
  for (const test::gen::Generated& g : test::gen::generators()) {
    for (uint32_t seed = 1; seed <= 3; ++seed) {
      std::string text = g.make(seed, g.n);
      std::string file = test::write_file(std::string(g.name) + "-" + std::to_string(seed) + ".txt", text);
      compared += compare_with_peers(shared_path, file, g.perl, g.inferno);
    }
  }
  EXPECT_EQ(compared, 33);  // 11 peers, 3 inputs each
}
