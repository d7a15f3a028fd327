#!/usr/bin/env python3
"""Runs commands interleaved round by round, so that the machine's drifts fall on all of them
alike, and prints per command the median wall time (to the millisecond: /usr/bin/time's 10 ms
steps are too coarse for runs of a third of a second), the spread, the median user and sys CPU,
the peak RSS of the command's own process tree and every round's wall time; then the ratios asked
for, of one label's median to another's.

  bench/interleave.py ROUNDS [--ratio A/B ...] "label=shell command" ...

A command that fails stops the script, naming it.
"""
import statistics
import subprocess
import sys
import tempfile
import time


def run(cmd, report):
    # /usr/bin/time for the CPU and peak RSS of the command alone (a child's own rusage would
    # count this script's pages, which the child starts with before it execs).
    start = time.perf_counter()
    done = subprocess.run(['/usr/bin/time', '-f', '%U %S %M', '-o', report, 'bash', '-c', cmd],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"interleave.py: exit {done.returncode}: {cmd}")
    user, sys_cpu, rss_kb = open(report).read().split()[-3:]
    return wall, float(user), float(sys_cpu), float(rss_kb) / 1024


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    rounds = int(args.pop(0))
    ratios = []
    while len(args) >= 2 and args[0] == '--ratio':
        ratios.append(args[1].split('/', 1))
        del args[:2]
    if not args:
        sys.exit(__doc__)
    cmds = [arg.split('=', 1) for arg in args]
    runs = {label: [] for label, _ in cmds}
    with tempfile.NamedTemporaryFile() as report:
        for _ in range(rounds):
            for label, cmd in cmds:
                runs[label].append(run(cmd, report.name))
    med = {label: statistics.median(r[0] for r in v) for label, v in runs.items()}
    width = max(len(label) for label in runs)
    print(f"{'':{width}} {'median s':>9} {'min':>7} {'max':>7} {'user':>6} {'sys':>6} {'RSS MB':>7}  walls")
    for label, v in runs.items():
        print(f"{label:{width}} {med[label]:9.3f} {min(r[0] for r in v):7.3f} {max(r[0] for r in v):7.3f} "
              f"{statistics.median(r[1] for r in v):6.2f} {statistics.median(r[2] for r in v):6.2f} "
              f"{max(r[3] for r in v):7.1f}  {' '.join(f'{r[0]:.3f}' for r in v)}")
    for a, b in ratios:
        if a in med and b in med:
            print(f"{a} / {b}: {med[a] / med[b]:.2f}x")


if __name__ == '__main__':
    main()
