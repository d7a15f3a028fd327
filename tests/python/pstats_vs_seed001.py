"""flamefold's pstats from a trace of seed 001's call stream equals the seed's own
generate_pstats output function by function (calls, primitive calls, tottime, cumtime).

usage: pstats_vs_seed001.py FLAMEFOLD SHARED_DIR TMPDIR
"""
import os
import pstats
import subprocess
import sys


def main():
    flamefold, shared, tmp = sys.argv[1:4]
    os.makedirs(tmp, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    trace, ours, seed = (os.path.join(tmp, n) for n in ("driver.json", "ours.prof", "seed.prof"))
    knobs = ["--calls", "20000", "--functions", "300", "--max-depth", "40"]  # few functions: recursion
    subprocess.run([sys.executable, os.path.join(here, "..", "..", "bench", "pstats_driver_trace.py"), "-o", trace] + knobs,
                   check=True)
    subprocess.run([sys.executable, os.path.join(shared, "baselines", "seed001_driver.py"), "-o", seed] + knobs,
                   check=True, capture_output=True)
    run = subprocess.run([flamefold, "convert", trace, "-o", ours], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    a, b = pstats.Stats(seed), pstats.Stats(ours)
    assert len(a.stats) == len(b.stats), (len(a.stats), len(b.stats))
    assert (a.total_calls, a.prim_calls) == (b.total_calls, b.prim_calls), ((a.total_calls, a.prim_calls), (b.total_calls, b.prim_calls))
    assert a.total_calls != a.prim_calls, "the stream should recurse"
    for key, v in a.stats.items():
        w = b.stats[key]
        assert w[:2] == v[:2] and abs(w[2] - v[2]) < 1e-9 and abs(w[3] - v[3]) < 1e-9, (key, v[:4], w[:4])
        assert set(w[4]) == set(v[4]), key  # the same callers
    print(f"ok: {len(a.stats)} functions, {a.total_calls} calls ({a.prim_calls} primitive) equal to seed 001")


if __name__ == "__main__":
    main()
