#!/usr/bin/env python3
"""The call stream seed001_driver.py feeds Dynamo's profiler (same knobs, same RNG sequence,
so the same calls and times), written as a PyTorch-profiler Chrome trace of
`python_function` X events ("file(line): name"), so `flamefold convert trace.json -o x.prof`
and the seed's generate_pstats see the same calls.

usage: pstats_driver_trace.py -o trace.json [--calls N] [--max-depth D] [--descend P]
                              [--functions F] [--files K] [--seed S]
"""
import argparse
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--calls", type=int, default=100_000)
    ap.add_argument("--max-depth", type=int, default=32)
    ap.add_argument("--descend", type=float, default=0.7)
    ap.add_argument("--functions", type=int, default=2000)
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()

    rnd = random.Random(a.seed)
    pool = []  # (label, ) drawn in the driver's order: one randint per function
    for k in range(a.functions):
        rnd.randint(8, 400)  # the driver's bytecode count (unused here, keeps the RNG in step)
        pool.append(f"/src/pkg{k % 7}/module_{k % a.files}.py({10 + 7 * k}): fn_{k}")

    out = open(a.output, "w")
    out.write('{"traceEvents": [\n')
    first = True
    clock = 1_000_000
    stack = []  # (label, start)

    def emit(label, start, end):
        nonlocal first
        out.write(("" if first else ",\n") +
                  '{"ph": "X", "cat": "python_function", "name": "%s", "pid": 1, "tid": 1, "ts": %d.%03d, "dur": %d.%03d}'
                  % (label, start // 1000, start % 1000, (end - start) // 1000, (end - start) % 1000))
        first = False

    def exit_one():
        nonlocal clock
        clock += rnd.randint(200, 20_000)
        label, start = stack.pop()
        emit(label, start, clock)

    for _ in range(a.calls):
        depth = len(stack)
        if depth and (depth >= a.max_depth or rnd.random() >= a.descend):
            for _ in range(rnd.randint(1, depth)):
                exit_one()
        label = pool[rnd.randrange(len(pool))]
        clock += rnd.randint(100, 5_000)
        stack.append((label, clock))
    while stack:
        exit_one()
    out.write('\n]}\n')
    out.close()


if __name__ == "__main__":
    main()
