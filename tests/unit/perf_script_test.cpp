// The perf script reader: the Perl grammar piece by piece, then whole inputs through the
// reader and the folded writer (stackcollapse-perf.pl's behaviour, option by option).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "flamefold/errors.h"
#include "flamefold/output.h"
#include "flamefold/pipeline.h"
#include "flamefold/progress.h"
#include "flamefold/readers/text/perf_script.h"
#include "flamefold/writers/folded.h"
#include "test_support.h"

using namespace flamefold;
using namespace flamefold::perf_script;

namespace {

Profile read_text(const std::string& text, const PerfOptions& perf = {}, unsigned threads = 1) {
  ReadOptions o;
  o.perf = perf;
  o.threads_to_use = threads;
  Input in = Input::from_memory("test.perf", text);
  return read_perf_script(in, o);
}

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
  return folded(read_text(text, perf, threads));
}

std::string fact(const Profile& p, const std::string& key) {
  for (const auto& [k, v] : p.facts)
    if (k == key) return v;
  return "<none>";
}

uint64_t counter_containing(const Profile& p, const std::string& what) {
  for (const Counter& c : p.counters)
    if (c.what.find(what) != std::string::npos) return c.count;
  return 0;
}

std::vector<std::string> names(const std::string& line, PerfOptions o = {}, bool java = false) {
  StackLine s;
  if (!parse_stack_line(line, s)) return {"<no match>"};
  return frame_names(s, o, java);
}

}  // namespace

TEST(PerfScriptGrammar, EventRecordFindsCommPidAndTid) {
  EventRecord r;
  ASSERT_TRUE(parse_event_record("java 25607 4794564.109216: cycles:", r));
  EXPECT_EQ(r.comm, "java");
  EXPECT_EQ(r.pid, "25607");
  EXPECT_EQ(r.tid, "");
  ASSERT_TRUE(parse_event_record("V8 WorkerThread 24636/25607 [000] 94564.109216: cycles:", r));
  EXPECT_EQ(r.comm, "V8 WorkerThread");
  EXPECT_EQ(r.pid, "24636");
  EXPECT_EQ(r.tid, "25607");
  ASSERT_TRUE(parse_event_record("emulator  4152 75695.008865:          1 cycles:u: ", r));
  EXPECT_EQ(r.comm, "emulator");
  ASSERT_TRUE(parse_event_record("kworker/12:1-events       7/7       [003] 1.0: 1 cpu-clock: ", r));
  EXPECT_EQ(r.comm, "kworker/12:1-events");
  EXPECT_EQ(r.tid, "7");
  // The comm is at least two characters (\S.+?): a one-letter comm swallows what follows.
  ASSERT_TRUE(parse_event_record("a  12 x", r));
  EXPECT_EQ(r.comm, "a ");
  EXPECT_FALSE(parse_event_record("a 123 4.5: cycles:", r));
  // Stack lines start with white space; folded lines have no digits followed by a space.
  EXPECT_FALSE(parse_event_record("\t ffffffff8103ce3b native_safe_halt ([kernel.kallsyms])", r));
  EXPECT_FALSE(parse_event_record("main;foo;bar 12", r));
}

TEST(PerfScriptGrammar, EventNameAndPeriod) {
  std::string_view event, period;
  ASSERT_TRUE(parse_event_name("java 25607 4794564.109216: cycles:", event, period));
  EXPECT_EQ(event, "cycles");
  EXPECT_EQ(period, "");
  ASSERT_TRUE(parse_event_name("dd 29776 666709.771979:   10101010 cpu-clock: ", event, period));
  EXPECT_EQ(event, "cpu-clock");
  EXPECT_EQ(period, "10101010");
  ASSERT_TRUE(parse_event_name("emulator  4152 75695.008865:          1 cycles:u: ", event, period));
  EXPECT_EQ(event, "cycles:u");
  EXPECT_EQ(period, "1");
  // No colon before the event: the perl regex does not match, so no event (and no filter).
  EXPECT_FALSE(parse_event_name("func_ab 15294 cpu-clock: ", event, period));
  EXPECT_FALSE(parse_event_name("t: 1 2 cycles:", event, period));
  EXPECT_FALSE(parse_event_name("java 1 2.0: cycles", event, period));
}

