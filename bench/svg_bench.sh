#!/usr/bin/env bash
# folded -> SVG benchmark: median of 3 runs of `flamefold flamegraph X.folded -o X.svg`, with
# `flamefold info X.folded` (read only, same reader) beside it to show the writer's own share.
# Usage: bench/svg_bench.sh [build-dir] [folded-file]
# The default input is made by bench/svg_gen_folded.py (100,000 unique stacks, ~79 MB), sorted
# the way stackcollapse-perf.pl writes folded files.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
input=${2:-/tmp/ffbench/svg100k.sorted.folded}
mkdir -p /tmp/ffbench
if [[ ! -f $input ]]; then
  python3 "$here/bench/svg_gen_folded.py" --stacks 100000 -o /tmp/ffbench/svg100k.folded
  LC_ALL=C sort /tmp/ffbench/svg100k.folded > "$input"
fi
bytes=$(stat -c %s "$input")
median() { sort -n | sed -n 2p; }
run3() {  # label, command...
  local label=$1; shift
  local walls=() users=() rss=()
  for i in 1 2 3; do
    local t
    /usr/bin/time -o /tmp/ffbench/svg-bench.time -f '%e %U %S %M' "$@" >/dev/null 2>&1
    t=$(tail -1 /tmp/ffbench/svg-bench.time)
    read -r w u s m <<<"$t"
    walls+=("$w"); users+=("$(python3 -c "print(f'{$u + $s:.2f}')")"); rss+=("$m")
  done
  local mw mu mm
  mw=$(printf '%s\n' "${walls[@]}" | median)
  mu=$(printf '%s\n' "${users[@]}" | median)
  mm=$(printf '%s\n' "${rss[@]}" | sort -n | tail -1)
  local mbps cpu_mbps
  mbps=$(python3 -c "print(f'{$bytes / 1e6 / $mw:.0f}')")
  cpu_mbps=$(python3 -c "print(f'{$bytes / 1e6 / $mu:.0f}')")
  printf '%-10s wall %5ss (runs: %s) = %s MB/s;  cpu (user+sys) %5ss = %s MB/s;  peak RSS %s KB\n' \
    "$label" "$mw" "${walls[*]}" "$mbps" "$mu" "$cpu_mbps" "$mm"
  uptime | sed 's/.*load/  load/'
}
echo "input: $input ($((bytes / 1000000)) MB, $(wc -l <"$input") lines)"
run3 read-only "$build/flamefold" info "$input"
run3 svg "$build/flamefold" flamegraph "$input" -o /tmp/ffbench/svg-bench.svg
ls -l /tmp/ffbench/svg-bench.svg | awk '{print "svg bytes:", $5}'
echo "frames drawn: $(grep -c '<g><title>' /tmp/ffbench/svg-bench.svg)"
