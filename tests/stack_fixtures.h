// Small inputs in each stack format FlameGraph and inferno collapse, written for these tests
// (realistic in shape, invented in content), with the folded stacks their peer collapsers print
// for them (checked by the parity tests when ../shared/peers is present).
#pragma once
#include <string>
#include <vector>

#include "flamefold/pipeline.h"

namespace test {

struct StackFixture {
  const char* file;     // a name for the temporary file
  flamefold::Format format;
  const char* perl;     // FlameGraph's collapser (../shared/peers/FlameGraph), or ""
  const char* inferno;  // inferno's (../shared/peers/inferno), or ""
  std::string text;
  std::string folded;   // what `flamefold collapse` prints (the peers' lines, sorted, zero counts left out)
};

inline const std::vector<StackFixture>& stack_fixtures() {
  static const std::vector<StackFixture> fixtures = {
      {"dtrace.txt", flamefold::Format::Dtrace, "stackcollapse.pl", "inferno-collapse-dtrace",
       R"FIX(CPU     ID                    FUNCTION:NAME
  1  75321                        :tick-30s

              libc.so.7`__sys_nanosleep+0xa
              libc.so.7`sleep+0x3f
              worker`wait_for_job+0x21
              worker`main+0x9c
              worker`_start+0x2a
               17

              worker`hash_block+0x1c4
              worker`process_job(job_t*, int)+0x88
              worker`main+0x120
              worker`_start+0x2a
              103

              libjvm.so`JVM_Sleep+0x1d
              java/lang/Thread.sleep(J)V->Ljava/lang/Object;.wait+0x10
              worker`main+0x120
                5

              kernel`spinlock_enter+0x2b
              kernel`mi_switch+0x1f5
              0xffffffff80a4b1c3
              4

              worker`std::vector<int>::push_back(int const&)+0x40
              worker`ns::Cls::method<int>(char const*)+0x12
              worker`main+0x120
               9
)FIX",
       R"FIX(0xffffffff80a4b1c3;kernel`mi_switch;kernel`spinlock_enter 4
worker`_start;worker`main;worker`process_job(job_t*, int);worker`hash_block 103
worker`_start;worker`main;worker`wait_for_job;libc.so.7`sleep;libc.so.7`__sys_nanosleep 17
worker`main;java/lang/Thread.sleep(J)V;java/lang/Object:.wait_[i];libjvm.so`JVM_Sleep 5
worker`main;worker`ns::Cls::method<int>;worker`std::vector<int>::push_back 9
)FIX"},
      {"stap.txt", flamefold::Format::Stap, "stackcollapse-stap.pl", "",
       R"FIX( 0xffffffff8104f0f6 : native_safe_halt+0x6/0x10 [kernel]
 0xffffffff8101c6a3 : default_idle+0x23/0xe0 [kernel]
 0xffffffff81009e16 : arch_cpu_idle+0x26/0x30 [kernel]
 0xffffffff810b1f62 : cpu_startup_entry+0x1b2/0x2d0 [kernel]
	412
 0xffffffff81329f39 : memcpy_erms+0x9/0x10 [kernel]
 0xffffffff812a9c4e : copy_page_to_iter+0x6e/0x350 [kernel]
 0x00007f8a1c2b3d4e : __read+0xe/0x30 [libc.so.6]
 0x0000000000401a2b
	37
 0xffffffff8104f0f6 : native_safe_halt+0x6/0x10 [kernel]
 0xffffffff8101c6a3 : default_idle+0x23/0xe0 [kernel]
 0xffffffff81009e16 : arch_cpu_idle+0x26/0x30 [kernel]
 0xffffffff810b1f62 : cpu_startup_entry+0x1b2/0x2d0 [kernel]
	8
)FIX",
       R"FIX(0x0000000000401a2b;__read;copy_page_to_iter;memcpy_erms 37
cpu_startup_entry;arch_cpu_idle;default_idle;native_safe_halt 420
)FIX"},
      {"sample.txt", flamefold::Format::Sample, "", "inferno-collapse-sample",
       R"FIX(Analysis of sampling imgconv (pid 4812) every 1 millisecond
Process:         imgconv [4812]
Path:            /usr/local/bin/imgconv
Load Address:    0x100e4c000
Identifier:      imgconv
Version:         0
Code Type:       ARM64
Parent Process:  zsh [3001]

Date/Time:       2023-03-11 09:14:02.113 +0100
OS Version:      macOS 13.2 (22D49)
Report Version:  7
Analysis Tool:   /usr/bin/sample
----

Call graph:
    912 Thread_220011   DispatchQueue_1: com.apple.main-thread  (serial)
    + 912 start  (in dyld) + 520  [0x18f2ebe50]
    +   912 main  (in imgconv) + 88  [0x100e4f0a8]
    +     640 convert_image  (in imgconv) + 212  [0x100e4f3d4]
    +     ! 400 png_read_row  (in libpng16.16.dylib) + 1040  [0x1011a2e10]
    +     ! : 400 inflate  (in libz.1.dylib) + 5432  [0x18f9b1538]
    +     ! 240 resize_rgba  (in imgconv) + 96  [0x100e50060]
    +     !   238 _$LT$imgconv..Pixel$u20$as$u20$core..ops..Add$GT$::add::h9f1e2d3c4b5a6978  (in imgconv) + 12  [0x100e51000]
    +     !   2 resize_rgba  (in imgconv) + 140  [0x100e5008c]
    +     272 write_output  (in imgconv) + 44  [0x100e4f62c]
    +       272 write  (in libsystem_kernel.dylib) + 8  [0x18f5e3a28]
    912 Thread_220042
    + 912 start_wqthread  (in libsystem_pthread.dylib) + 8  [0x18f61ae28]
    +   900 _pthread_wqthread  (in libsystem_pthread.dylib) + 288  [0x18f61c0a0]
    +   ! 900 __workq_kernreturn  (in libsystem_kernel.dylib) + 8  [0x18f5e4b34]
    +   12 worker_body  (in imgconv) + 20  [0x100e52014]
    912 Thread_220043: Dispatch queue: com.example.io
      912 thread_start  (in libsystem_pthread.dylib) + 8  [0x18f61ae2c]
        911 read  (in libsystem_kernel.dylib) + 8  [0x18f5e1b0c]
        1 ???  (in <unknown binary>)  [0x4]

Total number in stack (recursive counted multiple times):
        912  start  (in dyld) + 520  [0x18f2ebe50]

Sort by top of stack, same collapsed (when >= 5):
        inflate  (in libz.1.dylib)        400
)FIX",
       R"FIX(Thread_220011   DispatchQueue_1: com.apple.main-thread  (serial`Thread_220011   DispatchQueue_1: com.apple.main-thread;dyld`start;imgconv`main;imgconv`convert_image;imgconv`resize_rgba;imgconv`<imgconv::Pixel as core::ops::Add>::add 238
Thread_220011   DispatchQueue_1: com.apple.main-thread  (serial`Thread_220011   DispatchQueue_1: com.apple.main-thread;dyld`start;imgconv`main;imgconv`convert_image;imgconv`resize_rgba;imgconv`resize_rgba 2
Thread_220011   DispatchQueue_1: com.apple.main-thread  (serial`Thread_220011   DispatchQueue_1: com.apple.main-thread;dyld`start;imgconv`main;imgconv`convert_image;libpng16.16`png_read_row;libz.1`inflate 400
Thread_220011   DispatchQueue_1: com.apple.main-thread  (serial`Thread_220011   DispatchQueue_1: com.apple.main-thread;dyld`start;imgconv`main;imgconv`write_output;libsystem_kernel`write 272
Thread_220042;libsystem_pthread`start_wqthread;imgconv`worker_body 12
Thread_220043: Dispatch queue: com.example.io;libsystem_pthread`thread_start;<unknown binary>`??? 1
)FIX"},
      {"xctrace.xml", flamefold::Format::Xctrace, "", "inferno-collapse-xctrace",
       R"FIX(<?xml version="1.0"?>
<trace-query-result>
<node xpath='//trace-toc[1]/run[1]/data[1]/table[7]'><schema name="time-profile"><col><mnemonic>time</mnemonic><name>Sample Time</name></col><col><mnemonic>stack</mnemonic><name>Backtrace</name></col></schema>
<row><sample-time id="1" fmt="00:00.010.000">10000000</sample-time><thread id="2" fmt="Main Thread 0x1a2b (render, pid: 901)"><tid id="3" fmt="0x1a2b">6699</tid></thread><weight id="4" fmt="1.00 ms">1000000</weight><backtrace id="5"><frame id="6" name="blit_span" addr="0x100003f10"><binary id="7" name="render" path="/Applications/render"/></frame><frame id="8" name="draw_scene(Scene&amp;, float)" addr="0x100004120"><binary ref="7"/></frame><frame id="9" name="main" addr="0x100004400"><binary ref="7"/></frame><frame id="10" name="start" addr="0x18d373904"/></backtrace></row>
<row><sample-time id="11" fmt="00:00.011.000">11000000</sample-time><thread ref="2"/><weight ref="4"/><backtrace ref="5"/></row>
<row><sample-time id="12" fmt="00:00.012.000">12000000</sample-time><thread ref="2"/><weight ref="4"/><backtrace id="13"><frame id="14" name="&lt;render::Mesh as core::fmt::Debug&gt;::fmt" addr="0x100005000"/><frame ref="8"/><frame ref="9"/><frame ref="10"/></backtrace></row>
<row><sample-time id="15" fmt="00:00.013.000">13000000</sample-time><thread ref="2"/><weight ref="4"/><sentinel/></row>
<row><sample-time id="16" fmt="00:00.014.000">14000000</sample-time><thread ref="2"/><weight ref="4"/><backtrace id="17"><frame id="18" name="_$LT$render..Mesh$GT$::build::h0123456789abcdef" addr="0x100006000"/><frame ref="9"/><frame ref="10"/></backtrace></row>
<row><sample-time id="19" fmt="00:00.015.000">15000000</sample-time><thread ref="2"/><weight ref="4"/><backtrace id="20"><frame id="21" name="blit_span" addr="0x100003f14"/><frame ref="8"/><frame ref="9"/><frame ref="10"/></backtrace></row>
<!-- a comment -->
<row><sample-time id="22" fmt="00:00.016.000">16000000</sample-time><thread ref="2"/><weight ref="4"/><backtrace ref="13"/></row>
</node></trace-query-result>
)FIX",
       R"FIX(start;main;<render::Mesh>::build 1
start;main;draw_scene(Scene&, float);<render::Mesh as core::fmt::Debug>::fmt 2
start;main;draw_scene(Scene&, float);blit_span 3
)FIX"},
      {"vtune.csv", flamefold::Format::Vtune, "", "inferno-collapse-vtune",
       R"FIX(Function Stack,CPU Time:Self,Module
Total,0,[Unknown]
 _start,0,solver
  __libc_start_main,0,libc.so.6
   main,0.012,solver
    solve_system,1.204,solver
     "mat_mul(double const*, double*)",3.5005,solver
     dot,0.4,libblas.so.3
    read_input,0.0004,solver
    "write result",0.25,solver
 clone,0,libc.so.6
  start_thread,0,libpthread.so.0
   worker_loop,0.075,solver
    dot,0.3,libblas.so.3
)FIX",
       R"FIX([Unknown]`Total;libc.so.6`clone;libpthread.so.0`start_thread;solver`worker_loop 75
[Unknown]`Total;libc.so.6`clone;libpthread.so.0`start_thread;solver`worker_loop;libblas.so.3`dot 300
[Unknown]`Total;solver`_start;libc.so.6`__libc_start_main;solver`main 12
[Unknown]`Total;solver`_start;libc.so.6`__libc_start_main;solver`main;solver`solve_system 1204
[Unknown]`Total;solver`_start;libc.so.6`__libc_start_main;solver`main;solver`solve_system;libblas.so.3`dot 400
[Unknown]`Total;solver`_start;libc.so.6`__libc_start_main;solver`main;solver`solve_system;solver`mat_mul(double const*, double*) 3501
[Unknown]`Total;solver`_start;libc.so.6`__libc_start_main;solver`main;solver`write result 250
)FIX"},
      {"vsprof.csv", flamefold::Format::Vsprof, "", "inferno-collapse-vsprof",
       R"FIX(Level,Function Name,Number of Calls,Elapsed Inclusive Time %,Elapsed Exclusive Time %,Avg Elapsed Inclusive Time,Avg Elapsed Exclusive Time,Module Name,
1,"Shop.exe",0,100.00,0.00,0.00,0.00,"Shop.exe",
2,"Shop.Program.Main(string[])",1,99.10,0.50,2000.10,10.00,"Shop.exe",
3,"Shop.Cart.Load(string)",1,40.00,5.00,800.00,100.00,"Shop.exe",
4,"System.IO.File.ReadAllText(string)","1,250",30.00,30.00,0.48,0.48,"mscorlib.dll",
4,"Shop.Cart.Parse(string)",1,5.00,5.00,100.00,100.00,"Shop.exe",
3,"Shop.Checkout.Run()",3,50.00,10.00,333.00,66.00,"Shop.exe",
4,"Shop.Tax.Compute(decimal)",2,20.00,20.00,200.00,200.00,"Shop.exe",
5,"System.Math.Round(decimal)",2,1.00,1.00,5.00,5.00,"mscorlib.dll",
4,"Shop.Checkout.Log(string)",3,20.00,20.00,133.00,133.00,"Shop.exe",
2,"Shop.Program.Shutdown()",1,0.40,0.40,8.00,8.00,"Shop.exe",
)FIX",
       R"FIX(Shop.exe;Shop.Program.Main(string[]);Shop.Cart.Load(string);Shop.Cart.Parse(string) 1
Shop.exe;Shop.Program.Main(string[]);Shop.Cart.Load(string);System.IO.File.ReadAllText(string) 1250
Shop.exe;Shop.Program.Main(string[]);Shop.Checkout.Run() 1
Shop.exe;Shop.Program.Main(string[]);Shop.Checkout.Run();Shop.Checkout.Log(string) 3
Shop.exe;Shop.Program.Main(string[]);Shop.Checkout.Run();Shop.Tax.Compute(decimal);System.Math.Round(decimal) 2
Shop.exe;Shop.Program.Shutdown() 1
)FIX"},
      {"ghc.prof", flamefold::Format::Ghcprof, "", "inferno-collapse-ghcprof",
       R"FIX(	Sun Mar 12 10:00 2023 Time and Allocation Profiling Report  (Final)

	   wordfreq +RTS -p -RTS input.txt

	total time  =        1.25 secs   (1250 ticks @ 1000 us, 1 processor)
	total alloc = 2,345,678,900 bytes  (excludes profiling overheads)

COST CENTRE    MODULE    SRC                        %time %alloc

countWords     Main      src/Main.hs:(20,1)-(25,30)  60.2   55.1
tokenize       Text      src/Text.hs:14:1-40         30.1   40.0


                                                                                  individual      inherited
COST CENTRE        MODULE                SRC                        no.     entries  %time %alloc   %time %alloc

MAIN               MAIN                  <built-in>                 120          0    0.3    0.0   100.0  100.0
 CAF               GHC.IO.Handle.FD      <entire-module>            230          0    0.1    0.0     0.1    0.0
 CAF               Main                  <entire-module>            239          0    0.0    0.0    99.6  100.0
  main             Main                  src/Main.hs:10:1-30        241          1    0.7    0.4    99.6  100.0
   countWords      Main                  src/Main.hs:(20,1)-(25,30) 243          1   60.2   55.1    98.9   99.6
    tokenize       Text                  src/Text.hs:14:1-40        245      40000   30.1   40.0    30.1   40.0
    insertWith'    Data.Map.Strict       src/Main.hs:22:5-40        247     120000    8.5    4.5     8.5    4.5
   report          Main                  src/Main.hs:30:1-25        249          1    0.0    0.0     0.0    0.0
 CAF               Main                  <entire-module>            251          0    0.2    0.0     0.2    0.0
)FIX",
       R"FIX(MAIN.MAIN 3
MAIN.MAIN;GHC.IO.Handle.FD.CAF 1
MAIN.MAIN;Main.CAF 2
MAIN.MAIN;Main.CAF;Main.main 7
MAIN.MAIN;Main.CAF;Main.main;Main.countWords 602
MAIN.MAIN;Main.CAF;Main.main;Main.countWords;Data.Map.Strict.insertWith' 85
MAIN.MAIN;Main.CAF;Main.main;Main.countWords;Text.tokenize 301
)FIX"},
      {"bpf.txt", flamefold::Format::Bpftrace, "stackcollapse-bpftrace.pl", "",
       R"FIX(Attaching 1 probe...
^C

@[
    __lll_lock_wait+28
    pthread_mutex_lock+208
    cache_get+64
    handle_request+312
    worker_main+90
    start_thread+234
]: 41
@[
    memcpy_avx_unaligned+45
    encode_response+120
    handle_request+530
    worker_main+90
    start_thread+234
, nginx]: 7
@[
    0x7f3a2b1c4d5e
]: 2
@[, idle]: 5
@[
    handle_request+312
    worker_main+90
    start_thread+234
]: 1024
)FIX",
       R"FIX(0x7f3a2b1c4d5e 2
idle 5
nginx;start_thread+234;worker_main+90;handle_request+530;encode_response+120;memcpy_avx_unaligned+45 7
start_thread+234;worker_main+90;handle_request+312 1024
start_thread+234;worker_main+90;handle_request+312;cache_get+64;pthread_mutex_lock+208;__lll_lock_wait+28 41
)FIX"},
      {"go.txt", flamefold::Format::GoPprofText, "stackcollapse-go.pl", "",
       R"FIX(PeriodType: cpu nanoseconds
Period: 10000000
Time: 2023-05-02 14:03:11.123456789 +0000 UTC
Duration: 30.14
Samples:
samples/count cpu/nanoseconds
          3   30000000: 1 2 3 4 
          1   10000000: 5 2 3 4 
          7   70000000: 6 7 3 4 
          2   20000000: 1 2 3 4 
          1   10000000: 8 9 
Locations
     1: 0x46a1c3 M=1 runtime.memmove /usr/local/go/src/runtime/memmove_amd64.s:193 s=0
     2: 0x4f20a4 M=1 main.copyBuf /src/app/buf.go:41 s=0
     3: 0x4f2311 M=1 main.handle /src/app/main.go:77 s=0
     4: 0x4f2580 M=1 main.main /src/app/main.go:20 s=0
     5: 0x40c4b1 M=1 runtime.mallocgc /usr/local/go/src/runtime/malloc.go:1017 s=0
             runtime.newobject /usr/local/go/src/runtime/malloc.go:1184 s=0
     6: 0x4f2701 M=1 main.hashChunk /src/app/hash.go:12 s=0
     7: 0x4f2790 M=1 main.digest /src/app/hash.go:30 s=0
     8: 0x45c3e1 M=1 runtime.futex /usr/local/go/src/runtime/sys_linux_amd64.s:557 s=0
     9: 0x42b6a4 M=1 runtime.futexsleep /usr/local/go/src/runtime/os_linux.go:69 s=0
Mappings
1: 0x400000/0x5f3000/0x0 /tmp/go-build/exe/app [FN][FL][LN][IN]
)FIX",
       R"FIX(main.main;main.handle;main.copyBuf;runtime.mallocgc 1