TEST(PerfScriptGrammar, StackLineFollowsPerlBacktracking) {
  StackLine s;
  ASSERT_TRUE(parse_stack_line("\t    7f533952bc77 _dl_check_map_versions+0x597 (/usr/lib/ld-2.28.so)", s));
  EXPECT_EQ(s.pc, "7f533952bc77");
  EXPECT_EQ(s.rawfunc, "_dl_check_map_versions+0x597");
  EXPECT_EQ(s.module, "/usr/lib/ld-2.28.so");
  // The symbol runs to the last " (" that opens a module.
  ASSERT_TRUE(parse_stack_line("  7f72421d2d76 JavaCalls::call_helper(JavaValue, Thread) (/opt/libjvm.so)", s));
  EXPECT_EQ(s.rawfunc, "JavaCalls::call_helper(JavaValue, Thread)");
  EXPECT_EQ(s.module, "/opt/libjvm.so");
  // No symbol at all: Perl's (.+) takes one of the spaces.
  ASSERT_TRUE(parse_stack_line("\t7f1e2215d058  (/lib/x86_64-linux-gnu/libc-2.15.so)", s));
  EXPECT_EQ(s.pc, "7f1e2215d058");
  EXPECT_EQ(s.rawfunc, " ");
  // No address: the last character of the word becomes the symbol.
  ASSERT_TRUE(parse_stack_line("\tfoo (bar)", s));
  EXPECT_EQ(s.pc, "fo");
  EXPECT_EQ(s.rawfunc, "o");
  // Modules may be empty; a module with a space in it does not parse.
  ASSERT_TRUE(parse_stack_line(" 1 x ()", s));
  EXPECT_EQ(s.module, "");
  EXPECT_FALSE(parse_stack_line("\t1 x (/a b/c.so)", s));
  EXPECT_FALSE(parse_stack_line("\t          THIS_IS_A_WEIRD_LINE", s));
}

TEST(PerfScriptGrammar, FrameNamesAreTidiedLikeStackcollapsePerf) {
  using V = std::vector<std::string>;
  EXPECT_EQ(names("\t4 cpu_startup_entry+0x800047c022ec ([kernel.kallsyms])"), V{"cpu_startup_entry"});
  EXPECT_EQ(names("\t4 f+0xABC (m)"), V{"f+0xABC"});  // only lower-case hex is an offset
  EXPECT_EQ(names("\t7f [unknown] (/lib/x86_64-linux-gnu/libc-2.15.so)"), V{"[libc-2.15.so]"});
  EXPECT_EQ(names("\t7f [unknown] ([unknown])"), V{"[unknown]"});
  PerfOptions addrs;
  addrs.addrs = true;
  EXPECT_EQ(names("\t7f [unknown] ([unknown])", addrs), V{"[unknown <7f>]"});
  EXPECT_EQ(names("\t7f [unknown] (/tmp/perf-1.map)", addrs), V{"[perf-1.map <7f>]"});
  EXPECT_EQ(names("\t1 net/http.(*Client).Do (/bin/app)"), V{"net/http.(*Client).Do"});
  EXPECT_EQ(names("\t1 zlib::(anonymous namespace)::compress(unsigned char const*) (/bin/app)"),
            V{"zlib::(anonymous namespace)::compress"});
  // A symbol that starts with '(' is taken for a process name and skipped, as in Perl.
  EXPECT_EQ(names("\t1 (anonymous namespace)::compress(unsigned char const*) (/bin/app)"), V{});
  EXPECT_EQ(names("\t1 RegExp:[&<>\"'] (/tmp/perf-7539.map)"), V{"RegExp:[&<>]"});
  EXPECT_EQ(names("\t1 Ljava/io/PrintStream;::print (/tmp/perf-1.map)"), V{"Ljava/io/PrintStream:::print"});
  EXPECT_EQ(names("\t1 Ljava/io/PrintStream;::print (/tmp/perf-1.map)", {}, true), V{"java/io/PrintStream:::print"});
  EXPECT_EQ(names("\t1 LBusy;::main (/tmp/perf-1.map)", {}, true), V{"LBusy:::main"});  // no '/': kept
  EXPECT_EQ(names("\t1 (deleted) (/x)"), V{});  // a process name, skipped
  EXPECT_EQ(names("\t1 a->b->c+0x10 (/tmp/perf-9.map)"), (V{"a", "b_[i]", "c_[i]"}));
  EXPECT_EQ(names("\t1 ->a-> (/x)"), (V{"", "a_[i]"}));  // Perl's split keeps leading, drops trailing empties
  PerfOptions all;
  all.all = true;
  EXPECT_EQ(names("\t1 native_safe_halt ([kernel.kallsyms])", all), V{"native_safe_halt_[k]"});
  EXPECT_EQ(names("\t1 tcp_sendmsg (/lib/modules/4.3/build/vmlinux)", all), V{"tcp_sendmsg_[k]"});
  EXPECT_EQ(names("\t1 [unknown] ([unknown])", all), V{"[unknown]"});
  EXPECT_EQ(names("\t1 LFoo;::bar (/tmp/perf-19982.map)", all), V{"LFoo:::bar_[j]"});
  EXPECT_EQ(names("\t1 bar_[j] (/tmp/perf-19982.map)", all), V{"bar_[j]"});  // not annotated twice
  EXPECT_EQ(names("\t1 bar (/tmp/perf-x.map)", all), V{"bar"});
  PerfOptions kernel_only;
  kernel_only.kernel = true;
  EXPECT_EQ(names("\t1 bar (/tmp/perf-1.map)", kernel_only), V{"bar"});
}

