#!/usr/bin/env bash
# Issue 13's rank view, readable ML stacks and source lines (bench/RESULTS.md, "Viewer: ranks, ML
# names, sources (issue 13)"):
#   1. --short-names / --merge-modules on the 1 GB Kineto trace: collapse end to end with and
#      without them, and the renaming alone (bench/names_bench.cpp);
#   2. the page: the rank view with 64 ranks (64 generated Kineto traces; 64 folded files of
#      ~15.6k nodes, ~1M nodes with nothing in common: the worst case), and the names switches
#      on the 1 GB trace's page (bench/viewer_ml_bench.js);
#   3. HTML size and write time with --source-root: a cProfile run over CPython's standard
#      library, and a 1M-node profile whose ~10k Python frames hold more source than the bound.
# Usage: BUILD=build RUNS=3 bench/viewer_ml.sh. Inputs go to /tmp/ffbench.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
FF=$BUILD/flamefold
RUNS=${RUNS:-3}
SHARED=${SHARED:-../shared}
D=/tmp/ffbench
PY=/usr/bin/python3
mkdir -p "$D"
K=$D/kineto_1g_a.json
[ -f "$K" ] || $PY "$SHARED/gen/gen_kineto.py" -o "$K" --target-mb 1000 --layers 24 --seed 1 >/dev/null
median() {  # label; stdin: "seconds kb" lines
  $PY -c "
import sys, statistics as st
rows = [l.split() for l in sys.stdin if l.strip()]
print(f'| {sys.argv[1]} | {st.median(float(r[0]) for r in rows):.2f} s | {st.median(int(r[1]) for r in rows) / 1024:.0f} MB | {len(rows)} |')" "$1"
}
timed() { /usr/bin/time -f "%e %M" -o "$D/vml.time" sh -c "$1" >/dev/null 2>&1; cat "$D/vml.time"; }

echo "== 1. names on $K (load: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "| what | wall | peak RSS | runs |"
echo "|---|---|---|---|"
for opts in "" "--short-names" "--merge-modules" "--short-names --merge-modules"; do
  for i in $(seq "$RUNS"); do timed "$FF collapse $K --weight gpu $opts > $D/vml.folded"; done | median "collapse --weight gpu ${opts:-(plain)}"
done
LIBS="$(pkg-config --libs libzstd libdeflate 2>/dev/null || pkg-config --libs libzstd)"
g++ -std=c++20 -O2 -Iinclude bench/names_bench.cpp "$BUILD/libflamefold.a" -lsimdjson -lfmt -lz -lsqlite3 $LIBS -lpthread -o "$D/names_bench"
"$D/names_bench" "$K" "$RUNS"

echo "== 2. the page (load: $(cut -d' ' -f1-3 /proc/loadavg))"
mkdir -p "$D/ranks64" "$D/ranks64f"
for r in $(seq 0 63); do
  [ -f "$D/ranks64/rank$r.json" ] || $PY "$SHARED/gen/gen_kineto.py" -o "$D/ranks64/rank$r.json" --steps 2 --layers 12 --rank "$r" --world 64 --seed $((100 + r)) >/dev/null
  [ -f "$D/ranks64f/rank$r.folded" ] || $PY bench/html_gen_folded.py --nodes 15625 --seed $((r + 1)) -o "$D/ranks64f/rank$r.folded" 2>/dev/null
done
"$FF" flamegraph "$D"/ranks64/rank*.json -o "$D/ranks64.html" 2>/dev/null
"$FF" flamegraph "$D"/ranks64f/rank*.folded -o "$D/ranks64f.html" 2>/dev/null
[ -f "$D/k1g_a.html" ] || "$FF" flamegraph "$K" -o "$D/k1g_a.html" 2>/dev/null
node bench/viewer_ml_bench.js ranks "$D/ranks64.html" "$RUNS"
node bench/viewer_ml_bench.js ranks "$D/ranks64f.html" "$RUNS"
node bench/viewer_ml_bench.js names "$D/k1g_a.html" "$RUNS"

echo "== 3. --source-root (load: $(cut -d' ' -f1-3 /proc/loadavg))"
STDLIB=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
[ -f "$D/stdlib.prof" ] || { $PY bench/sources_gen.py stdlib "$D/stdlib_work.py" && (cd "$D" && $PY -m cProfile -o stdlib.prof stdlib_work.py >/dev/null); }
[ -d "$D/src-root" ] || $PY bench/sources_gen.py tree "$D/src-root"
[ -f "$D/html-1000000.folded" ] || $PY bench/html_gen_folded.py --nodes 1000000 -o "$D/html-1000000.folded"
[ -f "$D/html-1000000-tid.folded" ] || sed 's/^/tid:1;/' "$D/html-1000000.folded" >"$D/html-1000000-tid.folded"
echo "| input | --source-root | wall | peak RSS | runs | HTML bytes |"
echo "|---|---|---|---|---|---|"
for pair in "stdlib.prof|$STDLIB" "html-1000000-tid.folded|$D/src-root"; do
  IN=${pair%%|*} ROOT=${pair#*|}
  for src in "" "--source-root $ROOT"; do
    row=$(for i in $(seq "$RUNS"); do timed "$FF flamegraph $D/$IN $src -o $D/vml.html"; done | median "$IN | ${src:+yes}")
    echo "${row% |} | $(stat -c %s "$D/vml.html") |"
  done
  node -e '
    const { launch } = require("./tests/browser/browser.js");
    (async () => { const b = await launch(); const p = await b.open(process.argv[1]);
      console.log("sources in the page:", JSON.stringify(await p.evaluate(() => window.flamefold.sources()))); await b.close(); })();' "$D/vml.html"
done
