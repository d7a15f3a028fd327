// Generated inputs in the stack formats FlameGraph and inferno collapse: random stacks and call
// trees over a small vocabulary, rendered the way each tool prints them, from a seed. Used for
// parity with the peer collapsers and for robustness tests (truncated and damaged inputs).
#pragma once
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "flamefold/pipeline.h"

namespace test::gen {

inline std::string fmt(const char* f, auto... args) {
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, f, args...);
  return std::string(buf, static_cast<size_t>(n < 0 ? 0 : n));
}

struct Rng {
  std::mt19937 g;
  explicit Rng(uint32_t seed) : g(seed) {}
  int below(int n) { return static_cast<int>(g() % static_cast<uint32_t>(n)); }
  bool chance(int percent) { return below(100) < percent; }
  template <typename T>
  const T& pick(const std::vector<T>& v) { return v[static_cast<size_t>(below(static_cast<int>(v.size())))]; }
};

inline const std::vector<std::string>& c_funcs() {
  static const std::vector<std::string> v = {"main", "run_loop", "dispatch", "handle_request", "parse_header",
                                             "hash_block", "memcpy", "malloc", "free", "read", "write_all",
                                             "compress_chunk", "inflate", "poll_events", "sha256_update"};
  return v;
}

// A random stack, root first, of c_funcs names.
inline std::vector<std::string> random_stack(Rng& r, int max_depth) {
  std::vector<std::string> s;
  int depth = 1 + r.below(max_depth);
  for (int i = 0; i < depth; ++i) s.push_back(i == 0 ? "main" : r.pick(c_funcs()));
  return s;
}

// DTrace: `dtrace -n 'profile-997 { @[ustack()] = count(); }'` output.
inline std::string dtrace(uint32_t seed, int stacks) {
  Rng r(seed);
  static const std::vector<std::string> mods = {"app", "libc.so.1", "libssl.so.3", "unix", "genunix"};
  std::string out = "CPU     ID                    FUNCTION:NAME\n  3  80544                        :tick-60s\n\n";
  for (int k = 0; k < stacks; ++k) {
    std::vector<std::string> s = random_stack(r, 9);
    for (size_t i = s.size(); i-- > 0;) {
      std::string f;
      int kind = r.below(10);
      if (kind == 0) f = fmt("0xffffff%07x", r.below(1 << 24));
      else if (kind == 1) f = "app`ns::Pool<int>::" + s[i] + "(unsigned long, char const*)";
      else if (kind == 2) f = "libjvm.so`java/util/" + s[i] + "->Ljava/lang/Object;.wait";
      else f = r.pick(mods) + "`" + s[i];
      if (kind != 0 && r.chance(80)) f += fmt("+0x%x", 1 + r.below(4000));
      out += "              " + f + "\n";
    }
    out += fmt("%*d\n\n", 16, 1 + r.below(300));
  }
  return out;
}

// SystemTap: print_stack() output of an aggregation, each stack followed by its count.
inline std::string stap(uint32_t seed, int stacks) {
  Rng r(seed);
  std::string out;
  for (int k = 0; k < stacks; ++k) {
    std::vector<std::string> s = random_stack(r, 8);
    for (size_t i = s.size(); i-- > 0;) {
      unsigned long addr = 0xffffffff81000000UL + static_cast<unsigned long>(r.below(1 << 20));
      if (r.chance(10)) out += fmt(" 0x%016lx\n", addr);
      else out += fmt(" 0x%016lx : %s+0x%x/0x%x [%s]\n", addr, s[i].c_str(), r.below(200), 200 + r.below(300),
                      r.chance(50) ? "kernel" : "ext4");
    }
    out += fmt("\t%d\n", 1 + r.below(500));
  }
  return out;
}

