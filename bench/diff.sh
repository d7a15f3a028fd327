#!/usr/bin/env bash
# flamefold diff against its peers (issue 11): a pair of ~80 MB folded files (bench/diff_gen_folded.py)
# to a differential SVG — flamefold, inferno-diff-folded | inferno-flamegraph, difffolded.pl |
# flamegraph.pl — and two 1 GB Kineto traces (gen_kineto.py, two seeds) to a differential HTML
# against one trace to HTML. Runs interleaved, medians of RUNS (default 3).
# Usage: bench/diff.sh [FLAMEFOLD]
set -euo pipefail
FF=${1:-build/flamefold}
RUNS=${RUNS:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
SHARED=${SHARED:-$HERE/../../shared}
PY=/usr/bin/python3
D=/tmp/ffbench
mkdir -p "$D"
[ -f "$D/diff_before.folded" ] || $PY "$HERE/diff_gen_folded.py" -o "$D/diff_before.folded" "$D/diff_after.folded"
[ -f "$D/kineto_1g_a.json" ] || $PY "$SHARED/gen/gen_kineto.py" -o "$D/kineto_1g_a.json" --target-mb 1000 --layers 24 --seed 1 >/dev/null
[ -f "$D/kineto_1g_b.json" ] || $PY "$SHARED/gen/gen_kineto.py" -o "$D/kineto_1g_b.json" --target-mb 1000 --layers 24 --seed 2 >/dev/null
INF=$SHARED/peers/inferno
FG=$SHARED/peers/FlameGraph

run() { /usr/bin/time -f "%e %M" sh -c "$1" >/dev/null 2>"$D/diffb.err" || { cat "$D/diffb.err" >&2; exit 1; }; tail -1 "$D/diffb.err"; }
median() {  # label then "wall kb" lines on stdin
  $PY -c "
import sys, statistics as st
rows = [l.split() for l in sys.stdin if l.strip()]
w = st.median(float(r[0]) for r in rows); m = st.median(int(r[1]) for r in rows) / 1024
print(f'| {sys.argv[1]} | {w:.2f} s | {m:.0f} MB | {len(rows)} |')" "$1"
}

echo "| what | wall (median) | peak RSS | runs |"
echo "|---|---|---|---|"
: >"$D/diffb.ff"; : >"$D/diffb.inf"
for i in $(seq "$RUNS"); do
  run "$FF diff $D/diff_before.folded $D/diff_after.folded -o $D/diffb.svg" >>"$D/diffb.ff"
  run "$INF/inferno-diff-folded $D/diff_before.folded $D/diff_after.folded | $INF/inferno-flamegraph > $D/diffb_inf.svg" >>"$D/diffb.inf"
done
median "flamefold diff folded pair -> SVG" <"$D/diffb.ff"
median "inferno-diff-folded | inferno-flamegraph" <"$D/diffb.inf"
run "perl $FG/difffolded.pl $D/diff_before.folded $D/diff_after.folded | perl $FG/flamegraph.pl > $D/diffb_pl.svg" | median "difffolded.pl | flamegraph.pl (1 run)"
: >"$D/diffb_html.txt"; : >"$D/diffb_one.txt"
for i in $(seq "$RUNS"); do
  run "$FF diff $D/kineto_1g_a.json $D/kineto_1g_b.json -o $D/diffb.html" >>"$D/diffb_html.txt"
  run "$FF flamegraph $D/kineto_1g_a.json -o $D/diffb_one.html" >>"$D/diffb_one.txt"
done
median "flamefold diff two 1 GB Kineto traces -> HTML" <"$D/diffb_html.txt"
median "flamefold flamegraph one 1 GB Kineto trace -> HTML" <"$D/diffb_one.txt"