main.main;main.handle;main.copyBuf;runtime.memmove 5
main.main;main.handle;main.digest;main.hashChunk 7
runtime.futexsleep;runtime.futex 1
)FIX"},
      {"gotraces.txt", flamefold::Format::GoPprofText, "", "",
       R"FIX(File: server
Build ID: 4f2a9c1d
Type: cpu
Time: 2023-05-02 14:03:11 UTC
Duration: 30.14s, Total samples = 1.23s ( 4.08%)
-----------+-------------------------------------------------------
      50ms   runtime.memmove
             main.copyBuf (inline)
             main.handle
             main.main
-----------+-------------------------------------------------------
       pid:  4242
      10ms   runtime.futex
             runtime.futexsleep
-----------+-------------------------------------------------------
     1.10s   main.hashChunk
             main.digest
             main.handle
             main.main
-----------+-------------------------------------------------------
      20ms   runtime.memmove
             main.copyBuf (inline)
             main.handle
             main.main
-----------+-------------------------------------------------------
)FIX",
       R"FIX(main.main;main.handle;main.copyBuf_[i];runtime.memmove 70000000
main.main;main.handle;main.digest;main.hashChunk 1100000000
runtime.futexsleep;runtime.futex 10000000
)FIX"},
      {"jstack.txt", flamefold::Format::Jstack, "stackcollapse-jstack.pl", "",
       R"FIX(2023-06-01 10:22:33
Full thread dump OpenJDK 64-Bit Server VM (17.0.7+7 mixed mode, sharing):

"main" #1 prio=5 os_prio=0 cpu=1250.33ms elapsed=42.10s tid=0x00007f1c2c024000 nid=0x1a03 runnable  [0x00007f1c33ffe000]
   java.lang.Thread.State: RUNNABLE
	at com.example.Matrix.multiply(Matrix.java:88)
	at com.example.Solver.step(Solver.java:41)
	at com.example.Main.main(Main.java:12)

"worker-3" #14 prio=5 os_prio=0 cpu=80.10ms elapsed=40.00s tid=0x00007f1c2c3a1000 nid=0x1a1f runnable  [0x00007f1bf8ffe000]
   java.lang.Thread.State: RUNNABLE
	at java.net.SocketInputStream.socketRead0(java.base@17.0.7/Native Method)
	at java.net.SocketInputStream.read(java.base@17.0.7/SocketInputStream.java:168)
	at com.example.Client.fetch(Client.java:55)

"worker-4" #15 prio=5 os_prio=0 cpu=81.00ms elapsed=40.00s tid=0x00007f1c2c3a2000 nid=0x1a20 runnable  [0x00007f1bf8efe000]
   java.lang.Thread.State: RUNNABLE
	at com.example.Codec.decode(Codec.java:120)
	- locked <0x000000071a2b3c40> (a java.lang.Object)
	at com.example.Client.fetch(Client.java:60)

"worker-5" #16 prio=5 os_prio=0 cpu=81.00ms elapsed=40.00s tid=0x00007f1c2c3a3000 nid=0x1a21 runnable  [0x00007f1bf8dfe000]
   java.lang.Thread.State: RUNNABLE
	at com.example.Codec.decode(Codec.java:120)
	at com.example.Client.fetch(Client.java:60)

"C2 CompilerThread0" #6 daemon prio=9 os_prio=0 cpu=900.00ms elapsed=42.00s tid=0x00007f1c2c0f1000 nid=0x1a0b waiting on condition  [0x0000000000000000]
   java.lang.Thread.State: RUNNABLE
   No compile task

"pool-1-thread-1" #20 prio=5 os_prio=0 cpu=2.00ms elapsed=39.00s tid=0x00007f1c2c500000 nid=0x1a30 waiting on condition  [0x00007f1bf87fe000]
   java.lang.Thread.State: WAITING (parking)
	at jdk.internal.misc.Unsafe.park(java.base@17.0.7/Native Method)
	- parking to wait for  <0x000000071a000000> (a java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject)
	at java.util.concurrent.locks.LockSupport.park(java.base@17.0.7/LockSupport.java:341)

"VM Thread" os_prio=0 cpu=20.00ms elapsed=42.00s tid=0x00007f1c2c0b0000 nid=0x1a08 runnable  

JNI global references: 15

)FIX",
       R"FIX(main;com.example.Main.main;com.example.Solver.step;com.example.Matrix.multiply 1
worker;com.example.Client.fetch;com.example.Codec.decode 2
)FIX"},
  };
  return fixtures;
}

}  // namespace test
