#!/usr/bin/env bash
# The Python package (issue 14) beside the CLI, medians of ROUNDS runs taken in turn:
#  1. flamefold.load of the 1 GB Kineto trace vs `flamefold info` of it (the CLI of a plain
#     build, and the CLI of the Python-enabled build, whose library is position-independent);
#     load + write(.pb.gz) vs `flamefold convert -o x.pb.gz`; peak RSS after load, after
#     top(20) and after write.
#  2. flamefold.dask.load_many over 64 generated rank traces on a LocalCluster of 2 worker
#     processes vs `flamefold merge` of the same files (2 cores); each worker's peak RSS
#     beside one process that loads one file; the two merged profiles compared byte for byte.
#   bench/python.sh [PY_BUILD_DIR=build] [CLI_BUILD_DIR=build-bench] [ROUNDS=3]
# PY_BUILD_DIR is configured with -DFLAMEFOLD_PYTHON=ON; CLI_BUILD_DIR is a plain Release build
# (`cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release && cmake --build build-bench --target flamefold`).
# Inputs (generated when missing): /tmp/ffbench/kineto_1g_a.json, /tmp/ffbench/py_ranks/rank{0..63}.json.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pybuild=$(cd "${1:-$here/build}" && pwd)
clibuild=$(cd "${2:-$here/build-bench}" && pwd)
rounds=${3:-3}
py=/usr/bin/python3  # Debian's: the one the extension is built for
export PYTHONPATH=$pybuild/python
bench_py=$here/bench/python_bench.py
gen=$here/../shared/gen/gen_kineto.py
mkdir -p /tmp/ffbench/py_ranks
big=/tmp/ffbench/kineto_1g_a.json
[[ -s $big ]] || $py "$gen" -o "$big" --target-mb 1000 --layers 24 --seed 1 >/dev/null
ranks=()
for ((r = 0; r < 64; r++)); do
  f=/tmp/ffbench/py_ranks/rank$r.json
  [[ -s $f ]] || $py "$gen" -o "$f" --layers 24 --steps 4 --seed $((2000 + r)) --rank $r --world 64 >/dev/null
  ranks+=("$f")
