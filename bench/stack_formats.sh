#!/usr/bin/env bash
# Stack formats other tools collapse (issue 12): `flamefold collapse` side by side with the peer
# collapsers on big generated inputs (bench/stack_formats_gen.py), interleaved round by round;
# prints medians of N rounds and checks that the folded stacks are the same.
#   bench/stack_formats.sh [build-dir] [rounds=5]
# Inputs and outputs go to /tmp/ffbench (never into the repository).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
rounds=${2:-5}
peers=$here/../shared/peers
dir=/tmp/ffbench
mkdir -p "$dir"
for kind in dtrace stap austin; do
  [[ -s $dir/$kind.txt ]] || /usr/bin/python3 "$here/bench/stack_formats_gen.py" "$kind" "$dir/$kind.txt"
  echo "$kind input: $(stat -c %s "$dir/$kind.txt") bytes"
done

cmds=("flamefold dtrace=$build/flamefold collapse $dir/dtrace.txt -o $dir/dtrace.ff"
      "flamefold stap=$build/flamefold collapse $dir/stap.txt -o $dir/stap.ff"
      "flamefold austin=$build/flamefold collapse $dir/austin.txt -o $dir/austin.ff")
if [[ -d $peers ]]; then
  cmds+=("inferno dtrace=$peers/inferno/inferno-collapse-dtrace $dir/dtrace.txt > $dir/dtrace.inferno"
         "perl dtrace=perl $peers/FlameGraph/stackcollapse.pl $dir/dtrace.txt > $dir/dtrace.pl"
         "perl stap=perl $peers/FlameGraph/stackcollapse-stap.pl $dir/stap.txt > $dir/stap.pl")
fi

/usr/bin/python3 - "$rounds" "${cmds[@]}" <<'EOF'
import statistics, subprocess, sys
rounds = int(sys.argv[1])
cmds = [a.split('=', 1) for a in sys.argv[2:]]
runs = {label: [] for label, _ in cmds}
for _ in range(rounds):
    for label, cmd in cmds:
        r = subprocess.run(['/usr/bin/time', '-f', '%e %U %S %M', 'bash', '-c', cmd + ' 2>/dev/null'],
                           capture_output=True, text=True)
        runs[label].append(tuple(map(float, r.stderr.strip().splitlines()[-1].split())))
print(f"{'':16} {'median s':>9} {'min':>6} {'max':>6} {'user':>6} {'sys':>6} {'RSS MB':>7}  walls")
for label, v in runs.items():
    print(f"{label:16} {statistics.median(x[0] for x in v):9.3f} {min(x[0] for x in v):6.2f} {max(x[0] for x in v):6.2f} "
          f"{statistics.median(x[1] for x in v):6.2f} {statistics.median(x[2] for x in v):6.2f} "
          f"{max(x[3] for x in v) / 1024:7.0f}  {' '.join(f'{x[0]:.2f}' for x in v)}")
EOF
if [[ -d $peers ]]; then
  for out in dtrace.inferno dtrace.pl; do cmp -s "$dir/dtrace.ff" "$dir/$out" && echo "dtrace: same as $out" || echo "dtrace: DIFFERENT from $out"; done
  cmp -s "$dir/stap.ff" "$dir/stap.pl" && echo "stap: same as stap.pl" || echo "stap: DIFFERENT from stap.pl"
fi
uptime