TEST(PerfScript, CollapsesSamplesWithPeriodsAndDropsAnUnterminatedLastSample) {
  std::string text =
      "# ========\n# captured on: today\n# ========\n#\n"
      "dd 29776 666709.771979:   10101010 cpu-clock: \n"
      "\t          414b3b fsnotify (/lib/modules/4.1.0-virtual/build/vmlinux)\n"
      "\t          3d6b4c vfs_read (/lib/modules/4.1.0-virtual/build/vmlinux)\n"
      "\t           e5f70 read (/lib/x86_64-linux-gnu/libc-2.15.so)\n"
      "\n\n"
      "dd 29776 666709.771980:   10101010 cpu-clock: \n"
      "\t          3d6b4c vfs_read (/lib/modules/4.1.0-virtual/build/vmlinux)\n"
      "\t           e5f70 read (/lib/x86_64-linux-gnu/libc-2.15.so)\n"
      "\n"
      "dd 29776 666709.771981:   10101010 cpu-clock: \n"
      "\t          414b3b fsnotify (/lib/modules/4.1.0-virtual/build/vmlinux)\n"
      "\t          3d6b4c vfs_read (/lib/modules/4.1.0-virtual/build/vmlinux)\n"
      "\t           e5f70 read (/lib/x86_64-linux-gnu/libc-2.15.so)\n"
      "\n"
      "dd 29776 666709.771982:   10101010 cpu-clock: \n"
      "\t           e5f70 read (/lib/x86_64-linux-gnu/libc-2.15.so)\n";
  Profile p = read_text(text);
  EXPECT_EQ(folded(p), "dd;read;vfs_read 10101010\ndd;read;vfs_read;fsnotify 20202020\n");
  EXPECT_EQ(counter_containing(p, "last sample not ended by a blank line"), 1u);
  EXPECT_EQ(fact(p, "samples"), "3");
  EXPECT_EQ(fact(p, "event"), "cpu-clock (the first event in the input; --event-filter picks another)");
  PerfOptions kernel;
  kernel.kernel = true;
  EXPECT_EQ(collapse(text, kernel), "dd;read;vfs_read_[k] 10101010\ndd;read;vfs_read_[k];fsnotify_[k] 20202020\n");
}

