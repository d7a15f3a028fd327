#!/usr/bin/env bash
# The flame chart (issue 13): the 1 GB Kineto trace -> HTML holding one 1,000,000-event window
# (the default --timeline-events): time and peak RSS of the write, with and without the chart,
# the HTML's size, then first paint, the chart's first draw and pan/zoom frame times in headless
# chromium (bench/timeline_bench.js). Also an nsys export and an Ascend DB (streaming readers):
# peak RSS with and without the chart.
#   BUILD=build bench/timeline_bench.sh [runs=3]
# Inputs go to /tmp/ffbench (never into the repository).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${1:-3}
FF=$BUILD/flamefold
D=/tmp/ffbench
mkdir -p "$D"
IN=$D/kineto_1g_a.json
[[ -s $IN ]] || python3 ../shared/gen/gen_kineto.py -o "$IN" --target-mb 1000 --layers 24 --seed 1 >/dev/null
echo "input: $IN ($(stat -c %s "$IN") bytes)"

timed() { /usr/bin/time -f '%e s %M KB' "$@" 2>&1 >/dev/null | grep -v '^flamefold: wrote'; }
echo "== flamefold flamegraph IN -o chart.html (default --timeline-events 1000000), $RUNS runs"
for i in $(seq "$RUNS"); do timed "$FF" flamegraph "$IN" -o "$D/timeline-chart.html"; done
echo "== flamefold flamegraph IN -o nochart.html --timeline-events 0, $RUNS runs"
for i in $(seq "$RUNS"); do timed "$FF" flamegraph "$IN" -o "$D/timeline-nochart.html" --timeline-events 0; done
echo "== HTML size: with the chart $(stat -c %s "$D/timeline-chart.html") B, without $(stat -c %s "$D/timeline-nochart.html") B"

echo "== headless chromium (median of $RUNS page loads)"
node bench/timeline_bench.js "$D/timeline-chart.html" "$RUNS"

for db in "$D/nsys_1g.sqlite" "$D/ascend_pytorch_profiler_1m_0.db"; do
  [[ -e $db ]] || continue
  echo "== $(basename "$db"): -o x.html with the chart, then --timeline-events 0 (one run each)"
  timed "$FF" flamegraph "$db" -o "$D/timeline-db.html"
  echo "   html $(stat -c %s "$D/timeline-db.html") B"
  timed "$FF" flamegraph "$db" -o "$D/timeline-db0.html" --timeline-events 0
  echo "   html $(stat -c %s "$D/timeline-db0.html") B"
done
