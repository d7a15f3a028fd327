#!/usr/bin/env bash
# Runs every benchmark (`make bench`). Inputs are generated into /tmp/ffbench from
# ../shared/gen when missing (several GB, several minutes). Results print as markdown rows;
# the recorded figures live in bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-bench}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DFLAMEFOLD_BENCH=ON >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
mkdir -p /tmp/ffbench
bench/collapse.sh "$BUILD/flamefold"
bench/svg_bench.sh "$BUILD"
bench/folded_unsorted.sh "$BUILD"
BUILD="$BUILD" bench/html_bench.sh
bench/kineto.sh "$BUILD"
bench/db.sh "$BUILD"
bench/pstats.sh "$BUILD"
bench/merge_gpu.sh "$BUILD"
bench/pprof.sh "$BUILD"
bench/pprof_merge.sh "$BUILD"
