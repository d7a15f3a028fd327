"""A pstats file converted by flamefold (`convert in.prof -o out.prof`) loads in Python's pstats
with the same entries, caller edges and totals. Python 2 files are compared against the
statistics flamefold's own reader gives (`top --sort nfl`), since Python 3 cannot load them.

usage: pstats_roundtrip.py FLAMEFOLD TMPDIR FILE...
"""
import marshal
import os
import pstats
import subprocess
import sys


def main():
    flamefold, tmp, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(tmp, exist_ok=True)
    for i, path in enumerate(files):
        out = os.path.join(tmp, f"roundtrip{i}.prof")
        run = subprocess.run([flamefold, "convert", path, "-o", out], capture_output=True, text=True)
        if run.returncode != 0:
            raise SystemExit(f"convert failed on {path}: {run.stderr}")
        ours = pstats.Stats(out)  # must load
        try:
            with open(path, "rb") as f:
                original = marshal.load(f)
        except (ValueError, EOFError, TypeError):
            original = None
        if original is not None:
            for key, (cc, nc, tt, ct, callers) in original.items():
                got = ours.stats.get(key)
                assert got is not None, f"{path}: {key} missing"
                assert got[:4] == (cc, nc, tt, ct), f"{path}: {key}: {got[:4]} != {(cc, nc, tt, ct)}"
                assert got[4] == callers, f"{path}: {key}: callers differ"
            extra = [k for k in ours.stats if k not in original]
            for k in extra:  # functions named only as callers: present with zero entries
                assert ours.stats[k][:4] == (0, 0, 0.0, 0.0), f"{path}: unexpected entry {k}"
            ref = pstats.Stats(path)
            assert (ours.total_calls, ours.prim_calls) == (ref.total_calls, ref.prim_calls), path
            assert abs(ours.total_tt - ref.total_tt) <= 1e-12 * max(1.0, ref.total_tt), path
        print(f"ok: {path} -> {len(ours.stats)} functions, {ours.total_calls} calls, {ours.total_tt:.6f} s")


if __name__ == "__main__":
    main()