// bpftrace: `bpftrace -e 'profile:hz:99 { @[ustack, comm] = count(); }'` output.
inline std::string bpftrace(uint32_t seed, int stacks) {
  Rng r(seed);
  std::string out = "Attaching 1 probe...\n^C\n\n";
  for (int k = 0; k < stacks; ++k) {
    std::vector<std::string> s = random_stack(r, 8);
    if (r.chance(5)) {
      out += fmt("@[, %s]: %d\n", r.chance(50) ? "swapper/0" : "kworker/1:2", 1 + r.below(40));
      continue;
    }
    out += "@[\n";
    for (size_t i = s.size(); i-- > 0;) out += fmt("        %s+%d\n", s[i].c_str(), r.below(900));
    out += r.chance(50) ? fmt("]: %d\n", 1 + r.below(1000)) : fmt(", %s]: %d\n", r.chance(50) ? "nginx" : "redis-server", 1 + r.below(1000));
  }
  return out;
}

// jstack: a thread dump with runnable, waiting, network and JVM threads.
inline std::string jstack(uint32_t seed, int threads) {
  Rng r(seed);
  static const std::vector<std::string> methods = {"com.shop.Cart.total", "com.shop.Db.query", "com.shop.Json.write",
                                                   "java.util.HashMap.get", "java.lang.String.hashCode",
                                                   "com.shop.Http.serve", "sun.nio.ch.EPoll.wait",
                                                   "java.net.SocketInputStream.socketRead0"};
  std::string out = "2024-02-03 11:22:33\nFull thread dump OpenJDK 64-Bit Server VM (21.0.2+13 mixed mode):\n\n";
  for (int t = 0; t < threads; ++t) {
    int kind = r.below(10);
    std::string name = kind == 0 ? "C1 CompilerThread0" : kind == 1 ? "Signal Dispatcher" : kind < 5 ? fmt("http-nio-8080-exec-%d", t) : fmt("worker-%d", t);
    out += fmt("\"%s\" #%d prio=5 os_prio=0 cpu=%d.00ms elapsed=9.00s tid=0x00007f%08x nid=0x%x runnable  [0x00007f00]\n",
               name.c_str(), t + 10, r.below(900), r.below(1 << 30), 100 + t);
    const char* state = r.chance(70) ? "RUNNABLE" : r.chance(50) ? "WAITING (parking)" : "TIMED_WAITING (sleeping)";
    out += fmt("   java.lang.Thread.State: %s\n", state);
    int depth = 1 + r.below(7);
    for (int d = 0; d < depth; ++d) {
      out += fmt("\tat %s(%s)\n", r.pick(methods).c_str(), r.chance(20) ? "Native Method" : fmt("Shop.java:%d", 10 + r.below(400)).c_str());
      if (r.chance(15)) out += fmt("\t- locked <0x00000007%08x> (a java.lang.Object)\n", r.below(1 << 30));
    }
    out += "\n";
  }
  out += "JNI global references: 42\n\n";
  return out;
}

// go tool pprof -raw: samples of location ids (leaf first), then the locations.
inline std::string go_raw(uint32_t seed, int samples) {
  Rng r(seed);
  static const std::vector<std::string> funcs = {"main.main", "main.serve", "net/http.(*conn).serve", "runtime.mallocgc",
                                                 "encoding/json.Marshal", "main.(*Cache).Get", "runtime.futex",
                                                 "sync.(*Mutex).Lock", "crypto/sha256.block"};
  std::string out = "PeriodType: cpu nanoseconds\nPeriod: 10000000\nTime: 2024-01-01 10:00:00 +0000 UTC\nDuration: 30.1\nSamples:\nsamples/count cpu/nanoseconds\n";
  const int locations = static_cast<int>(funcs.size()) + 3;
  for (int k = 0; k < samples; ++k) {
    int n = 1 + r.below(6), c = 1 + r.below(9);
    out += fmt("%11d %10d:", c, c * 10000000);
    for (int i = 0; i < n; ++i) out += fmt(" %d", 1 + r.below(locations));
    out += " \n";
  }
  out += "Locations\n";
  for (int id = 1; id <= locations; ++id) {
    if (id > static_cast<int>(funcs.size())) {  // a location with no symbol
      out += fmt("%6d: 0x%x M=1 \n", id, 0x400000 + id * 64);
      continue;
    }
    out += fmt("%6d: 0x%x M=1 %s /src/app/f%d.go:%d s=0\n", id, 0x400000 + id * 64, funcs[static_cast<size_t>(id - 1)].c_str(), id, 10 + id);
    if (r.chance(30)) out += fmt("             %s /src/app/inl.go:%d s=0\n", "main.inlined", id);
  }
  out += "Mappings\n1: 0x400000/0x5f3000/0x0 /tmp/app [FN][FL][LN][IN]\n";
  return out;
}

