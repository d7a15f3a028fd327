#!/usr/bin/env bash
# Peak memory and time of DB -> HTML flame graphs as the DB grows (issue 10, item 2):
# Ascend 1M / 4M / 10M calls and nsys 450k / 4.6M kernels, side by side in one run with an
# older flamefold binary (OLD, optional) and seed 000 (Ascend 1M and 4M), runs interleaved,
# medians of RUNS (default 5). Peak RSS is /usr/bin/time's maximum resident set size.
# Usage: bench/db_memory.sh NEW_FLAMEFOLD [OLD_FLAMEFOLD]
# Inputs are generated into /tmp/ffbench from ../shared/gen when missing (~2.5 GB, minutes).
set -euo pipefail
NEW=$1
OLD=${2:-}
RUNS=${RUNS:-5}
SHARED=${SHARED:-$(dirname "$0")/../../shared}
PY=/usr/bin/python3
D=/tmp/ffbench
mkdir -p "$D/seed000"
gen() { [ -f "$D/$2" ] || $PY "$SHARED/gen/$1" -o "$D/$2" $3 >/dev/null; }
gen gen_ascend_db.py ascend_pytorch_profiler_1m_0.db "--calls 1000000"
gen gen_ascend_db.py ascend_pytorch_profiler_4m_0.db "--calls 4000000"
gen gen_ascend_db.py ascend_pytorch_profiler_big_0.db "--calls 10000000"
gen gen_nsys_sqlite.py nsys_450k.sqlite "--kernels 450000"
gen gen_nsys_sqlite.py nsys_1g.sqlite "--kernels 4600000"

# One run: prints "wall_s peak_kb".
run() { /usr/bin/time -f "%e %M" "$@" >/dev/null 2>"$D/dbm.err" || { cat "$D/dbm.err" >&2; exit 1; }; tail -1 "$D/dbm.err"; }

# bench LABEL INPUT: interleaved runs of each tool, then one markdown row per tool.
bench() {
  local label=$1 in=$2 out="$D/dbm.txt"
  : >"$out"
  for i in $(seq "$RUNS"); do
    echo "new $(run "$NEW" flamegraph "$D/$in" -o "$D/dbm_new.html")" >>"$out"
    [ -n "$OLD" ] && echo "old $(run "$OLD" flamegraph "$D/$in" -o "$D/dbm_old.html")" >>"$out"
    if [[ $in == ascend* && $in != *big* && $i -le 3 ]]; then
      echo "seed000 $(run $PY "$SHARED/baselines/seed000_flamegraph.py" "$D/$in" --output "$D/seed000")" >>"$out"
    fi
  done
  [ -n "$OLD" ] && { cmp -s "$D/dbm_new.html" "$D/dbm_old.html" && echo "<!-- $label: HTML byte-identical to OLD -->" || echo "<!-- $label: HTML DIFFERS from OLD -->"; }
  $PY - "$label" "$out" <<'EOF'
import sys, statistics as st, collections
label, path = sys.argv[1], sys.argv[2]
runs = collections.defaultdict(list)
for line in open(path):
    tool, wall, kb = line.split()
    runs[tool].append((float(wall), int(kb)))
med = {t: (st.median(w for w, _ in r), st.median(k for _, k in r) / 1024, len(r)) for t, r in runs.items()}
for tool, (wall, mb, n) in med.items():
    extra = ""
    if tool != "new":
        extra = f" | new is {wall / med['new'][0]:.1f}x faster, {mb / med['new'][1]:.2f}x its memory"
    print(f"| {label} | {tool} | {wall:.3f} s | {mb:.0f} MB | {n}{extra} |")
EOF
}

echo "| input | tool | wall (median) | peak RSS (median) | runs / vs new |"
echo "|---|---|---|---|---|"
bench "Ascend 1M calls (96 MB)" ascend_pytorch_profiler_1m_0.db
bench "Ascend 4M calls (370 MB)" ascend_pytorch_profiler_4m_0.db
bench "Ascend 10M calls (928 MB)" ascend_pytorch_profiler_big_0.db
bench "nsys 450k kernels (98 MB)" nsys_450k.sqlite
bench "nsys 4.6M kernels (1 GB)" nsys_1g.sqlite
