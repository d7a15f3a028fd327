#!/usr/bin/env bash
# The HTML viewer's differential mode on a ~1,000,000-node diff: html_bench.sh's profile as the
# after side, and as the before side a perturbed copy (counts scaled by 0.5-1.5, one stack in 20
# missing, one in 20 with an extra frame that is gone on the after side). `flamefold diff` writes
# the page; bench/html_bench.js reports first paint, zoom, search and the width/colour switches.
#   BUILD=build bench/html_diff_bench.sh [nodes=1000000]
# Inputs go to $DIR (default /tmp/ffbench), never into the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
NODES=${1:-1000000}
DIR=${DIR:-/tmp/ffbench}
mkdir -p "$DIR"
AFTER=$DIR/html-$NODES.folded
BEFORE=$DIR/html-$NODES-before.folded
OUT=$DIR/html-diff-$NODES.html
[[ -s $AFTER ]] || python3 bench/html_gen_folded.py --nodes "$NODES" -o "$AFTER"
[[ -s $BEFORE ]] || python3 - "$AFTER" "$BEFORE" <<'PY'
import random, sys
rng = random.Random(7)
with open(sys.argv[1], encoding="utf-8") as src, open(sys.argv[2], "w", encoding="utf-8") as out:
    for line in src:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        roll = rng.random()
        if roll < 0.05:
            continue  # new on the after side
        n = max(1, int(int(count) * rng.uniform(0.5, 1.5)))
        out.write("%s %d\n" % (stack, n))
        if roll > 0.95:
            out.write("%s;old_frame %d\n" % (stack, rng.randint(1, 50)))  # gone on the after side
PY
echo "input: $BEFORE vs $AFTER"
echo "== flamefold diff BEFORE AFTER -o OUT.html"
/usr/bin/time -f '%e s %M KB' "$BUILD/flamefold" diff "$BEFORE" "$AFTER" -o "$OUT" 2>&1 | grep -v wrote
ls -l "$OUT"
echo "== headless chromium (median of 3 page loads)"
node bench/html_bench.js "$OUT" 3 | grep -v '^  \|^ "each\|^   \|^ \]'
