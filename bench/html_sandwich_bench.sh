#!/usr/bin/env bash
# The viewer's sandwich view on ~1,000,000-node profiles (issue 13): first paint, bytes per
# node, and the time to open the sandwich of the heaviest function, the one with the most
# nodes and the leaf with the most nodes (bench/html_bench.js), on
#   1. bench/html_gen_folded.py's profile (the one of bench/html_bench.sh),
#   2. the same with a frame `dispatch` inserted under every top frame: a function in every
#      stack, under 64 callers, whose callee graph merges the whole tree,
#   3. bench/folded_1m_gen.py's profile (1,000,000 distinct frames: the longest function list).
#   BUILD=build bench/html_sandwich_bench.sh [runs=3]
# Inputs and pages go to /tmp/ffbench (never into the repository).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${1:-3}
DIR=/tmp/ffbench
mkdir -p "$DIR/sandwich"
IN1=$DIR/html-1000000.folded
[[ -s $IN1 ]] || python3 bench/html_gen_folded.py --nodes 1000000 -o "$IN1"
IN2=$DIR/sandwich/dispatch-1000000.folded
[[ -s $IN2 ]] || awk '{ i = index($0, ";"); if (i) print substr($0, 1, i) "dispatch;" substr($0, i + 1); else print }' "$IN1" > "$IN2"
IN3=$DIR/folded_1m.txt
[[ -s $IN3 ]] || python3 bench/folded_1m_gen.py "$IN3"
for IN in "$IN1" "$IN2" "$IN3"; do
  OUT=$DIR/sandwich/$(basename "${IN%.*}").html
  "$BUILD/flamefold" flamegraph "$IN" -o "$OUT" 2>/dev/null
  NODES=$("$BUILD/flamefold" info "$IN" | awk -F': *' '/^call paths/ { gsub(/,/, "", $2); print $2 }')
  BYTES=$(stat -c %s "$OUT")
  echo "== $IN -> $OUT: $BYTES bytes, ${NODES:-?} nodes$( [[ -n $NODES ]] && awk -v b="$BYTES" -v n="$NODES" 'BEGIN { printf ", %.2f B/node", b / n }')"
  node bench/html_bench.js "$OUT" "$RUNS" | node -e 'const o = JSON.parse(require("fs").readFileSync(0, "utf8")); delete o.each; console.log(JSON.stringify(o, null, 1))'
done
