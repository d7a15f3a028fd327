#!/usr/bin/env python3
"""Two folded files for the diff benchmark: COPIES suffixed copies of the FlameGraph suite's
collapsed stacks (the "-collapsed-all" and "-collapsed-pid" outputs of ../shared/data/
flamegraph-tests/results, ~0.78 MB), the after side perturbed: counts scaled by 0.5-1.5, one stack
in 20 gone, one in 20 new. Deterministic.

    python3 bench/diff_gen_folded.py --copies 100 -o /tmp/ffbench/diff_before.folded /tmp/ffbench/diff_after.folded
"""
import argparse
import glob
import os
import random


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", nargs=2, required=True, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--copies", type=int, default=100)
    ap.add_argument("--shared", default=os.path.join(here, "..", "..", "shared"))
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    lines = []
    pattern = os.path.join(a.shared, "data", "flamegraph-tests", "results", "*-collapsed-%s.txt")
    for variant in ("all", "pid"):
        for path in sorted(glob.glob(pattern % variant)):
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    line = line.rstrip("\n")
                    stack, _, count = line.rpartition(" ")
                    if stack and count.isdigit():
                        lines.append((stack.split(";"), int(count)))
    rng = random.Random(a.seed)
    with open(a.o[0], "w", encoding="utf-8") as before, open(a.o[1], "w", encoding="utf-8") as after:
        for k in range(a.copies):
            suffix = "_%d" % k
            for frames, count in lines:
                stack = ";".join(f + suffix for f in frames)
                roll = rng.random()
                before.write("%s %d\n" % (stack, count))
                if roll < 0.05:
                    continue  # gone on the after side
                after.write("%s %d\n" % (stack, max(1, int(count * rng.uniform(0.5, 1.5)))))
                if roll > 0.95:
                    after.write("%s;new_frame%s %d\n" % (stack, suffix, rng.randint(1, 50)))
    print("wrote", a.o[0], os.path.getsize(a.o[0]), "bytes;", a.o[1], os.path.getsize(a.o[1]), "bytes")


if __name__ == "__main__":
    main()
