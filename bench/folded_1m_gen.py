#!/usr/bin/python3
"""Unsorted folded stacks as samplers write them (py-spy, Austin, CPython's profiler):
1,000,000 distinct frames in ~154,000 lines (~222 MB), each line a random earlier path plus
1-12 new frames, so ~1M call-tree nodes. Deterministic (seed 7); issue 10's generator.
With --repeated: 20,000 distinct stacks of 5-40 frames drawn at random until ~200 MB (~326,000
lines, ~449,000 nodes): the shape of a long sampling run, whose later lines mostly repeat
earlier ones. Deterministic (seed 5).
  bench/folded_1m_gen.py [--repeated] OUT"""
import random
import sys


def distinct(out):
    rnd = random.Random(7)
    mods = ['torch', 'model', 'layers', 'attention', 'mlp', 'optim', 'data', 'utils', 'nccl', 'aten']

    def name(i):
        return f"{mods[i % 10]}.{['forward', 'backward', 'step', 'run', 'call', 'apply'][i % 6]}_{i}(file_{i % 97}.py:{i % 500})"

    made, paths = 0, [[]]
    with open(out, 'w') as f:
        while made < 1_000_000:
            base = rnd.choice(paths)
            depth = rnd.randint(1, 12)
            path = base + [name(made + k) for k in range(depth)]
            made += depth
            paths.append(path if len(path) < 60 else path[:20])
            f.write(';'.join(path) + f' {rnd.randint(1, 5000)}\n')


def repeated(out):
    rnd = random.Random(5)
    stacks = []
    for _ in range(20000):
        depth = rnd.randint(5, 40)
        stacks.append(';'.join(f"mod{rnd.randint(0, 50)}.fn{rnd.randint(0, 3000)}(file{rnd.randint(0, 99)}.py:{rnd.randint(1, 900)})"
                               for _ in range(depth)))
    with open(out, 'w') as f:
        written = 0
        while written < 200_000_000:
            line = f"{rnd.choice(stacks)} {rnd.randint(1, 100)}\n"
            f.write(line)
            written += len(line)


if sys.argv[1] == '--repeated':
    repeated(sys.argv[2])
else:
    distinct(sys.argv[1])