TEST(PerfScript, KeepsOnlyTheFirstEventUnlessToldOtherwise) {
  std::string text =
      "noploop 21796 [001] 1.0: instructions: \n\t1 a (/x)\n\n"
      "noploop 21796 [001] 1.1: cycles: \n\t1 b (/x)\n\n"
      "noploop 21796 [001] 1.2: instructions: \n\t1 a (/x)\n\n"
      "noploop 21796 [001] 1.3: cycles: \n\t1 c (/x)\n\n";
  Profile p = read_text(text);
  EXPECT_EQ(folded(p), "noploop;a 2\n");
  EXPECT_EQ(counter_containing(p, "samples of other events skipped"), 2u);
  PerfOptions cycles;
  cycles.event_filter = "cycles";
  Profile q = read_text(text, cycles);
  EXPECT_EQ(folded(q), "noploop;b 1\nnoploop;c 1\n");
  EXPECT_EQ(q.counters.size(), 0u);  // an explicit filter is not a surprise
  // Headers without an event name keep every sample.
  EXPECT_EQ(collapse("func_ab 15294 cpu-clock: \n\t1 f (/x)\n\nfunc_ab 15294 task-clock: \n\t1 g (/x)\n\n"),
            "func_ab;f 1\nfunc_ab;g 1\n");
}

TEST(PerfScript, PidAndTidRootsAreGroupFrames) {
  std::string text =
      "V8 WorkerThread 24636/25607 [000] 94564.109216: 1 cycles:\n\t1 f (/x)\n\n"
      "java 12688 [002] 6544038.708352: 1 cycles:\n\t1 Lfoo/Bar;::baz (/tmp/perf-1.map)\n\n"
      "swapper     0/0 [000] 1.0: 1 cycles:\n\t1 idle ([kernel.kallsyms])\n\n";
  EXPECT_EQ(collapse(text), "V8_WorkerThread;f 1\njava;foo/Bar:::baz 1\nswapper;idle 1\n");
  PerfOptions pid;
  pid.pid = true;
  Profile p = read_text(text, pid);
  // Tidying of Java names applies only to a process named exactly "java" (see the conformance test).
  EXPECT_EQ(folded(p), "V8_WorkerThread-24636;f 1\njava-?;Lfoo/Bar:::baz 1\nswapper-?;idle 1\n");
  for (NodeId c = p.first_child[0]; c != kNone; c = p.next_sibling[c])
    EXPECT_EQ(p.symbols.category_name(p.symbols[p.frame[c]].category), "process");
  PerfOptions tid;
  tid.tid = true;
  Profile t = read_text(text, tid);
  EXPECT_EQ(folded(t), "V8_WorkerThread-24636/25607;f 1\njava-?/12688;Lfoo/Bar:::baz 1\nswapper-?/0;idle 1\n");
  for (NodeId c = t.first_child[0]; c != kNone; c = t.next_sibling[c])
    EXPECT_EQ(t.symbols.category_name(t.symbols[t.frame[c]].category), "thread");
  EXPECT_EQ(fact(t, "threads"), "3");
  EXPECT_EQ(fact(t, "process ids"), "1");
  EXPECT_EQ(fact(t, "thread ids"), "3");
}

TEST(PerfScript, OddLinesAreCountedNotFatal) {
  std::string text =
      "inline-counter 26037  8801.193547:     250000 cpu-clock:uhH:\n"
      "\t          401b97 main+0x1f (./inline-counter)\n\n"
      "inline-counter 26037  8801.194312:     250000 cpu-clock:uhH:\n"
      "\t          THIS_IS_A_WEIRD_LINE\n\n";
  Profile p = read_text(text);
  EXPECT_EQ(folded(p), "inline-counter 250000\ninline-counter;main 250000\n");
  EXPECT_EQ(counter_containing(p, "first at line 5"), 1u);
  // A sample with frames only, no header, contributes nothing (Perl has no process name).
  EXPECT_EQ(collapse("\t1 a (/x)\n\ncc 1 1.0: ev:\n\t1 b (/x)\n\n"), "cc;b 1\n");
  // Nothing perf-like at all is an error, not an empty graph.
  EXPECT_THROW(read_text("hello\nworld\n"), InputError);
}

