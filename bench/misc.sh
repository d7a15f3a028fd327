#!/usr/bin/env bash
# Figures for bench/RESULTS.md ("Loose ends"): median of 3 runs (wall s, user+sys s, peak RSS KB) of
#   1. SVG with and without --reverse on the 100,000-stack folded file (bench/svg_gen_folded.py);
#   2. collapse of a ~200 MB perf script recorded without -g (one line per sample, generated here);
#   3. the Kineto 1 GB trace to HTML (../shared/gen/gen_kineto.py --target-mb 1000 --layers 24).
# Usage: bench/misc.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
ff=$build/flamefold
mkdir -p /tmp/ffbench
svg_input=/tmp/ffbench/svg100k.sorted.folded
if [[ ! -f $svg_input ]]; then
  python3 "$here/bench/svg_gen_folded.py" --stacks 100000 -o /tmp/ffbench/svg100k.folded
  LC_ALL=C sort /tmp/ffbench/svg100k.folded > "$svg_input"
fi
nog=/tmp/ffbench/nog_200m.txt
if [[ ! -f $nog ]]; then  # the shape perf 6.1 prints for `perf record` without -g
  python3 - "$nog" <<'PY'
import random, sys
random.seed(1)
comms = ['            bash', '         python3', ' V8 WorkerThread']
frames = ['ffffffff815a2001 next_uptodate_folio+0xc1 ([kernel.kallsyms])',
          '    7fac3b61a44c _int_malloc+0xec (/usr/lib/libc.so.6)',
          '    7f12a3b4c5d6 [unknown] (/usr/bin/python3.11)']
with open(sys.argv[1], 'w') as f:
    n, lines = 0, []
    while n < 200 << 20:
        l = '%s %d %d.%06d:    1001 cpu-clock:  %s\n' % (random.choice(comms), 100 + random.randrange(4),
                                                        n // 1000, n % 1000000, random.choice(frames))
        lines.append(l)
        n += len(l)
        if len(lines) > 100000:
            f.write(''.join(lines))
            lines = []
    f.write(''.join(lines))
PY
fi
kineto=/tmp/ffbench/kineto_1g.json
if [[ ! -f $kineto ]]; then
  python3 "$here/../shared/gen/gen_kineto.py" --target-mb 1000 --layers 24 -o "$kineto"
fi
run3() {  # label, command...
  local label=$1; shift
  local rows=()
  for i in 1 2 3; do
    /usr/bin/time -o /tmp/ffbench/misc-bench.time -f '%e %U %S %M' "$@" >/dev/null 2>&1
    rows+=("$(tail -1 /tmp/ffbench/misc-bench.time)")
  done
  printf '%s\n' "${rows[@]}" | python3 -c "
import sys, statistics
r = [l.split() for l in sys.stdin if l.strip()]
w = statistics.median(float(x[0]) for x in r); c = statistics.median(float(x[1]) + float(x[2]) for x in r)
m = statistics.median(int(x[3]) for x in r)
print(f'$label: {w:.2f} s wall, {c:.2f} s cpu, {m} KB peak RSS (median of 3)')"
}
run3 "svg, no --reverse" "$ff" flamegraph "$svg_input" -o /tmp/ffbench/misc-norev.svg
run3 "svg, --reverse" "$ff" flamegraph "$svg_input" -o /tmp/ffbench/misc-rev.svg --reverse
run3 "collapse perf without -g, 1 thread" "$ff" collapse "$nog" -o /tmp/ffbench/misc-nog.folded -j 1
run3 "collapse perf without -g, all cores" "$ff" collapse "$nog" -o /tmp/ffbench/misc-nog.folded
run3 "kineto 1 GB -> html" "$ff" flamegraph "$kineto" -o /tmp/ffbench/misc-k.html