// A random call tree: a node's name, its own weight and its children.
struct Node {
  std::string name;
  int self = 0;
  std::vector<Node> children;
  int total() const {
    int t = self;
    for (const Node& c : children) t += c.total();
    return t;
  }
};

inline Node random_tree(Rng& r, int depth, const std::vector<std::string>& names, bool duplicates) {
  Node n;
  n.name = r.pick(names);
  n.self = r.chance(60) ? r.below(50) : 0;
  if (depth > 0) {
    int kids = r.below(4);
    std::vector<std::string> used;
    for (int k = 0; k < kids; ++k) {
      Node c = random_tree(r, depth - 1, names, duplicates);
      bool seen = false;
      for (const std::string& u : used) seen |= u == c.name;
      if (seen && !duplicates) continue;
      used.push_back(c.name);
      n.children.push_back(std::move(c));
    }
  }
  if (n.children.empty() && n.self == 0) n.self = 1 + r.below(30);
  return n;
}

// macOS sample: the "Call graph:" section of `sample PID`.
inline std::string mac_sample(uint32_t seed, int threads) {
  Rng r(seed);
  static const std::vector<std::string> names = {"main", "CFRunLoopRun", "-[NSView draw:]", "objc_msgSend",
                                                 "render_frame", "png_read_row", "__psynch_cvwait", "std::__1::sort<int*>",
                                                 "read", "memmove"};
  static const std::vector<std::string> mods = {"app", "libsystem_kernel.dylib", "CoreFoundation", "libpng16.16.dylib"};
  std::string out = "Analysis of sampling app (pid 321) every 1 millisecond\nProcess:         app [321]\n\nCall graph:\n";
  std::function<void(const Node&, int)> emit = [&](const Node& n, int depth) {
    std::string indent;
    for (int d = 0; d < depth; ++d) {
      static const char* marks[] = {"  ", "! ", ": ", "| "};
      indent += d == 0 ? "+ " : marks[r.below(4)];
    }
    out += fmt("    %s%d %s  (in %s) + %d  [0x%x]\n", indent.c_str(), n.total(), n.name.c_str(), r.pick(mods).c_str(), r.below(900), 0x1000 + r.below(1 << 20));
    for (const Node& c : n.children) emit(c, depth + 1);
  };
  for (int t = 0; t < threads; ++t) {
    Node root = random_tree(r, 6, names, true);
    out += fmt("    %d Thread_%d%s\n", root.total(), 4000 + t, t == 0 ? "   DispatchQueue_1: com.apple.main-thread  (serial)" : "");
    for (const Node& c : root.children) emit(c, 1);
    if (root.children.empty()) emit(root, 1);
  }
  out += "\nTotal number in stack (recursive counted multiple times):\n        9  main  (in app)\n";
  return out;
}