done
work=$(mktemp -d /tmp/ffbench/python.XXXXXX)
trap 'rm -rf "$work"' EXIT
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
field() { sed -n "s/.*$1 \([^ ]*\).*/\1/p"; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "1 GB trace: $(stat -c %s "$big") bytes; ranks: 64 files, $(du -cb "${ranks[@]}" | tail -1 | cut -f1) bytes"
echo

# 1. One big trace.
for ((i = 0; i < rounds; i++)); do
  /usr/bin/time -f '%e %M' -a -o "$work/cli" "$clibuild/flamefold" info "$big" >/dev/null 2>&1
  /usr/bin/time -f '%e %M' -a -o "$work/clipic" "$pybuild/flamefold" info "$big" >/dev/null 2>&1
  /usr/bin/time -f '%e %M' -a -o "$work/convert" "$clibuild/flamefold" convert "$big" -o "$work/cli.pb.gz" >/dev/null 2>&1
  /usr/bin/time -f '%e %M' -a -o "$work/pyproc" $py "$bench_py" load "$big" "$work/py.pb.gz" >>"$work/pyload"
done
cmp -s "$work/cli.pb.gz" "$work/py.pb.gz" || { echo "Profile.write(.pb.gz) differs from flamefold convert" >&2; exit 1; }
cli=$(cut -d' ' -f1 "$work/cli" | median)
clipic=$(cut -d' ' -f1 "$work/clipic" | median)
pyproc=$(cut -d' ' -f1 "$work/pyproc" | median)
pyload=$(field load_s <"$work/pyload" | median)
echo "| 1 GB Kineto trace | median wall s | ratio | peak RSS MB |"
echo "|---|---|---|---|"
printf '| flamefold info (plain build; the ratios below are to it) | %s | 1.00 | %.0f |\n' "$cli" "$(cut -d' ' -f2 "$work/cli" | median | awk '{print $1/1024}')"
printf '| flamefold info (Python-enabled build, PIC) | %s | %.2f | %.0f |\n' "$clipic" "$(echo "$clipic $cli" | awk '{print $1/$2}')" \
  "$(cut -d' ' -f2 "$work/clipic" | median | awk '{print $1/1024}')"
printf '| flamefold.load (the call) | %s | %.2f | %s |\n' "$pyload" "$(echo "$pyload $cli" | awk '{print $1/$2}')" \
  "$(field rss_load_mb <"$work/pyload" | median)"
pywrite=$(field write_s <"$work/pyload" | median)
convert=$(cut -d' ' -f1 "$work/convert" | median)
printf '| flamefold convert -o x.pb.gz (plain build) | %s | %.2f | %.0f |\n' "$convert" "$(echo "$convert $cli" | awk '{print $1/$2}')" \
  "$(cut -d' ' -f2 "$work/convert" | median | awk '{print $1/1024}')"
printf '| flamefold.load + Profile.write(x.pb.gz) (the calls; ratio to convert) | %.3f | %.2f | %s |\n' "$(echo "$pyload $pywrite" | awk '{print $1+$2}')" \
  "$(echo "$pyload $pywrite $convert" | awk '{print ($1+$2)/$3}')" "$(field rss_write_mb <"$work/pyload" | median)"
printf '| python3 process: import + load + top + write + exit | %s | %.2f | %.0f |\n' "$pyproc" "$(echo "$pyproc $cli" | awk '{print $1/$2}')" \
  "$(cut -d' ' -f2 "$work/pyproc" | median | awk '{print $1/1024}')"
echo
echo "in the python3 process, medians: import $(field import_s <"$work/pyload" | median) s, load $pyload s, top(20) $(field top_s <"$work/pyload" | median) s, write(.pb.gz) $(field write_s <"$work/pyload" | median) s, freeing the profile $(field free_s <"$work/pyload" | median) s"
echo "peak RSS MB after load / top(20) / write(.pb.gz), medians: $(field rss_load_mb <"$work/pyload" | median) / $(field rss_top_mb <"$work/pyload" | median) / $(field rss_write_mb <"$work/pyload" | median)"
echo

# 2. 64 ranks.
for ((i = 0; i < rounds; i++)); do
  rm -f "$work/cli.pb.gz"
  /usr/bin/time -f '%e %M' -a -o "$work/merge" "$clibuild/flamefold" merge "${ranks[@]}" -o "$work/cli.pb.gz" 2>/dev/null
  $py "$bench_py" dask "$work/dask1.pb.gz" 1 "${ranks[@]}" 2>/dev/null >>"$work/dask1"
  $py "$bench_py" dask "$work/dask0.pb.gz" 0 "${ranks[@]}" 2>/dev/null >>"$work/dask0"
done
$py "$bench_py" one "${ranks[0]}" >"$work/one"
merge=$(cut -d' ' -f1 "$work/merge" | median)
echo "| 64 rank traces | median wall s | vs CLI merge | peak RSS MB |"
echo "|---|---|---|---|"
printf '| flamefold merge (CLI, 2 cores) | %s | 1.00 | %.0f |\n' "$merge" "$(cut -d' ' -f2 "$work/merge" | median | awk '{print $1/1024}')"
for t in 1 0; do
  s=$(field load_many_s <"$work/dask$t" | median)
  label=$([[ $t == 1 ]] && echo "threads_to_use=1" || echo "threads_to_use: all cores")
  printf '| load_many, 2 workers, %s | %s | %.2f | per worker %s (before: %s) |\n' "$label" "$s" "$(echo "$s $merge" | awk '{print $1/$2}')" \
    "$(field worker_peak_rss_mb <"$work/dask$t" | tail -1)" "$(field worker_rss_before_mb <"$work/dask$t" | tail -1)"
done
echo
echo "cluster start (not in the times above): $(field cluster_start_s <"$work/dask1" | median) s; one process loading one rank file: $(cat "$work/one")"
for t in 1 0; do
  if cmp -s "$work/cli.pb.gz" "$work/dask$t.pb.gz"; then
    echo "load_many (threads $t) = flamefold merge: identical .pb.gz bytes"
  else
    echo "load_many (threads $t) differs from flamefold merge" >&2
    exit 1
  fi
done
