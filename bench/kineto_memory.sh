#!/usr/bin/env bash
# The Kineto reader's peak memory and read rate as the trace grows 1x -> 4x (issue 15, items 3
# and 4): generated traces of 250 MB, 500 MB and 1 GB (../shared/gen/gen_kineto.py, --layers 24)
# and the 1 GB one gzipped, each through `info` (read + build, the read rate) and
# `flamegraph -o x.html` (--timeline-events 0, and the default with its flame chart), with NEW
# and OLD binaries interleaved run by run; then 250 MB and 1 GB traces without their Python
# events (bench/kineto_without_python.py) and the 1 GB one, read in memory and streamed
# (--stream-traces never / always, NEW only). Medians of RUNS (default 5); peak RSS is
# /usr/bin/time's maximum resident set size in KiB / 1024. Checks the HTML of both is the same.
#   bench/kineto_memory.sh NEW_FLAMEFOLD [OLD_FLAMEFOLD]
set -euo pipefail
NEW=$1
OLD=${2:-}
RUNS=${RUNS:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
gen=$here/../shared/gen/gen_kineto.py
D=/tmp/ffbench
PY=/usr/bin/python3
mkdir -p "$D"
for mb in 250 500 1000; do
  f=$D/kineto_${mb}m.json
  [[ $mb == 1000 ]] && f=$D/kineto_1g.json
  [[ -s $f ]] || $PY "$gen" -o "$f" --target-mb $mb --layers 24 >/dev/null
done
[[ -s $D/kineto_1g.json.gz ]] || gzip -1 -c "$D/kineto_1g.json" >"$D/kineto_1g.json.gz"
# The same traces without Python events, read in memory and streamed (--stream-traces, NEW only).
for f in kineto_250m kineto_1g; do
  [[ -s $D/${f}_nopy.json ]] || $PY "$here/bench/kineto_without_python.py" "$D/$f.json" "$D/${f}_nopy.json"
done

out=$D/kmem.txt
: >"$out"
one() {  # tool label input command...
  local tool=$1 label=$2 input=$3
  shift 3
  /usr/bin/time -f "%e %M" -o "$D/kmem.time" "$@" >/dev/null 2>"$D/kmem.err" || { cat "$D/kmem.err" >&2; exit 1; }
  echo "$tool|$label|$input|$(cat "$D/kmem.time")" >>"$out"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$RUNS"); do
  for input in kineto_250m.json kineto_500m.json kineto_1g.json kineto_1g.json.gz; do
    for tool in new ${OLD:+old}; do
      bin=$NEW
      [[ $tool == old ]] && bin=$OLD
      one $tool info $input "$bin" info "$D/$input"
      one $tool "html (no chart)" $input "$bin" flamegraph "$D/$input" -o "$D/kmem_$tool.html" --timeline-events 0
      [[ $input == kineto_1g.json ]] && one $tool "html (chart)" $input "$bin" flamegraph "$D/$input" -o "$D/kmem_${tool}_chart.html"
    done
    [[ -n $OLD ]] && ! cmp -s "$D/kmem_new.html" "$D/kmem_old.html" && echo "HTML DIFFERS for $input" >&2
  done
  for input in kineto_250m_nopy.json kineto_1g_nopy.json kineto_1g.json; do
    for mode in never always; do
      one "new" "html (no chart), --stream-traces $mode" $input "$NEW" flamegraph "$D/$input" -o "$D/kmem_$mode.html" \
        --timeline-events 0 --stream-traces $mode
    done
    cmp -s "$D/kmem_never.html" "$D/kmem_always.html" || echo "HTML DIFFERS streamed for $input" >&2
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
$PY - "$out" "$D" <<'PYEOF'
import sys, os, statistics as st, collections
path, d = sys.argv[1], sys.argv[2]
runs = collections.defaultdict(list)
for line in open(path):
    tool, label, inp, t = line.rstrip("\n").split("|")
    wall, kb = t.split()
    runs[(inp, label, tool)].append((float(wall), int(kb)))
size = lambda inp: os.path.getsize(os.path.join(d, inp.replace(".gz", ""))) / 1e9
print("| input | command | tool | wall (median) | GB/s of JSON | peak RSS (median) | runs |")
print("|---|---|---|---:|---:|---:|---:|")
for (inp, label, tool), r in sorted(runs.items(), key=lambda kv: (size(kv[0][0]), kv[0][0], kv[0][1], kv[0][2])):
    wall = st.median(w for w, _ in r)
    mb = st.median(k for _, k in r) / 1024
    print(f"| {inp} | {label} | {tool} | {wall:.2f} s | {size(inp) / wall:.2f} | {mb:.0f} MB | {len(r)} |")
PYEOF