TEST(PerfScript, CrLfAndCommsWithSemicolonsGiveThePerlText) {
  std::string lf = "my prog 5 1.0: 1 ev:\n\t1 a (/x)\n\t2 b (/x)\n\nx;y 6 1.0: 1 ev:\n\t1 a (/x)\n\n";
  std::string crlf;
  for (char c : lf) {
    if (c == '\n') crlf.push_back('\r');
    crlf.push_back(c);
  }
  EXPECT_EQ(collapse(lf), "my_prog;b;a 1\nx;y;a 1\n");
  EXPECT_EQ(collapse(crlf), collapse(lf));
}

TEST(PerfScript, ParallelCollapseMatchesSingleThreaded) {
  // ~10 MB so the reader splits it; samples cycle through stacks of several processes.
  std::string text = "# ========\n# cmdline : /usr/bin/perf record -g\n# ========\n#\n";
  const char* comms[] = {"python3", "java", "V8 Worker", "swapper"};
  const char* syms[] = {"main", "run", "Ljava/lang/Thread;::run", "do_idle", "[unknown]", "f->g", "h(int)"};
  const char* mods[] = {"/usr/bin/python3", "/tmp/perf-77.map", "[kernel.kallsyms]", "[unknown]"};
  uint64_t seed = 12345;
  auto rnd = [&](uint64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % n;
  };
  while (text.size() < (10u << 20)) {
    size_t c = rnd(4);
    text += std::string(comms[c]) + " " + std::to_string(100 + c) + "/" + std::to_string(200 + rnd(3)) +
            " [001] 1.5: " + std::to_string(1 + rnd(3)) + (rnd(50) ? " cycles: \n" : " instructions: \n");
    size_t depth = 1 + rnd(12);
    for (size_t d = 0; d < depth; ++d)
      text += "\t" + std::to_string(1000 + rnd(5)) + " " + syms[rnd(7)] + " (" + mods[rnd(4)] + ")\n";
    text += "\n";
  }
  for (bool tid : {false, true}) {
    PerfOptions o;
    o.tid = tid;
    o.all = true;
    Profile one = read_text(text, o, 1);
    Profile two = read_text(text, o, 2);
    Profile three = read_text(text, o, 3);
    std::string f1 = folded(one);
    EXPECT_GT(f1.size(), 100u);
    EXPECT_EQ(f1, folded(two));
    EXPECT_EQ(f1, folded(three));
    // The canonical order makes the whole profile identical, not just the text.
    EXPECT_EQ(one.frame, two.frame);
    EXPECT_EQ(one.parent, three.parent);
    EXPECT_EQ(one.facts, two.facts);
    EXPECT_EQ(one.counters.size(), two.counters.size());
    EXPECT_EQ(fact(one, "samples"), fact(three, "samples"));
  }
}

TEST(PerfScript, SniffsPerfAndNotFolded) {
  EXPECT_TRUE(looks_like_perf_script("# ========\n#\njava 1 1.0: cycles:\n\t1 a (/x)\n\n"));
  EXPECT_TRUE(looks_like_perf_script("perf 1 [000] 1.0: 1 page-faults: \n\n"));
  EXPECT_FALSE(looks_like_perf_script("java;a;b 12\njava;a 3\n"));
  EXPECT_FALSE(looks_like_perf_script("tid:1;x.py:f:1 5\n"));
  EXPECT_EQ(sniff_format("java 1 1.0: cycles:\n\t1 a (/x)\n\n", "x.txt"), Format::PerfScript);
  EXPECT_EQ(sniff_format("a;b 1\n", "x.txt"), Format::Folded);
}

TEST(Progress, LineShowsBytesTotalAndRate) {
  EXPECT_EQ(Progress::format("reading x", 500000000, 1000000000, 2.0), "reading x: 500 / 1000 MB (50%), 250 MB/s");
  EXPECT_EQ(Progress::format("reading -", 300000000, 0, 1.5), "reading -: 300 MB, 200 MB/s");
  Progress quiet(false, "reading", 10);
  quiet.update(5);  // disabled: must not print or crash
  quiet.finish();
}

