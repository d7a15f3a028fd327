#!/usr/bin/env bash
# SQLite reading: the direct table-page scanner (TableScan) against SQLite's API, the Ascend
# flame graph against seed 000, nsys convert, and byte-identical outputs against an older
# flamefold binary. Results: bench/RESULTS.md ("SQLite databases").
# Usage: [ROUNDS=7] bench/sqlite.sh BUILD_DIR [BEFORE_BINARY]
#   BUILD_DIR must be configured with -DFLAMEFOLD_BENCH=ON (for sqlite_scan_bench);
#   BEFORE_BINARY (optional): a flamefold built before the change, for timings and cmp.
set -eu
BUILD=${1:?usage: bench/sqlite.sh BUILD_DIR [BEFORE_BINARY]}
BEFORE=${2:-}
ROUNDS=${ROUNDS:-7}
FF="$BUILD/flamefold"
SCAN="$BUILD/bench/sqlite_scan_bench"
SHARED=${SHARED:-$(dirname "$0")/../../shared}
D=/tmp/ffbench
O=$D/sqlite_bench
mkdir -p "$D" "$O" "$O/seed000"
gen() { [ -f "$2" ] || python3 "$SHARED/gen/$1" -o "$2" $3; }
gen gen_ascend_db.py "$D/ascend_pytorch_profiler_1m_0.db" "--calls 1000000"
gen gen_nsys_sqlite.py "$D/nsys_450k.sqlite" "--kernels 450000"
ASC=$D/ascend_pytorch_profiler_1m_0.db
NSYS=$D/nsys_450k.sqlite

echo "== load: $(cat /proc/loadavg)"
echo "== Ascend 1M -> HTML, $ROUNDS interleaved rounds (seed000, [before], after)"
runs=("seed000=/usr/bin/python3 $SHARED/baselines/seed000_flamegraph.py $ASC -o $O/seed000")
[ -n "$BEFORE" ] && runs+=("before=$BEFORE flamegraph $ASC -o $O/ascend_before.html")
runs+=("after=$FF flamegraph $ASC -o $O/ascend_after.html")
/usr/bin/python3 "$(dirname "$0")/interleave.py" "$ROUNDS" --ratio seed000/after --ratio before/after "${runs[@]}"

echo "== raw scans: rows per CPU-second (direct pages vs SQLite API; second pair is warm)"
"$SCAN" scan "$ASC" PYTORCH_API startNs endNs globalTid name connectionId
echo "== the Ascend host table as the flame graph reads it (TEXT times parsed), direct scan alone"
"$SCAN" times "$ASC" PYTORCH_API 2 startNs endNs globalTid connectionId name callchainId
"$SCAN" scan "$NSYS" CUPTI_ACTIVITY_KIND_KERNEL start end deviceId streamId correlationId globalPid shortName
"$SCAN" scan "$NSYS" CUPTI_ACTIVITY_KIND_RUNTIME start end globalTid correlationId nameId eventClass callchainId
echo "== reader phases (CPU-s of the process during the phase)"
for i in 1 2 3; do "$SCAN" ascend "$ASC"; done
for i in 1 2 3; do "$SCAN" ascend-j1 "$ASC"; done
for i in 1 2 3; do "$SCAN" nsys "$NSYS"; done

echo "== nsys 450k convert, $ROUNDS interleaved rounds ([before], after)"
runs=()
[ -n "$BEFORE" ] && runs+=("before=$BEFORE convert $NSYS -o $O/nsys_before.json")
runs+=("after=$FF convert $NSYS -o $O/nsys_after.json")
/usr/bin/python3 "$(dirname "$0")/interleave.py" "$ROUNDS" --ratio before/after "${runs[@]}"

if [ -n "$BEFORE" ]; then
  echo "== identical outputs (cmp)"
  same() { if cmp -s "$1" "$2"; then echo "same: $3"; else echo "DIFFERENT: $3"; fi; }
  # The pages' payloads (their gzip members may be cut differently).
  if [ "$(/usr/bin/python3 "$(dirname "$0")/html_payload.py" "$O/ascend_before.html" | sed 's/.*md5 //')" = \
       "$(/usr/bin/python3 "$(dirname "$0")/html_payload.py" "$O/ascend_after.html" | sed 's/.*md5 //')" ]; then
    echo "same: ascend 1M flamegraph HTML payload"
  else echo "DIFFERENT: ascend 1M flamegraph HTML payload"; fi
  same "$O/nsys_before.json" "$O/nsys_after.json" "nsys 450k convert JSON"
  for v in "" "--weight npu" "--stacks callchain"; do
    "$BEFORE" collapse $v "$ASC" >"$O/c_before.folded" 2>/dev/null
    "$FF" collapse $v "$ASC" >"$O/c_after.folded" 2>/dev/null
    same "$O/c_before.folded" "$O/c_after.folded" "ascend 1M collapse $v"
  done
  find "$SHARED/data/ascend" "$SHARED/data/nsys" -type f \( -name '*.db' -o -name '*.sqlite' \) | sort | while read -r f; do
    for cmd in "collapse" "collapse --weight gpu" "collapse --weight npu" "convert"; do
      case "$cmd" in convert) ob="$O/r_before.json"; oa="$O/r_after.json"; eb="-o $ob"; ea="-o $oa" ;;
        *) ob="$O/r_before.folded"; oa="$O/r_after.folded"; eb=""; ea="" ;; esac
      rb=0; ra=0
      if [ -z "$eb" ]; then "$BEFORE" $cmd "$f" >"$ob" 2>"$O/eb" || rb=$?; "$FF" $cmd "$f" >"$oa" 2>"$O/ea" || ra=$?
      else rm -f "$ob" "$oa"; "$BEFORE" $cmd "$f" $eb 2>"$O/eb" || rb=$?; "$FF" $cmd "$f" $ea 2>"$O/ea" || ra=$?; fi
      if [ $rb -ne $ra ]; then echo "DIFFERENT exit ($rb vs $ra): $cmd $f"; continue; fi
      if [ $rb -ne 0 ]; then echo "both exit $rb: $cmd $f"; continue; fi
      same "$ob" "$oa" "$cmd $(echo "$f" | sed "s|$SHARED/||")"
    done
  done
fi
