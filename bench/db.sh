#!/bin/sh
# Benchmarks for the nsys / Ascend database readers and the Chrome trace writer
# (results: bench/RESULTS.md). Usage: bench/db.sh [BUILD_DIR]   (default build/)
# Inputs are generated into /tmp/ffbench when missing (~3.5 GB in total, a few minutes).
set -eu
BUILD=${1:-build}
FF="$BUILD/flamefold"
SHARED=${SHARED:-$(dirname "$0")/../../shared}
D=/tmp/ffbench
mkdir -p "$D"
gen() { [ -f "$2" ] || python3 "$SHARED/gen/$1" -o "$2" $3; }
gen gen_nsys_sqlite.py "$D/nsys_1g.sqlite" "--kernels 4600000"
gen gen_nsys_sqlite.py "$D/nsys_450k.sqlite" "--kernels 450000"
gen gen_ascend_db.py "$D/ascend_pytorch_profiler_big_0.db" "--calls 10000000"
gen gen_ascend_db.py "$D/ascend_pytorch_profiler_1m_0.db" "--calls 1000000"

t() {  # label, command...: three runs, wall/user/sys seconds and peak RSS of each
  label=$1; shift
  for i in 1 2 3; do /usr/bin/time -f "$label run$i: %e s wall, %U s user, %S s sys, %M KB peak" "$@" >/dev/null 2>"$D/db_bench.err" || { cat "$D/db_bench.err"; exit 1; }; tail -1 "$D/db_bench.err"; done
}
t1() { label=$1; shift; /usr/bin/time -f "$label: %e s wall, %U s user, %S s sys, %M KB peak" "$@" >/dev/null 2>"$D/db_bench.err"; tail -1 "$D/db_bench.err"; }

echo "== nsys -> Chrome JSON (default activities kernel,nvtx-kernel)"
t "flamefold convert nsys_450k" "$FF" convert "$D/nsys_450k.sqlite" -o "$D/db_o450.json"
t1 "seed003 nsys_450k" python3 "$SHARED/baselines/seed003_nsys2json.py" -f "$D/nsys_450k.sqlite" -o "$D/db_seed450.json"
t "flamefold convert nsys_1g" "$FF" convert "$D/nsys_1g.sqlite" -o "$D/db_o1g.json"
t "flamefold convert nsys_1g --activities all" "$FF" convert "$D/nsys_1g.sqlite" -o "$D/db_o1g_all.json" --activities all
echo "== nsys -> flame graph"
t "flamefold flamegraph nsys_1g html" "$FF" flamegraph "$D/nsys_1g.sqlite" -o "$D/db_nsys_1g.html"
t "flamefold collapse nsys_1g --weight gpu" "$FF" collapse "$D/nsys_1g.sqlite" --weight gpu -o "$D/db_nsys_1g.folded"
echo "== Ascend -> flame graph"
t "flamefold flamegraph ascend_1m html" "$FF" flamegraph "$D/ascend_pytorch_profiler_1m_0.db" -o "$D/db_ascend_1m.html"
mkdir -p "$D/db_seed000"
t1 "seed000 ascend_1m" python3 "$SHARED/baselines/seed000_flamegraph.py" "$D/ascend_pytorch_profiler_1m_0.db" -o "$D/db_seed000"
t "flamefold flamegraph ascend_10m html" "$FF" flamegraph "$D/ascend_pytorch_profiler_big_0.db" -o "$D/db_ascend_10m.html"
t "flamefold collapse ascend_10m --weight npu" "$FF" collapse "$D/ascend_pytorch_profiler_big_0.db" --weight npu -o "$D/db_ascend_10m_npu.folded"
echo "== rows in the inputs"
for f in nsys_450k.sqlite nsys_1g.sqlite; do
  echo "$f: $(sqlite3 "$D/$f" "select (select count(*) from CUPTI_ACTIVITY_KIND_KERNEL)+(select count(*) from CUPTI_ACTIVITY_KIND_RUNTIME)+(select count(*) from CUPTI_ACTIVITY_KIND_MEMCPY)+(select count(*) from CUPTI_ACTIVITY_KIND_MEMSET)+(select count(*) from NVTX_EVENTS)+(select count(*) from StringIds)") rows read"
done
for f in ascend_pytorch_profiler_1m_0.db ascend_pytorch_profiler_big_0.db; do
  echo "$f: $(sqlite3 "$D/$f" "select (select count(*) from PYTORCH_API)+(select count(*) from TASK)+(select count(*) from CONNECTION_IDS)+(select count(*) from COMPUTE_TASK_INFO)+(select count(*) from STRING_IDS)") rows read (default view)"
done
