#!/usr/bin/env python3
"""Writes a folded-stacks file whose call tree has about --nodes nodes (default 1,000,000):
a random, realistically shaped tree (wide top, deep narrow stacks, 20,000 distinct frame
names of typical length), one line per leaf plus some lines for frames with self time.
Deterministic for a given --seed. Used by bench/html_bench.sh."""
import argparse
import random
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--nodes", type=int, default=1_000_000)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("-o", "--output", default="-")
args = ap.parse_args()
rng = random.Random(args.seed)

mods = ["torch/nn/modules/module", "model/attention", "model/mlp", "data/loader", "utils/io",
        "numpy/core/multiarray", "runtime/executor", "libc.so.6", "libcuda.so.1", "kernel"]
names = []
for k in range(20000):
    m = rng.choice(mods)
    kind = rng.random()
    if kind < 0.5:
        names.append(f"{m}.py:{rng.choice(['forward', 'backward', 'step', 'load', 'run', 'call'])}_{k}:{rng.randint(1, 900)}")
    elif kind < 0.8:
        names.append(f"{m}::Impl<float>::operation_{k}(long, int)")
    else:
        names.append(f"func_{k}_[k]")
BRANCH = [0] * 30 + [1] * 45 + [2] * 15 + [3] * 7 + [5] * 3

out = sys.stdout if args.output == "-" else open(args.output, "w")
count = 0
lines = 0
stack = []
buf = []


def emit(weight):
    global lines
    buf.append(";".join(stack) + " " + str(weight) + "\n")
    lines += 1
    if len(buf) >= 10000:
        out.write("".join(buf))
        buf.clear()


def grow(depth, budget_left):
    """Depth-first generation below the current stack; returns nodes made."""
    made = 0
    todo = [(depth, rng.choice(BRANCH) if depth < 40 else 0)]
    # iterative DFS: each entry = (depth, children still to make at that level)
    while todo:
        d, left = todo[-1]
        if left == 0 or made >= budget_left:
            todo.pop()
            if stack and len(stack) > depth:
                stack.pop()
            continue
        todo[-1] = (d, left - 1)
        stack.append(names[min(int(rng.paretovariate(1.1)) - 1 + rng.randrange(64) * 300, len(names) - 1)])
        made += 1
        kids = rng.choice(BRANCH) if d + 1 < 40 else 0
        if kids == 0:
            emit(max(1, int(rng.lognormvariate(2, 1.5))))
            stack.pop()
        else:
            if rng.random() < 0.2:
                emit(max(1, int(rng.lognormvariate(1, 1))))
            todo.append((d + 1, kids))
    return made


top = 0
while count < args.nodes:
    stack[:] = [f"main_{top % 64}"]
    count += 1
    for _ in range(rng.randint(2, 12)):
        if count >= args.nodes:
            break
        stack[1:] = [names[rng.randrange(len(names))]]
        count += 1
        count += grow(2, args.nodes - count)
        emit(1)
    top += 1
out.write("".join(buf))
print(f"html_gen_folded: ~{count} nodes, {lines} lines", file=sys.stderr)
