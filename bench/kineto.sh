#!/bin/sh
# Kineto (PyTorch profiler trace) benchmarks: a 1 GB trace from ../shared/gen/gen_kineto.py
# to HTML, to CPU and GPU folded stacks and to `info`, the same trace gzipped, and a bare
# simdjson On-Demand pass over the file for reference. Median of 3 runs, peak RSS.
#
#   bench/kineto.sh [BUILD_DIR]      (default: build; the build needs -DFLAMEFOLD_BENCH=ON for
#                                     the bare simdjson pass)
# Inputs go to /tmp/ffbench (generated when missing: about 40 s each).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
ff=$build/flamefold
bare=$build/bench/kineto_simdjson_pass
gen=$here/../shared/gen/gen_kineto.py
dir=/tmp/ffbench
json=$dir/kineto_1g.json
gz=$dir/kineto_1g.json.gz
mkdir -p $dir
[ -f $json ] || python3 $gen -o $json --target-mb 1000 --layers 24
[ -f $gz ] || python3 $gen -o $gz --target-mb 1000 --layers 24 --gzip
mb=$(python3 -c "import os; print(os.path.getsize('$json') / 1e6)")

# run NAME CMD...: three runs, prints "NAME | median wall s | MB/s | peak RSS MB" (MB/s of the
# uncompressed JSON).
run() {
  name=$1
  shift
  for i in 1 2 3; do
    /usr/bin/time -f '%e %M' -o $dir/kineto_time.$i "$@" >/dev/null 2>$dir/kineto_err.$i || {
      cat $dir/kineto_err.$i >&2
      exit 1
    }
  done
  cat $dir/kineto_time.1 $dir/kineto_time.2 $dir/kineto_time.3 | sort -n | sed -n 2p | {
    read wall rss
    python3 -c "print('| $name | %.2f s | %.0f MB/s | %.0f MB |' % ($wall, $mb / $wall, $rss / 1024))"
  }
}

echo "input: $json ($mb MB), $gz; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| command | median wall | speed | peak RSS |"
echo "|---|---|---|---|"
run "flamegraph trace.json -o x.html" $ff flamegraph $json -o $dir/kineto_1g.html
run "collapse trace.json (cpu)" $ff collapse $json -o $dir/kineto_1g_cpu.folded
run "collapse trace.json --weight gpu" $ff collapse $json --weight gpu -o $dir/kineto_1g_gpu.folded
run "info trace.json" $ff info $json
run "collapse trace.json.gz --weight gpu" $ff collapse $gz --weight gpu -o $dir/kineto_1g_gz_gpu.folded
run "flamegraph trace.json.gz -o x.html" $ff flamegraph $gz -o $dir/kineto_1g_gz.html
if [ -x $bare ]; then
  run "bare simdjson On-Demand pass (load + parse)" $bare $json
  $bare $json | tail -1
fi