// Instruments: `xctrace export --xpath '/trace-toc/run/data/table[@schema="time-profile"]'`.
inline std::string xctrace(uint32_t seed, int rows) {
  Rng r(seed);
  static const std::vector<std::string> names = {"main", "start", "render(Scene&amp;)", "&lt;lambda&gt;", "blit",
                                                 "_$LT$app..Mesh$GT$::draw::h00112233aabbccdd", "memcpy", "0x18d3df0f1"};
  std::string out = "<?xml version=\"1.0\"?>\n<trace-query-result>\n<node xpath='//trace-toc[1]/run[1]/data[1]/table[3]'>"
                    "<schema name=\"time-profile\"><col><mnemonic>stack</mnemonic></col></schema>\n";
  int next_id = 1;
  std::vector<std::pair<std::string, int>> frames;  // name -> id
  std::vector<std::pair<std::vector<std::string>, int>> traces;  // stack -> id
  for (int k = 0; k < rows; ++k) {
    out += fmt("<row><sample-time id=\"%d\" fmt=\"x\">%d</sample-time>", next_id++, k * 1000);
    if (r.chance(5)) {
      out += "<sentinel/></row>\n";
      continue;
    }
    if (!traces.empty() && r.chance(50)) {
      out += fmt("<backtrace ref=\"%d\"/></row>\n", traces[static_cast<size_t>(r.below(static_cast<int>(traces.size())))].second);
      continue;
    }
    std::vector<std::string> s;
    int depth = 1 + r.below(6);
    for (int i = 0; i < depth; ++i) s.push_back(r.pick(names));
    int id = next_id++;
    traces.emplace_back(s, id);
    out += fmt("<backtrace id=\"%d\">", id);
    for (const std::string& f : s) {
      int known = -1;
      for (const auto& [n, fid] : frames)
        if (n == f) known = fid;
      if (known >= 0 && r.chance(70)) {
        out += fmt("<frame ref=\"%d\"/>", known);
      } else {
        int fid = next_id++;
        frames.emplace_back(f, fid);
        out += r.chance(50) ? fmt("<frame id=\"%d\" name=\"%s\" addr=\"0x%x\"/>", fid, f.c_str(), 0x1000 + fid)
                            : fmt("<frame id=\"%d\" name=\"%s\" addr=\"0x%x\"><binary id=\"%d\" name=\"app\"/></frame>", fid, f.c_str(), 0x1000 + fid, next_id++);
      }
    }
    out += "</backtrace></row>\n";
  }
  out += "</node></trace-query-result>\n";
  return out;
}

// Intel VTune: `vtune -report top-down -format csv -csv-delimiter comma` with CPU Time:Self.
inline std::string vtune(uint32_t seed, int roots) {
  Rng r(seed);
  static const std::vector<std::string> names = {"main", "solve", "\"mat_mul(double const*, double*)\"", "dot", "[Outside any known module]",
                                                 "func@0x4011f0", "\"write result\"", "kmp_barrier"};
  static const std::vector<std::string> mods = {"solver", "libiomp5.so", "libc.so.6", "[Unknown]"};
  std::string out = "Function Stack,CPU Time:Self,Module\n";
  std::function<void(const Node&, int)> emit = [&](const Node& n, int depth) {
    out += std::string(static_cast<size_t>(depth), ' ') + n.name + fmt(",%d.%03d,", n.self / 40, r.below(1000)) + r.pick(mods) + "\n";
    for (const Node& c : n.children) emit(c, depth + 1);
  };
  out += "Total,0,[Unknown]\n";
  for (int k = 0; k < roots; ++k) emit(random_tree(r, 5, names, r.chance(30)), 1);
  return out;
}

// Visual Studio profiler: CallTreeSummary.csv.
inline std::string vsprof(uint32_t seed, int roots) {
  Rng r(seed);
  static const std::vector<std::string> names = {"Shop.Program.Main(string[])", "Shop.Cart.Load(string)",
                                                 "System.IO.File.ReadAllText(string)", "Shop.Tax.Compute(decimal)",
                                                 "System.Linq.Enumerable.ToList(IEnumerable<T>)", "Shop.Log(string)"};
  std::string out = "Level,Function Name,Number of Calls,Elapsed Inclusive Time %,Elapsed Exclusive Time %,Avg Elapsed Inclusive Time,Avg Elapsed Exclusive Time,Module Name,\n";
  std::function<void(const Node&, int)> emit = [&](const Node& n, int depth) {
    int calls = r.chance(10) ? 1000 + r.below(50000) : r.below(40);
    std::string c = calls >= 1000 ? fmt("\"%d,%03d\"", calls / 1000, calls % 1000) : fmt("%d", calls);
    out += fmt("%d,\"%s\",%s,%d.%02d,%d.%02d,0.00,0.00,\"%s\",\n", depth, n.name.c_str(), c.c_str(), r.below(100), r.below(100),
               r.below(100), r.below(100), r.chance(50) ? "Shop.exe" : "mscorlib.dll");
    for (const Node& ch : n.children) emit(ch, depth + 1);
  };
  for (int k = 0; k < roots; ++k) emit(random_tree(r, 5, names, false), 1);
  return out;
}

