#!/usr/bin/env bash
# `flamefold merge` of per-rank pprof files of a realistic model (issue 12, item 10): 256 ranks,
# each a Kineto trace of a 24-layer GPT-style training step from ../shared/gen/gen_kineto.py
# (2 steps, seed 1000 + rank) converted to .pb.gz. Merges 32, 64, 128 and 256 of them with
# --label-by file (a level per rank: the merged tree grows with the inputs) and --label-by none
# (all ranks added up: the merged tree stays about one rank's size), median wall time and peak
# RSS of ROUNDS runs, and the merged profile's call paths; then checks that a tree of merges
# (16 groups of 16, then the 16 results) gives the same bytes as one merge of all 256.
#   bench/pprof_merge.sh [BUILD_DIR] [ROUNDS=3]
# Inputs go to /tmp/ffbench/pprof_ranks (generated when missing: a few minutes).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build-bench}
rounds=${2:-3}
ff=$build/flamefold
dir=/tmp/ffbench/pprof_ranks
mkdir -p "$dir"

for ((r = 0; r < 256; r++)); do
  f=$dir/rank$r.pb.gz
  [[ -s $f ]] && continue
  python3 "$here/../shared/gen/gen_kineto.py" -o "$dir/tmp.json" --layers 24 --steps 2 --seed $((1000 + r)) \
    --rank $r --world 256 >/dev/null 2>&1
  "$ff" convert "$dir/tmp.json" -o "$f" 2>/dev/null
done
rm -f "$dir/tmp.json"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "inputs: 256 files, $(du -cb "$dir"/rank*.pb.gz | tail -1 | cut -f1) bytes in all; rank0: $("$ff" info "$dir/rank0.pb.gz" | grep '^call paths')"
echo
echo "| inputs | --label-by | merged call paths | median wall s | peak RSS MB | s per input |"
echo "|---|---|---|---|---|---|"
for label in file none; do
  for n in 32 64 128 256; do
    files=()
    for ((r = 0; r < n; r++)); do files+=("$dir/rank$r.pb.gz"); done
    rm -f "$dir/times"
    for ((i = 0; i < rounds; i++)); do
      /usr/bin/time -f '%e %M' -a -o "$dir/times" "$ff" merge "${files[@]}" --label-by $label -o "$dir/merged_$label$n.pb.gz" 2>/dev/null
    done
    paths=$("$ff" info "$dir/merged_$label$n.pb.gz" | sed -n 's/^call paths: //p')
    sort -n "$dir/times" | awk -v n=$n -v l=$label -v p="$paths" \
      '{w[NR]=$1; r[NR]=$2} END {m=int((NR+1)/2); printf "| %d | %s | %s | %.2f | %.0f | %.4f |\n", n, l, p, w[m], r[m]/1024, w[m]/n}'
  done
done

# Associativity at scale: 16 merges of 16 ranks, then a merge of those, equals one merge of all.
parts=()
for ((g = 0; g < 16; g++)); do
  files=()
  for ((r = g * 16; r < g * 16 + 16; r++)); do files+=("$dir/rank$r.pb.gz"); done
  "$ff" merge "${files[@]}" -o "$dir/group$g.pb.gz" 2>/dev/null
  parts+=("$dir/group$g.pb.gz")
done
"$ff" merge "${parts[@]}" -o "$dir/tree.pb.gz" 2>/dev/null
if cmp -s "$dir/tree.pb.gz" "$dir/merged_file256.pb.gz"; then
  echo "tree of merges (16 x 16, then 16) = one merge of 256: identical bytes"
else
  echo "tree of merges differs from one merge of 256" >&2
  exit 1
fi
