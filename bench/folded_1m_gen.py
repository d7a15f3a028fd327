#!/usr/bin/python3
"""Unsorted folded stacks as samplers write them (py-spy, Austin, CPython's profiler):
1,000,000 distinct frames in ~154,000 lines (~222 MB), each line a random earlier path plus
1-12 new frames, so ~1M call-tree nodes. Deterministic (seed 7); issue 10's generator.
  bench/folded_1m_gen.py OUT"""
import random
import sys

rnd = random.Random(7)
mods = ['torch', 'model', 'layers', 'attention', 'mlp', 'optim', 'data', 'utils', 'nccl', 'aten']


def name(i):
    return f"{mods[i % 10]}.{['forward', 'backward', 'step', 'run', 'call', 'apply'][i % 6]}_{i}(file_{i % 97}.py:{i % 500})"


made, paths = 0, [[]]
with open(sys.argv[1], 'w') as f:
    while made < 1_000_000:
        base = rnd.choice(paths)
        depth = rnd.randint(1, 12)
        path = base + [name(made + k) for k in range(depth)]
        made += depth
        paths.append(path if len(path) < 60 else path[:20])
        f.write(';'.join(path) + f' {rnd.randint(1, 5000)}\n')
