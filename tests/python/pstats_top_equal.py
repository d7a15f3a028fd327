"""Our `top --sort KEY -n N` table equals what Python's pstats prints (`sort KEY`, `stats N`),
from the "function calls" line on (the lines above name the file and its date).

usage: pstats_top_equal.py FLAMEFOLD N KEY FILE...   (files Python 3 cannot load are skipped)
"""
import io
import marshal
import pstats
import subprocess
import sys


def from_calls_line(text):
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "function calls" in line:
            return lines[i:]
    raise AssertionError("no 'function calls' line in:\n" + text)


def main():
    flamefold, n, key, files = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    compared = 0
    for path in files:
        try:
            with open(path, "rb") as f:
                marshal.load(f)
        except (ValueError, EOFError, TypeError):
            print(f"skip (Python 3 cannot load it): {path}")
            continue
        out = io.StringIO()
        pstats.Stats(path, stream=out).sort_stats(key).print_stats(n)
        expected = from_calls_line(out.getvalue())
        run = subprocess.run([flamefold, "top", path, "--sort", key, "-n", str(n)], capture_output=True, text=True)
        if run.returncode != 0:
            raise SystemExit(f"flamefold failed on {path}: {run.stderr}")
        got = from_calls_line(run.stdout)
        if got != expected:
            for i, (a, b) in enumerate(zip(expected, got)):
                if a != b:
                    raise SystemExit(f"{path}: line {i} differs:\n  pstats:    {a!r}\n  flamefold: {b!r}")
            raise SystemExit(f"{path}: {len(expected)} lines from pstats, {len(got)} from flamefold")
        compared += 1
        print(f"same: {path} ({len(expected)} lines)")
    if compared == 0:
        raise SystemExit("no file was compared")


if __name__ == "__main__":
    main()
