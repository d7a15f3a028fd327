#!/bin/sh
# "Call stack" args (older Kineto traces): what reading them costs. Three 1 GB inputs derived
# from ../shared/gen/gen_kineto.py's trace (bench/kineto.sh makes /tmp/ffbench/kineto_1g.json):
#   kineto_1g.json         as generated: python_function events (the reader stops looking for
#                          Call stacks at the first one)
#   kineto_1g_nopy.json    python_function renamed to an unknown category: no Python frames and
#                          no stacks (the reader searches the first 200k ops' args, then stops)
#   kineto_1g_stacks.json  the nopy trace with a 3-frame "Call stack" on every op (1.73M ops)
# flamegraph -o x.html, median of 3 runs, peak RSS.
#
#   bench/callstack.sh [BUILD_DIR] [BASELINE_BINARY]   (a baseline flamefold to compare with)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
ff=$build/flamefold
base=${2:-}
dir=/tmp/ffbench
json=$dir/kineto_1g.json
[ -f $json ] || python3 $here/../shared/gen/gen_kineto.py -o $json --target-mb 1000 --layers 24
[ -f $dir/kineto_1g_nopy.json ] ||
  sed 's/"cat": "python_function"/"cat": "pyth0n_function"/' $json > $dir/kineto_1g_nopy.json
[ -f $dir/kineto_1g_stacks.json ] ||
  sed 's/^      "External id": /      "Call stack": "\/w\/model.py(10): forward;\\r\\n\/w\/train.py(5): train;\\r\\n\/w\/train.py(1): <module>", "External id": /' \
    $dir/kineto_1g_nopy.json > $dir/kineto_1g_stacks.json

median3() {  # command... -> "median_s peak_KB"
  for i in 1 2 3; do /usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1; done | sort -n | sed -n 2p
}
for input in kineto_1g kineto_1g_nopy kineto_1g_stacks; do
  new=$(median3 $ff flamegraph $dir/$input.json -o $dir/callstack_new.html)
  row="| $input.json -> HTML | $new"
  if [ -n "$base" ]; then
    old=$(median3 $base flamegraph $dir/$input.json -o $dir/callstack_base.html)
    row="$row | baseline $old"
  fi
  echo "$row |"
done
