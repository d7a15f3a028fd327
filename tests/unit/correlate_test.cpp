// Device work -> launch -> host stack; unattributed work; conservation of device time; the
// filters (steps, threads, categories, window) as they touch device work.
#include <gtest/gtest.h>

#include <random>

#include "flamefold/timeline/build_profile.h"
#include "kineto_test_util.h"

using namespace flamefold;
using kineto_test::fact;
using kineto_test::folded;

namespace {

struct Trace {
  Timeline tl;
  uint32_t host, host2, stream;
  explicit Trace(uint32_t rank = 0, Timeline* into = nullptr) {
    if (tl.ranks.empty()) tl.ranks.push_back("rank 0");
    Track h;
    h.pid = 10;
    h.tid = 10;
    h.name = tl.symbols.strings.intern("main");
    h.process_name = tl.symbols.strings.intern("python");
    host = tl.add_track(h);
    h.tid = 11;
    h.name = tl.symbols.strings.intern("worker");
    host2 = tl.add_track(h);
    Track s;
    s.pid = 0;
    s.tid = 7;
    s.device = true;
    s.name = tl.symbols.strings.intern("GPU 0 stream 7");
    stream = tl.add_track(s);
  }
  FrameId f(const char* name, const char* cat) { return tl.symbols.frame(name, {}, 0, tl.symbols.category(cat)); }
  uint32_t host_range(const char* name, int64_t s, int64_t e, uint32_t track = kNone, const char* cat = "cpu_op") {
    return tl.add(track == kNone ? host : track, s, e, f(name, cat), EventKind::HostRange);
  }
  uint32_t launch(int64_t s, int64_t e, uint64_t corr, uint32_t track = kNone) {
    return tl.add(track == kNone ? host : track, s, e, f("cudaLaunchKernel", "cuda_runtime"), EventKind::Launch, corr);
  }
  uint32_t kernel(const char* name, int64_t s, int64_t e, uint64_t corr, EventKind k = EventKind::Kernel) {
    return tl.add(stream, s, e, f(name, k == EventKind::Kernel ? "kernel" : "memcpy"), k, corr);
  }
};

}  // namespace

TEST(Correlate, KernelGoesUnderItsLaunchAndTheHostStackOpenAtTheLaunch) {
  Trace t;
  t.host_range("forward", 0, 100, kNone, "python");
  t.host_range("aten::mm", 10, 50);
  t.launch(20, 25, 7);
  t.kernel("gemm", 30, 80, 7);
  t.host_range("aten::copy_", 60, 70);
  t.tl.add(t.host, 62, 64, t.f("cudaMemcpyAsync", "cuda_runtime"), EventKind::Launch, 8);
  t.kernel("Memcpy HtoD", 85, 87, 8, EventKind::Memcpy);
  Profile p = build_profile(std::move(t.tl), {}, {});
  auto gpu = folded(p, "gpu");
  EXPECT_EQ(gpu["python;main;forward;aten::mm;cudaLaunchKernel;gemm"], 50);
  EXPECT_EQ(gpu["python;main;forward;aten::copy_;cudaMemcpyAsync;Memcpy HtoD"], 2);
  EXPECT_EQ(gpu.size(), 2u);
  EXPECT_EQ(folded(p, "kernels")["python;main;forward;aten::mm;cudaLaunchKernel;gemm"], 1);
  // The launch is a host frame too, and the kernel adds no CPU time.
  EXPECT_EQ(folded(p, "cpu")["python;main;forward;aten::mm;cudaLaunchKernel"], 5);
  EXPECT_EQ(folded(p, "cpu").count("python;main;forward;aten::mm;cudaLaunchKernel;gemm"), 0u);
  ASSERT_EQ(p.device_ops.size(), 2u);
  EXPECT_EQ(p.symbols.name(p.device_ops[0].frame), "gemm");
  EXPECT_EQ(p.device_ops[0].total_ns, 50);
}

