#!/usr/bin/env bash
# Unsorted folded stacks (issue 10, part 3): a 222 MB file of 1,000,000 distinct frames in
# ~154,000 lines, as samplers write them (bench/folded_1m_gen.py). Times flamefold's
# flamegraph -> SVG and -> HTML, info and collapse side by side with inferno-flamegraph -> SVG
# and, when given, a previous flamefold binary, interleaved round by round; prints medians of
# N rounds and the ratios, and checks that the outputs of both flamefold binaries are the same.
# The same for a ~200 MB file of 20,000 stacks repeated at random (folded_1m_gen.py --repeated:
# a long sampling run), whose later lines mostly reuse nodes.
#   bench/folded_unsorted.sh [build-dir] [previous-flamefold] [rounds=5]
# AFTER_INFERNO=1 runs inferno before every flamefold command too, so that each one starts as a
# user's run after another program does: on this VM, memory freed a few seconds before is taken
# back by the host, and a run right after another flamefold run is ~0.3 s faster than that
# (bench/RESULTS.md, fifth session of 2026-11-28). Without it only the first command of a round
# follows inferno.
# Inputs and outputs go to /tmp/ffbench (never into the repository).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
before=${2:-}
rounds=${3:-5}
inferno=${INFERNO:-$here/../shared/peers/inferno/inferno-flamegraph}
dir=/tmp/ffbench
input=$dir/folded_1m.txt
mkdir -p "$dir"
repeated=$dir/folded_rep.txt
[[ -s $input ]] || /usr/bin/python3 "$here/bench/folded_1m_gen.py" "$input"
[[ -s $repeated ]] || /usr/bin/python3 "$here/bench/folded_1m_gen.py" --repeated "$repeated"
echo "input: $input ($(stat -c %s "$input") bytes, $(wc -l <"$input") lines)"
echo "repeated: $repeated ($(stat -c %s "$repeated") bytes, $(wc -l <"$repeated") lines)"

cmds=()
[[ -x $inferno ]] && cmds+=("inferno svg=$inferno $input > $dir/u-inferno.svg")
add() {  # label binary
  local c
  for c in "$1 svg=$2 flamegraph $input -o $dir/u-$1.svg" \
           "$1 html=$2 flamegraph $input -o $dir/u-$1.html" \
           "$1 info=$2 info $input > $dir/u-$1.info" \
           "$1 collapse=$2 collapse $input -o $dir/u-$1.folded" \
           "$1 rep html=$2 flamegraph $repeated -o $dir/u-$1.rep.html" \
           "$1 rep info=$2 info $repeated > $dir/u-$1.rep.info"; do
    [[ ${AFTER_INFERNO:-0} == 1 && -x $inferno ]] && cmds+=("(inferno before ${c%%=*})=$inferno $input > $dir/u-inferno.svg")
    cmds+=("$c")
  done
}
[[ -n $before ]] && add before "$before"
add new "$build/flamefold"

ratios=()
for kind in svg html info collapse "rep html" "rep info"; do
  [[ $kind != rep* ]] && ratios+=(--ratio "inferno svg/new $kind")
  [[ -n $before ]] && ratios+=(--ratio "before $kind/new $kind")
done
/usr/bin/python3 "$here/bench/interleave.py" "$rounds" "${ratios[@]}" "${cmds[@]}"
if [[ -n $before ]]; then
  for kind in svg html info folded rep.html rep.info; do
    cmp -s "$dir/u-before.$kind" "$dir/u-new.$kind" && echo "$kind: same bytes" || echo "$kind: DIFFERENT"
  done
fi
uptime | sed 's/.*load/load/'
