#!/usr/bin/env python3
"""Runs commands interleaved round by round and prints, per command, the median wall time (to the
millisecond: /usr/bin/time's 10 ms steps are too coarse for runs of a third of a second), the
spread, the median user and sys CPU and the peak RSS of the command's own process tree, then each
command's time as a multiple of the last one's.

  bench/interleave.py ROUNDS "label=shell command" ...   (the last command is the reference)
"""
import os
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
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rounds = int(sys.argv[1])
    cmds = [arg.split('=', 1) for arg in sys.argv[2:]]
    runs = {label: [] for label, _ in cmds}
    with tempfile.NamedTemporaryFile() as report:
        for _ in range(rounds):
            for label, cmd in cmds:
                runs[label].append(run(cmd, report.name))
    med = {label: statistics.median(r[0] for r in v) for label, v in runs.items()}
    print(f"{'':12} {'median s':>9} {'min':>7} {'max':>7} {'user':>6} {'sys':>6} {'RSS MB':>7}")
    for label, v in runs.items():
        print(f"{label:12} {med[label]:9.3f} {min(r[0] for r in v):7.3f} {max(r[0] for r in v):7.3f} "
              f"{statistics.median(r[1] for r in v):6.2f} {statistics.median(r[2] for r in v):6.2f} "
              f"{max(r[3] for r in v):7.1f}")
    ref = cmds[-1][0]
    for label, _ in cmds[:-1]:
        print(f"{label} / {ref}: {med[label] / med[ref]:.2f}x")


if __name__ == '__main__':
    main()
