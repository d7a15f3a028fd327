#!/bin/sh
# merge-gpu vs seed 002 on gen_gpu_cpu.py pairs (results in bench/RESULTS.md).
# Usage: bench/merge_gpu.sh [BUILD_DIR] [SEED_SIZES]   (default seed sizes: 5000 10000)
set -e
BUILD=${1:-build-pstats}
SEED_SIZES=${2:-"5000 10000"}
FF=$(cd "$(dirname "$0")/.." && pwd)/$BUILD/flamefold
SHARED=$(cd "$(dirname "$0")/../.." && pwd)/shared
OUT=/tmp/ffbench
mkdir -p $OUT
T="/usr/bin/time -f %e_s_%M_KB"
for n in 5000 10000 42000 420000; do
  [ -f $OUT/gc$n.json ] || python3 $SHARED/gen/gen_gpu_cpu.py --cpu-out $OUT/gc$n.txt --gpu-out $OUT/gc$n.json --launches $n >/dev/null
  echo "== $n launches: $(du -ch $OUT/gc$n.txt $OUT/gc$n.json | tail -1)"
  for i in 1 2 3; do $T $FF merge-gpu --cpu $OUT/gc$n.txt --gpu $OUT/gc$n.json -o $OUT/ours$n.folded 2>&1 | tail -1; done
done
for n in $SEED_SIZES; do
  echo "== seed 002, $n launches"
  $T python3 $SHARED/baselines/seed002_merge_gpu_cpu.py -c $OUT/gc$n.txt -g $OUT/gc$n.json -o $OUT/seed$n.folded 2>&1 | tail -1
  cmp $OUT/seed$n.folded $OUT/ours$n.folded && echo "identical output"
done
