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

/usr/bin/python3 "$here/bench/interleave.py" "$rounds" "${cmds[@]}"
if [[ -d $peers ]]; then
  for out in dtrace.inferno dtrace.pl; do cmp -s "$dir/dtrace.ff" "$dir/$out" && echo "dtrace: same as $out" || echo "dtrace: DIFFERENT from $out"; done
  cmp -s "$dir/stap.ff" "$dir/stap.pl" && echo "stap: same as stap.pl" || echo "stap: DIFFERENT from stap.pl"
fi
uptime
