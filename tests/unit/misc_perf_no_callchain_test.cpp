// perf record without -g: `perf script` prints one line per sample, the comm right-aligned in
// 16 columns and the sample's own ip/symbol/dso after the event, with no blank lines between
// samples. stackcollapse-perf.pl prints nothing for such a file (it waits for blank lines and
// its header pattern needs a non-space first character); flamefold gives each sample the stack
// "comm;symbol" (or "comm" alone when perf printed no symbol), tidied and annotated the way
// stackcollapse-perf.pl tidies a stack line.
#include <string>

#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "flamefold/readers/perf_script.h"
#include "flamefold/writers/folded.h"
#include "test_support.h"

using namespace flamefold;

namespace {

// The shapes perf 6.1 printed on this machine for `perf record -e cpu-clock` (no -g), plus a
// comm with a space and tid/pid, a "[unknown]" symbol and an inlined chain.
const char* kNoCallchain =
    "# ========\n"
    "# captured on    : Sun Nov 22 06:00:00 2026\n"
    "# ========\n"
    "#\n"
    "            bash 21171 13994.926344:    1001001 cpu-clock:  ffffffff815a2001 next_uptodate_folio+0xc1 ([kernel.kallsyms])\n"
    "         python3 21180 13994.927344:    1001001 cpu-clock:      7fac3b61a44c _int_malloc+0xec (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
    "         python3 21180 13994.928346:    1001001 cpu-clock:      7f12a3b4c5d6 _PyEval_EvalFrameDefault+0x1a2 (/usr/bin/python3.11)\n"
    "         python3 21180 13994.929346:    1001001 cpu-clock:      7f12a3b4c5d6 _PyEval_EvalFrameDefault+0x1a2 (/usr/bin/python3.11)\n"
    " V8 WorkerThread 12347/12348 13994.930000:    1001001 cpu-clock:      7f00000010 [unknown] (/usr/lib/libfoo.so)\n"
    "            perf 12346 13994.931000:    1001001 cpu-clock:  ffffffffffffffff [unknown] ([unknown])\n"
    "         python3 21180 13994.932346:    1001001 cpu-clock:      7f12a3b4c5d6 outer->inner+0x2 (/usr/bin/python3.11)\n";

Input memory(const std::string& text) { return Input::from_memory("nog.perf", text); }

std::string folded(const Profile& p) {
  std::string path = test::tmp_path("out.folded");
  {
    OutputFile out(path);
    write_folded(p, p.default_column, out, WriteOptions{});
    out.commit();
  }
  return test::read_file(path);
}

std::string collapse(const std::string& text, const PerfOptions& perf = {}, unsigned threads = 1) {
  ReadOptions o;
  o.perf = perf;
  o.threads_to_use = threads;
  Input in = memory(text);
  return folded(read_perf_script(in, o));
}

std::string fact(const Profile& p, const std::string& key) {
  for (const auto& [k, v] : p.facts)
    if (k == key) return v;
  return "";
}

}  // namespace

TEST(MiscPerfNoCallchain, SniffedAsPerfScript) {
  EXPECT_TRUE(looks_like_perf_script(kNoCallchain));
  EXPECT_EQ(sniff_format(kNoCallchain, "perf.txt"), Format::PerfScript);
  // No comment block, header not indented (a 16-character comm).
  EXPECT_EQ(sniff_format("python3.11-worker 5 1.0: 1 cycles:  401000 main (/a.out)\n", "x"), Format::PerfScript);
  // `perf script -F comm,tid,time,period,event`: no ip, so the header ends at the event and
  // the next line is the next header.
  EXPECT_EQ(sniff_format("            bash 21171 13994.926344:    1001001 cpu-clock: \n"
                         "            bash 21171 13994.927344:    1001001 cpu-clock: \n",
                         "x"),
            Format::PerfScript);
  // Folded stacks stay folded.
  EXPECT_EQ(sniff_format("python3;_PyEval_EvalFrameDefault 2\nbash;main 1\n", "x"), Format::Folded);
}

TEST(MiscPerfNoCallchain, EachLineIsACommAndSymbolSample) {
  EXPECT_EQ(collapse(kNoCallchain),
            "V8_WorkerThread;[libfoo.so] 1001001\n"
            "bash;next_uptodate_folio 1001001\n"
            "perf;[unknown] 1001001\n"
            "python3;_PyEval_EvalFrameDefault 2002002\n"
            "python3;_int_malloc 1001001\n"
            "python3;outer;inner_[i] 1001001\n");
  PerfOptions all;
  all.all = true;
  all.tid = true;
  EXPECT_EQ(collapse(kNoCallchain, all),
            "V8_WorkerThread-12347/12348;[libfoo.so] 1001001\n"
            "bash-?/21171;next_uptodate_folio_[k] 1001001\n"
            "perf-?/12346;[unknown] 1001001\n"
            "python3-?/21180;_PyEval_EvalFrameDefault 2002002\n"
            "python3-?/21180;_int_malloc 1001001\n"
            "python3-?/21180;outer;inner_[i] 1001001\n");
}

