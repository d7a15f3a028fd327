#!/bin/sh
# pstats benchmarks (results in bench/RESULTS.md):
#  1. 1,000,000 calls -> .prof: seed 001's generate_pstats (driver stream) vs flamefold convert
#     of the same stream written as a PyTorch-profiler trace (bench/pstats_driver_trace.py).
#  2. a ~12k-function pstats file (gen_pstats.py) -> call graph SVG (flamefold + Graphviz dot).
# Usage: bench/pstats.sh [BUILD_DIR]   (inputs go to /tmp/ffbench)
set -e
BUILD=${1:-build-pstats}
FF=$(cd "$(dirname "$0")/.." && pwd)/$BUILD/flamefold
SHARED=$(cd "$(dirname "$0")/../.." && pwd)/shared
OUT=/tmp/ffbench
mkdir -p $OUT
T="/usr/bin/time -f %e_s_%M_KB"

[ -f $OUT/driver1m.json ] || python3 "$(dirname "$0")/pstats_driver_trace.py" -o $OUT/driver1m.json --calls 1000000
ls -la $OUT/driver1m.json
for i in 1 2 3; do
  $T $FF convert $OUT/driver1m.json -o $OUT/ours1m.prof 2>&1 | tail -1
done
# The pstats step alone (call_stats + marshal bytes) on the already-read tree, as the seed's
# generate_pstats is timed (needs -DFLAMEFOLD_BENCH=ON).
[ -x $(dirname $FF)/bench/pstats_stage ] && $(dirname $FF)/bench/pstats_stage $OUT/driver1m.json 3
echo "seed 001 (generate_pstats_s is the pstats step alone; time is the whole driver):"
for i in 1 2 3; do
  $T python3 $SHARED/baselines/seed001_driver.py -o $OUT/seed1m.prof --calls 1000000 2>&1 | tail -2
done

[ -f $OUT/vit_like.pstats ] || python3 $SHARED/gen/gen_pstats.py -o $OUT/vit_like.pstats --functions 12600 --fanout 3
for i in 1 2 3; do
  $T $FF callgraph $OUT/vit_like.pstats -o $OUT/vit_like.svg 2>&1 | tail -1
done
for i in 1 2 3; do
  $T $FF top $OUT/vit_like.pstats --sort cumulative -n 30 -o /dev/null 2>&1 | tail -1
done