// perf record without -g: `perf script` prints one line per sample, the comm right-aligned in
// 16 columns and the sample's own ip/symbol/dso after the event, with no blank lines between
// samples. stackcollapse-perf.pl prints nothing for such a file (it waits for blank lines and
// its header pattern needs a non-space first character); flamefold gives each sample the stack
// "comm;symbol" (or "comm" alone when perf printed no symbol), tidied and annotated the way
// stackcollapse-perf.pl tidies a stack line.
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

}  // namespace

TEST(PerfScriptNoCallchain, SniffedAsPerfScript) {
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

TEST(PerfScriptNoCallchain, EachLineIsACommAndSymbolSample) {
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

TEST(PerfScriptNoCallchain, LastLineCountsAndFirstEventIsKept) {
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

TEST(PerfScriptNoCallchain, WithoutIpOrSymbolOnlyTheCommIsLeft) {
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

TEST(PerfScriptNoCallchain, CallchainFilesAreUnchanged) {
  // A -g file still follows stackcollapse-perf.pl: the unterminated last sample is dropped.
  std::string g =
      "bash 21221 13996.262834:    1001001 cpu-clock: \n"
      "\tffffffff82255667 clear_page_erms+0x7 ([kernel.kallsyms])\n"
      "\t    7f0000001000 main+0x10 (/usr/bin/bash)\n\n"
      "bash 21221 13996.263834:    1001001 cpu-clock: \n"
      "\t    7f0000001000 main+0x10 (/usr/bin/bash)\n";
  EXPECT_EQ(collapse(g), "bash;main;clear_page_erms 1001001\n");
}

TEST(PerfScriptNoCallchain, ParallelReadMatchesOneThread) {
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

TEST(PerfScriptNoCallchain, CommandLineCollapseOfAFile) {
  std::string path = test::write_file("nog.txt", kNoCallchain);
  test::RunResult r = test::flamefold("collapse " + path);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("python3;_PyEval_EvalFrameDefault 2002002\n"), std::string::npos) << r.out;
  r = test::flamefold("info " + path);
  EXPECT_NE(r.out.find("perf script"), std::string::npos) << r.out;
}

// The weight is named for what the input gives: cpu-clock/task-clock periods are ns, other
// events' periods count the event, and samples without periods are samples (info, top, HTML).
TEST(PerfScript, WeightUnitIsWhatThePeriodsCount) {
  auto script = [](const std::string& event, const std::string& period) {
    std::string s;
    for (int i = 0; i < 2; ++i)
      s += "python 1/1 [000] 1.00" + std::to_string(i) + ": " + period + " " + event + ": \n"
           "\tffff a (/lib/x.so)\n\tffff b (/lib/x.so)\n\n";
    return s;
  };
  struct Case {
    std::string event, period, unit, top;
  };
  for (const Case& c : {Case{"cpu-clock:ppp", "1000000 ", "ns", "samples: total 2.000 ms"},
                        Case{"task-clock", "250 ", "ns", "samples: total 500 ns"},
                        Case{"cycles:u", "1500 ", "cycles", "samples: total 3000 cycles"},
                        Case{"cpu/instructions/pp", "7 ", "instructions", "samples: total 14 instructions"},
                        Case{"cycles", "", "samples", "samples: total 2 samples"}}) {
    std::string path = test::write_file("perf.txt", script(c.event, c.period));
    test::RunResult info = test::flamefold("info " + path);
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_NE(info.out.find("weight samples (default): "), std::string::npos) << info.out;
    EXPECT_NE(info.out.find(" " + c.unit + "\n"), std::string::npos) << c.event << "\n" << info.out;
    test::RunResult top = test::flamefold("top " + path);
    ASSERT_EQ(top.exit_code, 0) << top.err;
    EXPECT_EQ(top.out.rfind(c.top + " (", 0), 0u) << c.event << "\n" << top.out;
    test::RunResult json = test::flamefold("top --json " + path);
    EXPECT_NE(json.out.find("\"unit\":\"" + c.unit + "\""), std::string::npos) << json.out;
  }
}
