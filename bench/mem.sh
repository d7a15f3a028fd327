#!/bin/sh
# Peak memory (RSS) and wall time of the traced-input paths (results in bench/RESULTS.md, "Peak memory of the traced-input paths"):
#   convert driver1m.json -o x.prof   (issue 5: a tenth of seed 001's 1,239 MB, i.e. <= 124 MB)
#   flamegraph driver1m.json -o x.html
#   flamegraph kineto_1g.json -o x.html   (when /tmp/ffbench/kineto_1g.json exists)
# Each command runs 3 times; the median RSS and wall time are printed. With a second binary
# (e.g. one built from the previous commit) both are run side by side and the outputs compared.
# Add HEAPTRACK=1 to record the heap peak of each command once (heaptrack must be installed).
# Usage: bench/mem.sh [BUILD_DIR] [OTHER_FLAMEFOLD]
set -e
BUILD=${1:-build}
FF=$(cd "$(dirname "$0")/.." && pwd)/$BUILD/flamefold
OTHER=${2:-}
OUT=/tmp/ffbench
mkdir -p $OUT/mem
[ -f $OUT/driver1m.json ] || python3 "$(dirname "$0")/pstats_driver_trace.py" -o $OUT/driver1m.json --calls 1000000

median3() {  # prints the medians of three runs of "$@": wall s, CPU s (user+sys), peak RSS KB
  for i in 1 2 3; do
    /usr/bin/time -f '%e %U %S %M' "$@" 2>&1 >/dev/null | tail -1
  done | awk '{w[NR]=$1; c[NR]=$2+$3; r[NR]=$4}
    function med(a,  x, y, z) { x=a[1]; y=a[2]; z=a[3];
      if ((x<=y && y<=z) || (z<=y && y<=x)) return y; if ((y<=x && x<=z) || (z<=x && x<=y)) return x; return z }
    END { printf "%.2f s wall, %.2f s CPU, %d KB peak RSS (medians of 3)\n", med(w), med(c), med(r) }'
}

run() {  # name, output extension, arguments after the binary
  name=$1 ext=$2
  shift 2
  echo "== $name"
  for bin in $FF $OTHER; do
    [ -n "$bin" ] || continue
    tag=$(basename $(dirname $bin))
    printf '%-14s ' "$tag"
    median3 $bin "$@" -o $OUT/mem/$name.$tag.$ext
    if [ -n "$HEAPTRACK" ]; then
      heaptrack -o $OUT/mem/ht.$name.$tag $bin "$@" -o $OUT/mem/$name.$tag.$ext >/dev/null 2>&1
      heaptrack_print -f $OUT/mem/ht.$name.$tag.zst -p 0 -a 0 -T 0 -l 0 2>/dev/null | grep 'peak heap'
    fi
  done
  if [ -n "$OTHER" ]; then
    cmp $OUT/mem/$name.$(basename $(dirname $FF)).$ext $OUT/mem/$name.$(basename $(dirname $OTHER)).$ext &&
      echo "outputs identical"
  fi
}

run convert-driver1m prof convert $OUT/driver1m.json
run flamegraph-driver1m html flamegraph $OUT/driver1m.json
[ -f $OUT/kineto_1g.json ] && run flamegraph-kineto1g html flamegraph $OUT/kineto_1g.json
exit 0