TEST(Correlate, DeviceWorkWithoutALaunchGoesUnderAnUnattributedRootAndIsCounted) {
  Trace t;
  t.host_range("op", 0, 10);
  t.launch(1, 2, 5);       // launches nothing
  t.kernel("orphan", 20, 25, 99);
  t.kernel("no id", 30, 31, 0);
  Profile p = build_profile(std::move(t.tl), {}, {});
  auto gpu = folded(p, "gpu");
  EXPECT_EQ(gpu["[unattributed] GPU 0 stream 7;orphan"], 5);
  EXPECT_EQ(gpu["[unattributed] GPU 0 stream 7;no id"], 1);
  EXPECT_EQ(fact(p, "launches without device work"), "1");
  EXPECT_EQ(kineto_test::counter(p, "without a launch"), 2u);
}

TEST(Correlate, AttributedPlusUnattributedIsAllDeviceTimeExactly) {
  std::mt19937_64 rng(7);
  Trace t;
  int64_t expected = 0;
  for (int i = 0; i < 2000; ++i) {
    int64_t s = i * 100;
    t.host_range("op", s, s + 90);
    uint64_t corr = uint64_t(i) + 1;
    if (rng() % 4) t.launch(s + 10, s + 20, corr);
    int64_t ks = s + 50, kd = int64_t(rng() % 1000) + 1;
    if (rng() % 5) {
      t.kernel("k", ks, ks + kd, rng() % 10 ? corr : corr + 1000000);
      expected += kd;
    }
  }
  Profile p = build_profile(std::move(t.tl), {}, {});
  EXPECT_EQ(p.total(p.column("gpu")), double(expected));
  EXPECT_EQ(std::stoll(fact(p, "device ns attributed")) + std::stoll(fact(p, "device ns unattributed")), expected);
}

TEST(Correlate, CorrelationIdsAreJoinedWithinARankOnly) {
  Trace t;
  t.tl.ranks = {"rank 0", "rank 1"};
  Track h = t.tl.tracks[t.host];
  h.rank = 1;
  uint32_t host_r1 = t.tl.add_track(h);
  Track s = t.tl.tracks[t.stream];
  s.rank = 1;
  uint32_t stream_r1 = t.tl.add_track(s);
  t.host_range("op0", 0, 10);
  t.launch(1, 2, 1);
  t.tl.add(host_r1, 0, 10, t.f("op1", "cpu_op"), EventKind::HostRange);
  t.launch(3, 4, 1, host_r1);
  t.kernel("k0", 20, 30, 1);
  t.tl.add(stream_r1, 20, 25, t.f("k1", "kernel"), EventKind::Kernel, 1);
  auto gpu = folded(build_profile(std::move(t.tl), {}, {}), "gpu");
  EXPECT_EQ(gpu["rank 0;python;main;op0;cudaLaunchKernel;k0"], 10);
  EXPECT_EQ(gpu["rank 1;python;main;op1;cudaLaunchKernel;k1"], 5);
}

TEST(Correlate, PerProcessCorrelationIdsPreferTheLaunchOfTheSameProcess) {
  // nsys-style: two processes of one rank reuse correlation id 1; their device tracks carry
  // the process id. Kineto-style GPU tracks (pid = device index) still join by rank.
  Trace t;
  Track other = t.tl.tracks[t.host];
  other.pid = 20;
  other.tid = 20;
  uint32_t host20 = t.tl.add_track(other);
  Track dev10 = t.tl.tracks[t.stream];
  dev10.pid = 10;
  uint32_t stream10 = t.tl.add_track(dev10);
  Track dev20 = dev10;
  dev20.pid = 20;
  uint32_t stream20 = t.tl.add_track(dev20);
  t.host_range("p10", 0, 10);
  t.launch(1, 2, 1);
  t.tl.add(host20, 0, 10, t.f("p20", "cpu_op"), EventKind::HostRange);
  t.launch(3, 4, 1, host20);
  t.tl.add(stream20, 20, 27, t.f("k20", "kernel"), EventKind::Kernel, 1);
  t.tl.add(stream10, 20, 23, t.f("k10", "kernel"), EventKind::Kernel, 1);
  Profile p = build_profile(std::move(t.tl), {}, {});
  auto gpu = folded(p, "gpu");
  EXPECT_EQ(gpu["python;main;p10;cudaLaunchKernel;k10"], 3);
  EXPECT_EQ(gpu["python;main;p20;cudaLaunchKernel;k20"], 7);
  EXPECT_EQ(kineto_test::counter(p, "sharing a correlation id"), 0u);
}

