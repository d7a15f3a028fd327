#!/usr/bin/env bash
# folded -> HTML for a ~1,000,000-node profile: end-to-end time, write_html alone, bytes per
# node, and first paint / zoom / search in headless chromium (bench/html_bench.js).
#   BUILD=build-html bench/html_bench.sh [nodes=1000000]
# Inputs go to /tmp/ffbench (never into the repository).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
NODES=${1:-1000000}
DIR=/tmp/ffbench
mkdir -p "$DIR"
IN=$DIR/html-$NODES.folded
OUT=$DIR/html-$NODES.html
[[ -s $IN ]] || python3 bench/html_gen_folded.py --nodes "$NODES" -o "$IN"
echo "input: $IN ($(du -h "$IN" | cut -f1), $(wc -l <"$IN") lines)"

echo "== read only (flamefold info), 3 runs"
for i in 1 2 3; do /usr/bin/time -f '%e s %M KB' "$BUILD/flamefold" info "$IN" >/dev/null; done
echo "== end to end (flamefold flamegraph IN -o OUT.html), 3 runs"
for i in 1 2 3; do /usr/bin/time -f '%e s %M KB' "$BUILD/flamefold" flamegraph "$IN" -o "$OUT" 2>&1 | grep -v wrote; done

echo "== write_html alone, 3 runs"
LIBS="$(pkg-config --libs libzstd libdeflate 2>/dev/null || pkg-config --libs libzstd)"
g++ -std=c++20 -O2 -Iinclude bench/html_write_bench.cpp "$BUILD/libflamefold.a" \
  -lsimdjson -lfmt -lz -lsqlite3 $LIBS -lpthread -o "$DIR/html_write_bench"
"$DIR/html_write_bench" "$IN" "$DIR/html-write-bench.html" 3

echo "== headless chromium (median of 3 page loads)"
node bench/html_bench.js "$OUT" 3 | grep -v '^  \|^ "each\|^   \|^ \]'