TEST(MiscPerfNoCallchain, LastLineCountsAndFirstEventIsKept) {
  ReadOptions o;
  o.threads_to_use = 1;
  std::string text =
      "         python3 1 1.0:          1 cycles:ppp:      401000 main+0x1 (/a.out)\n"
      "         python3 1 1.1:          7 instructions:      401000 main+0x1 (/a.out)\n"
      "         python3 1 1.2:          1 cycles:ppp:      402000 work (/a.out)";  // no final '\n'
  Input in = memory(text);
  Profile p = read_perf_script(in, o);
  EXPECT_EQ(folded(p), "python3;main 1\npython3;work 1\n");
  EXPECT_EQ(fact(p, "samples"), "2");
  EXPECT_EQ(fact(p, "event").rfind("cycles:ppp", 0), 0u);
  // No "truncated last sample" warning: a one-line sample is complete.
  for (const auto& c : p.counters) EXPECT_EQ(c.what.find("last sample"), std::string::npos) << c.what;
}

TEST(MiscPerfNoCallchain, WithoutIpOrSymbolOnlyTheCommIsLeft) {
  std::string no_ip =
      "            bash 21171 13994.926344:    1001001 cpu-clock: \n"
      "         python3 21180 13994.927344:    1001001 cpu-clock: \n"
      "         python3 21180 13994.928344:    1001001 cpu-clock: \n";
  EXPECT_EQ(collapse(no_ip), "bash 1001001\npython3 2002002\n");
  // An ip without a symbol or dso: the comm alone; an ip with a dso only: named after the dso.
  std::string ip_only =
      "            bash 21171 13994.926344: cpu-clock:  ffffffff815a2001\n"
      "            bash 21171 13994.927344: cpu-clock:      7fac3b61a44c (/usr/lib/x86_64-linux-gnu/libc.so.6)\n";
  EXPECT_EQ(collapse(ip_only), "bash 1\nbash;[libc.so.6] 1\n");
}

TEST(MiscPerfNoCallchain, CallchainFilesAreUnchanged) {
  // A -g file still follows stackcollapse-perf.pl: the unterminated last sample is dropped.
  std::string g =
      "bash 21221 13996.262834:    1001001 cpu-clock: \n"
      "\tffffffff82255667 clear_page_erms+0x7 ([kernel.kallsyms])\n"
      "\t    7f0000001000 main+0x10 (/usr/bin/bash)\n\n"
      "bash 21221 13996.263834:    1001001 cpu-clock: \n"
      "\t    7f0000001000 main+0x10 (/usr/bin/bash)\n";
  EXPECT_EQ(collapse(g), "bash;main;clear_page_erms 1001001\n");
}

TEST(MiscPerfNoCallchain, ParallelReadMatchesOneThread) {
  // ~10 MB without a single blank line: the reader must cut it between headers.
  std::string text;
  const char* comms[] = {"            bash", "         python3", " V8 WorkerThread"};
  const char* frames[] = {"ffffffff815a2001 next_uptodate_folio+0xc1 ([kernel.kallsyms])",
                          "    7fac3b61a44c _int_malloc+0xec (/usr/lib/libc.so.6)",
                          "    7f12a3b4c5d6 [unknown] (/usr/bin/python3.11)", "    7f12a3b4c5d7 f->g (/x)"};
  uint64_t seed = 7, samples = 0;
  auto rnd = [&](uint64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % n;
  };
  while (text.size() < (10u << 20)) {
    text += std::string(comms[rnd(3)]) + " " + std::to_string(100 + rnd(4)) + " 1.5:    1001 cpu-clock:  " +
            frames[rnd(4)] + "\n";
    ++samples;
  }
  ReadOptions o1, o2;
  o1.threads_to_use = 1;
  o2.threads_to_use = 2;
  Input in1 = memory(text), in2 = memory(text);
  Profile one = read_perf_script(in1, o1), two = read_perf_script(in2, o2);
  EXPECT_EQ(fact(one, "samples"), fact(two, "samples"));
  EXPECT_DOUBLE_EQ(one.total(0), 1001.0 * static_cast<double>(samples));
  EXPECT_DOUBLE_EQ(two.total(0), one.total(0));
  EXPECT_EQ(folded(one), folded(two));
}

TEST(MiscPerfNoCallchain, CommandLineCollapseOfAFile) {
  std::string path = test::write_file("nog.txt", kNoCallchain);
  test::RunResult r = test::flamefold("collapse " + path);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("python3;_PyEval_EvalFrameDefault 2002002\n"), std::string::npos) << r.out;
  r = test::flamefold("info " + path);
  EXPECT_NE(r.out.find("perf script"), std::string::npos) << r.out;
}
