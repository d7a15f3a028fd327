// A real Go program profiled by Go's own runtime/pprof, for the pprof conformance tests
// (tests/conformance/pprof_go_test.cpp): `go run profiled.go CPU.pb.gz HEAP.pb.gz`.
// Work runs under pprof labels (worker=a, worker=b), leaf is never inlined and inlined is
// (so the CPU profile has locations with an inlined line), and the heap profile has
// allocations of several sizes.
package main

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

var sink [][]byte

//go:noinline
func leaf(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

func inlined(n int) int { return leaf(n) + 1 }

func work(d time.Duration, size int) int {
	end := time.Now().Add(d)
	s := 0
	for time.Now().Before(end) {
		s += inlined(20000)
		sink = append(sink, make([]byte, size))
		if len(sink) > 64 {
			sink = sink[:0]
		}
	}
	return s
}

func main() {
	cpu, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	runtime.MemProfileRate = 512
	if err := pprof.StartCPUProfile(cpu); err != nil {
		panic(err)
	}
	pprof.Do(context.Background(), pprof.Labels("worker", "a"), func(context.Context) { work(400*time.Millisecond, 1024) })
	pprof.Do(context.Background(), pprof.Labels("worker", "b"), func(context.Context) { work(250*time.Millisecond, 4096) })
	pprof.StopCPUProfile()
	cpu.Close()
	runtime.GC()
	heap, err := os.Create(os.Args[2])
	if err != nil {
		panic(err)
	}
	if err := pprof.WriteHeapProfile(heap); err != nil {
		panic(err)
	}
	heap.Close()
}