TEST(Correlate, StepSelectionKeepsTheKernelsLaunchedInTheSteps) {
  Trace t;
  for (int step = 1; step <= 3; ++step) {
    int64_t s = step * 1000;
    t.host_range(("ProfilerStep#" + std::to_string(step)).c_str(), s, s + 900, kNone, "user_annotation");
    t.launch(s + 10, s + 20, uint64_t(step));
    t.kernel(("k" + std::to_string(step)).c_str(), s + 950, s + 1500, uint64_t(step));  // runs past the step
  }
  ReadOptions ro;
  ro.steps = "2-3";
  Profile p = build_profile(std::move(t.tl), ro, {});
  auto gpu = folded(p, "gpu");
  EXPECT_EQ(gpu.size(), 2u);
  EXPECT_EQ(gpu["python;main;ProfilerStep#2;cudaLaunchKernel;k2"], 550);
  EXPECT_EQ(folded(p, "cpu")["python;main;ProfilerStep#3"], 890);
  ReadOptions missing;
  missing.steps = "7";
  Trace t2;
  t2.host_range("ProfilerStep#1", 0, 10, kNone, "user_annotation");
  EXPECT_THROW(build_profile(std::move(t2.tl), missing, {}), std::exception);
}

TEST(Correlate, ThreadAndCategoryFiltersKeepLaunchStacks) {
  Trace t;
  t.host_range("fwd", 0, 100, kNone, "python");
  t.host_range("aten::mm", 10, 50);
  t.launch(20, 25, 1);
  t.kernel("gemm", 30, 80, 1);
  t.host_range("other", 0, 100, t.host2);
  t.launch(5, 6, 2, t.host2);
  t.kernel("k2", 90, 95, 2);
  ReadOptions ro;
  ro.categories = {"python_function"};  // launches are filtered out but still find their stack
  ro.threads = {"main"};
  Profile p = build_profile(std::move(t.tl), ro, {});
  auto gpu = folded(p, "gpu");
  EXPECT_EQ(gpu["python;main;fwd;gemm"], 50);
  EXPECT_EQ(gpu.size(), 1u);  // the worker thread's kernel is outside the selection
  auto cpu = folded(p, "cpu");
  EXPECT_EQ(cpu["python;main;fwd"], 100);
  EXPECT_EQ(cpu.size(), 1u);
}

TEST(Correlate, ThreadMainSelectsTheThreadWhoseTidIsThePid) {
  Trace t;  // host tid 10 == pid 10, worker tid 11
  t.tl.tracks[t.host].name = t.tl.symbols.strings.intern("thread 10 (python3)");
  t.host_range("a", 0, 10);
  t.host_range("b", 0, 10, t.host2);
  ReadOptions ro;
  ro.threads = {"main"};
  auto cpu = folded(build_profile(std::move(t.tl), ro, {}), "cpu");
  EXPECT_EQ(cpu.size(), 1u);
  EXPECT_EQ(cpu["python;thread 10 (python3);a"], 10);
}

TEST(Correlate, WindowClipsHostTimeRelativeToTheFirstEvent) {
  Trace t;
  t.host_range("a", 1000, 2000);
  t.host_range("b", 3000, 4000);
  ReadOptions ro;
  ro.window_start_ns = 500;
  ro.window_end_ns = 1500;
  auto cpu = folded(build_profile(std::move(t.tl), ro, {}), "cpu");
  EXPECT_EQ(cpu["python;main;a"], 500);  // [1500, 2500] ∩ [1000, 2000]
  EXPECT_EQ(cpu.count("python;main;b"), 0u);
}

TEST(Correlate, DeviceColumnCanBeNamedNpuAndMadeTheDefault) {
  Trace t;
  t.host_range("op", 0, 10);
  t.launch(1, 2, 3);
  t.kernel("task", 5, 9, 3);
  BuildOptions b;
  b.device_weight = "npu";
  b.default_to_device = true;
  Profile p = build_profile(std::move(t.tl), {}, b);
  ASSERT_GE(p.column("npu"), 0);
  EXPECT_EQ(p.default_column, p.column("npu"));
  EXPECT_EQ(p.total(p.column("npu")), 4);
}
