#!/usr/bin/env bash
# perf script -> folded (`flamefold collapse`) on a 1 GB generated perf script.
#
#   bench/collapse.sh [BINARY] [INPUT]
#
# BINARY defaults to build/flamefold. INPUT defaults to /tmp/ffbench/perf_1g.txt, generated when
# missing with ../shared/gen/gen_perf_script.py --target-mb 1000. Runs 1 thread and 2 threads
# (-j), three times each, and prints the median wall time, MB/s, CPU seconds (user+sys) and peak
# RSS as markdown table rows. Also checks that both thread counts give identical output.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build/flamefold}
INPUT=${2:-/tmp/ffbench/perf_1g.txt}
RUNS=${RUNS:-3}
mkdir -p "$(dirname "$INPUT")"
if [[ ! -f "$INPUT" ]]; then
  python3 ../shared/gen/gen_perf_script.py -o "$INPUT" --target-mb 1000 >&2
fi
bytes=$(stat -c %s "$INPUT")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat "$INPUT" > /dev/null  # warm the page cache: measure collapsing, not the disk

echo "| threads | median wall s | MB/s (wall) | CPU s (user+sys) | MB/s per CPU s | peak RSS MB |"
echo "|---|---|---|---|---|---|"
for j in 1 2; do
  walls=(); cpus=(); rss=()
  for ((i = 0; i < RUNS; i++)); do
    /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$BIN" collapse -j "$j" "$INPUT" > "$tmp/out-$j.folded"
    read -r e u s m < "$tmp/time"
    walls+=("$e"); cpus+=("$(echo "$u + $s" | bc)"); rss+=("$m")
  done
  med() { printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }
  w=$(med "${walls[@]}"); c=$(med "${cpus[@]}"); r=$(med "${rss[@]}")
  printf '| %d | %.2f | %.0f | %.2f | %.0f | %.1f |\n' "$j" "$w" "$(echo "$bytes / 1000000 / $w" | bc -l)" "$c" \
    "$(echo "$bytes / 1000000 / $c" | bc -l)" "$(echo "$r / 1024" | bc -l)"
done
if cmp -s "$tmp/out-1.folded" "$tmp/out-2.folded"; then
  echo "(1-thread and 2-thread outputs are identical: $(wc -l < "$tmp/out-1.folded") folded lines)"
else
  echo "ERROR: 1-thread and 2-thread outputs differ" >&2
  exit 1
fi
