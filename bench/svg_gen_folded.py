#!/usr/bin/env python3
"""Deterministic folded-stack file for the SVG writer benchmark.

Stacks walk a fixed random call tree (JVM, C++ templates, Python, kernel frames with _[k]/_[j]
annotations), so prefixes are shared the way real profiles share them. Writes UNIQUE distinct
stacks, one line each, with Zipf-like counts.

    python3 bench/svg_gen_folded.py --stacks 100000 -o /tmp/ffbench/svg100k.folded
"""
import argparse
import random


def make_names(rng, n):
    pkgs = ["java/util", "org/apache/kafka", "com/example/service", "io/netty/channel", "sun/nio/ch"]
    cpp = ["std::vector<int>::push_back", "folly::Future<T>::then", "torch::autograd::Engine::execute",
           "at::native::add_kernel", "void tbb::detail::task_dispatcher::local_wait_for_all<false>"]
    out = []
    for i in range(n):
        kind = rng.randrange(6)
        if kind == 0:
            out.append(f"L{rng.choice(pkgs)}/Class{i}Handler;::process{i % 97}_[j]")
        elif kind == 1:
            out.append(f"{rng.choice(cpp)}_{i}(at::Tensor const&, c10::Scalar const&)")
        elif kind == 2:
            out.append(f"train.py:forward_{i}:{rng.randrange(1, 900)}")
        elif kind == 3:
            out.append(f"do_syscall_{i}_[k]")
        elif kind == 4:
            out.append(f"Interpreter_{i}")
        else:
            out.append(f"libc.so.6`memcpy_avx_unaligned_erms_{i}")
    return [n.replace(";", "") for n in out]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--stacks", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--min-depth", type=int, default=12)
    ap.add_argument("--max-depth", type=int, default=30)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    names = make_names(rng, 20000)
    roots = ["java", "python3", "server", "swapper", "kworker/u16:2"]
    children = {}  # (depth, name) -> candidate child names

    def kids(key):
        c = children.get(key)
        if c is None:
            c = [rng.choice(names) for _ in range(rng.randrange(2, 7))]
            children[key] = c
        return c

    seen = set()
    total_bytes = 0
    with open(a.output, "w") as f:
        while len(seen) < a.stacks:
            stack = [rng.choice(roots)]
            depth = rng.randrange(a.min_depth, a.max_depth)
            for d in range(depth):
                c = kids((d, stack[-1]))
                # Zipf-ish: early candidates are far more likely, so prefixes are shared.
                stack.append(c[min(int(rng.paretovariate(1.2)) - 1, len(c) - 1)])
            line = ";".join(stack)
            if line in seen:
                continue
            seen.add(line)
            count = max(1, int(rng.paretovariate(0.9)))
            s = f"{line} {count}\n"
            total_bytes += len(s)
            f.write(s)
    print(f"wrote {a.output}: {len(seen)} unique stacks, {total_bytes / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