// GHC: the cost-centre tree of a `+RTS -p` .prof report.
inline std::string ghcprof(uint32_t seed, int roots) {
  Rng r(seed);
  static const std::vector<std::string> names = {"main", "parse", "tokenize", "insertWith'", "lookup", "render", "go", "CAF"};
  static const std::vector<std::string> mods = {"Main", "Data.Map.Internal", "Text.Parser", "GHC.IO.Handle.FD"};
  std::string out =
      "\tThu Jan  4 10:00 2024 Time and Allocation Profiling Report  (Final)\n\n\t   app +RTS -p -RTS\n\n"
      "\ttotal time  =        2.00 secs   (2000 ticks @ 1000 us, 1 processor)\n\ttotal alloc = 1,000,000 bytes\n\n"
      "COST CENTRE  MODULE  SRC  %time %alloc\n\nparse  Text.Parser  src/P.hs:1:1  50.0  40.0\n\n\n";
  out += fmt("%-44s%-20s%-24s%5s%12s%7s%7s%9s%7s\n\n", "COST CENTRE", "MODULE", "SRC", "no.", "entries", "%time", "%alloc", "%time", "%alloc");
  int no = 100;
  std::function<void(const Node&, int)> emit = [&](const Node& n, int depth) {
    std::string name = std::string(static_cast<size_t>(depth), ' ') + n.name;
    out += fmt("%-44s%-20s%-24s%5d%12d%7s%7s%9s%7s\n", name.c_str(), r.pick(mods).c_str(), "src/M.hs:1:1-9", no++, r.below(100000),
               fmt("%d.%d", n.self / 10, r.below(10)).c_str(), "0.0", "1.0", "1.0");
    for (const Node& c : n.children) emit(c, depth + 1);
  };
  Node root;
  root.name = "MAIN";
  for (int k = 0; k < roots; ++k) root.children.push_back(random_tree(r, 5, names, true));
  emit(root, 0);
  return out;
}

struct Generated {
  flamefold::Format format;
  const char* perl;
  const char* inferno;
  std::string (*make)(uint32_t seed, int n);
  int n;
  const char* name;
};

inline const std::vector<Generated>& generators() {
  static const std::vector<Generated> g = {
      {flamefold::Format::Dtrace, "stackcollapse.pl", "inferno-collapse-dtrace", dtrace, 300, "dtrace"},
      {flamefold::Format::Stap, "stackcollapse-stap.pl", "", stap, 300, "stap"},
      {flamefold::Format::Bpftrace, "stackcollapse-bpftrace.pl", "", bpftrace, 300, "bpftrace"},
      {flamefold::Format::Jstack, "stackcollapse-jstack.pl", "", jstack, 120, "jstack"},
      {flamefold::Format::GoPprofText, "stackcollapse-go.pl", "", go_raw, 300, "go"},
      {flamefold::Format::Sample, "", "inferno-collapse-sample", mac_sample, 6, "sample"},
      {flamefold::Format::Xctrace, "", "inferno-collapse-xctrace", xctrace, 400, "xctrace"},
      {flamefold::Format::Vtune, "", "inferno-collapse-vtune", vtune, 12, "vtune"},
      {flamefold::Format::Vsprof, "", "inferno-collapse-vsprof", vsprof, 12, "vsprof"},
      {flamefold::Format::Ghcprof, "", "inferno-collapse-ghcprof", ghcprof, 8, "ghcprof"},
  };
  return g;
}

}  // namespace test::gen
