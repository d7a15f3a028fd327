"""Self-contained: profile a small recursive program with cProfile, then check that
flamefold reads it, `top --sort cumulative` equals `python3 -m pstats`, and that the file
flamefold writes back (`convert -o x.prof`) loads in pstats with the same totals.

usage: pstats_from_cprofile.py FLAMEFOLD TMPDIR
"""
import cProfile
import io
import os
import pstats
import subprocess
import sys


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def work():
    total = 0
    for i in range(200):
        total += sum(sorted(range(i)))
    return total + fib(15)


def main():
    flamefold, tmp = sys.argv[1], sys.argv[2]
    os.makedirs(tmp, exist_ok=True)
    source = os.path.join(tmp, "run.prof")
    profiler = cProfile.Profile()
    profiler.runcall(work)
    profiler.dump_stats(source)

    out = io.StringIO()
    pstats.Stats(source, stream=out).sort_stats("cumulative").print_stats(20)
    expected = out.getvalue().splitlines()
    expected = expected[next(i for i, l in enumerate(expected) if "function calls" in l):]
    run = subprocess.run([flamefold, "top", source, "--sort", "cumulative", "-n", "20"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    got = run.stdout.splitlines()
    got = got[next(i for i, l in enumerate(got) if "function calls" in l):]
    assert got == expected, "\n".join(got) + "\n----\n" + "\n".join(expected)

    back = os.path.join(tmp, "back.prof")
    run = subprocess.run([flamefold, "convert", source, "-o", back], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    a, b = pstats.Stats(source), pstats.Stats(back)
    assert (a.total_calls, a.prim_calls) == (b.total_calls, b.prim_calls)
    assert a.total_tt == b.total_tt
    fib_key = next(k for k in a.stats if k[2] == "fib")
    assert a.stats[fib_key][:2] == b.stats[fib_key][:2] and a.stats[fib_key][0] != a.stats[fib_key][1]
    print("ok:", a.total_calls, "calls,", a.prim_calls, "primitive")


if __name__ == "__main__":
    main()
