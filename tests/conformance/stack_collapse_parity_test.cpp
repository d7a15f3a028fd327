// Parity with the peer collapsers: FlameGraph's stackcollapse-*.pl and inferno's collapse-*
// (../shared/peers) run on the same inputs as `flamefold collapse`, and their folded stacks
// compared: the same stacks with the same counts. The peers' lines are added up per stack and
// sorted first (inferno-collapse-sample and stackcollapse-bpftrace.pl print stacks as they meet
// them), and stacks of zero weight are left out (flamefold does not write them). Skips when
// ../shared/peers is absent.
#include <map>
#include <sstream>
#include <stdexcept>
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

// Runs each peer that collapses this format on `file`, comparing with flamefold's output, both
// given the same switches (`flags`, spelled alike by flamefold and the peers). Returns how many
// peers were compared.
int compare_with_peers(const std::string& shared, const std::string& file, const char* perl, const char* inferno,
                       const std::string& flags = "") {
  const std::string opts = flags.empty() ? "" : flags + " ";
  test::RunResult ours = test::flamefold("collapse " + opts + file);
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
  if (*perl) check("perl " + shared + "peers/FlameGraph/" + perl + " " + opts + file, perl);
  if (*inferno) check(shared + "peers/inferno/" + inferno + " " + opts + file, inferno);
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

// A GHC report of `+RTS -P`: ticks and bytes columns after the inherited percentages.
const char* kGhcProfDetailed = R"FIX(	Sun Mar 12 10:00 2023 Time and Allocation Profiling Report  (Final)

	   wordfreq +RTS -P -RTS input.txt

	total time  =        1.25 secs   (1250 ticks @ 1000 us, 1 processor)
	total alloc = 2,345,678,900 bytes  (excludes profiling overheads)

COST CENTRE    MODULE    SRC                        %time %alloc  ticks     bytes

countWords     Main      src/Main.hs:(20,1)-(25,30)  60.2   55.1    752 1292468073
tokenize       Text      src/Text.hs:14:1-40         30.1   40.0    376  938271560


                                                                                  individual      inherited
COST CENTRE        MODULE                SRC                        no.     entries  %time %alloc   %time %alloc  ticks     bytes

MAIN               MAIN                  <built-in>                 120          0    0.3    0.0   100.0  100.0      4         0
 CAF               GHC.IO.Handle.FD      <entire-module>            230          0    0.1    0.0     0.1    0.0      1      7568
 CAF               Main                  <entire-module>            239          0    0.0    0.0    99.6  100.0      0       432
  main             Main                  src/Main.hs:10:1-30        241          1    0.7    0.4    99.6  100.0      9   9382716
   countWords      Main                  src/Main.hs:(20,1)-(25,30) 243          1   60.2   55.1    98.9   99.6    752 1292468073
    tokenize       Text                  src/Text.hs:14:1-40        245      40000   30.1   40.0    30.1   40.0    376  938271560
    insertWith'    Data.Map.Strict       src/Main.hs:22:5-40        247     120000    8.5    4.5     8.5    4.5    106  105555555
   report          Main                  src/Main.hs:30:1-25        249          1    0.0    0.0     0.0    0.0      0      1024
)FIX";

// The peers' switches, under the same names in flamefold: each gives the peer's stacks.
TEST(StackCollapseParity, ThePeersSwitches) {
  REQUIRE_SHARED("peers");
  auto fixture = [](const char* name) -> const test::StackFixture& {
    for (const test::StackFixture& f : test::stack_fixtures())
      if (std::string(f.file) == name) return f;
    throw std::runtime_error(std::string("no fixture ") + name);
  };
  struct Case {
    const char* fixture;  // a stack_fixtures() input, or "ghc-detailed.prof"
    const char* perl;
    const char* inferno;
    const char* flags;
  };
  const Case cases[] = {
      {"dtrace.txt", "", "inferno-collapse-dtrace", "--includeoffset"},
      {"sample.txt", "", "inferno-collapse-sample", "--no-modules"},
      {"vtune.csv", "", "inferno-collapse-vtune", "--no-modules"},
      {"jstack.txt", "stackcollapse-jstack.pl", "", "--include-tid"},
      {"jstack.txt", "stackcollapse-jstack.pl", "", "--no-include-tname"},
      {"jstack.txt", "stackcollapse-jstack.pl", "", "--shorten-pkgs"},
      {"jstack.txt", "stackcollapse-jstack.pl", "", "--include-tid --shorten-pkgs"},
      {"ghc-detailed.prof", "", "inferno-collapse-ghcprof", ""},
      {"ghc-detailed.prof", "", "inferno-collapse-ghcprof", "--ticks"},
      {"ghc-detailed.prof", "", "inferno-collapse-ghcprof", "--bytes"},
  };
  int compared = 0;
  for (const Case& c : cases) {
    const bool ghc = std::string(c.fixture) == "ghc-detailed.prof";
    std::string file = test::write_file(c.fixture, ghc ? std::string(kGhcProfDetailed) : fixture(c.fixture).text);
    SCOPED_TRACE(std::string(c.fixture) + " " + c.flags);
    compared += compare_with_peers(shared_path, file, c.perl, c.inferno, c.flags);
  }
  EXPECT_EQ(compared, 10);
  // Switches change what is printed (the comparisons above are not of identical outputs).
  const std::string jstack = test::write_file("jstack.txt", fixture("jstack.txt").text);
  EXPECT_NE(test::flamefold("collapse " + jstack).out, test::flamefold("collapse --shorten-pkgs " + jstack).out);
  const std::string ghc = test::write_file("ghc-detailed.prof", kGhcProfDetailed);
  EXPECT_NE(test::flamefold("collapse --ticks " + ghc).out, test::flamefold("collapse --bytes " + ghc).out);
}

// --ticks on a report without the ticks column (+RTS -p) says so.
TEST(StackCollapseParity, TicksNeedADetailedReport) {
  std::string file;
  for (const test::StackFixture& f : test::stack_fixtures())
    if (std::string(f.file) == "ghc.prof") file = test::write_file("ghc-plain.prof", f.text);
  ASSERT_FALSE(file.empty());
  test::RunResult r = test::flamefold("collapse --ticks " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no ticks column"), std::string::npos) << r.err;
}
