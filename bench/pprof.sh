#!/usr/bin/env bash
# pprof benchmarks (issue 12, item 10): writing and reading pprof of a ~1,000,000-node profile
# (bench/html_gen_folded.py), of 1,000,000 distinct frames (bench/folded_1m_gen.py) and of the
# 1 GB Kineto trace's profile (../shared/gen/gen_kineto.py), side by side with `go tool pprof`
# (Debian's golang-go) on the same files: -proto (read and rewrite) and -raw (read and print).
# Rounds alternate the tools; each figure is the median of the rounds, with peak RSS. Then the
# phases alone (bench/pprof_stage: encode, gzip, read, libprotobuf's parse of the same bytes),
# and go tool pprof -raw's totals per sample type against flamefold's.
#   bench/pprof.sh [BUILD_DIR] [ROUNDS=3] [which=all|1m|distinct|kineto]
# BUILD_DIR needs -DFLAMEFOLD_BENCH=ON (make bench's build-bench has it). Inputs go to /tmp/ffbench.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build-bench}
rounds=${2:-3}
which=${3:-all}
ff=$build/flamefold
stage=$build/bench/pprof_stage
go=${GO:-go}
export GOCACHE=${GOCACHE:-/tmp/ffbench/gocache}
dir=/tmp/ffbench
mkdir -p "$dir"

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $($go version)"

# time_of OUT_PREFIX CMD...: one run; appends "wall_s rss_kb" to OUT_PREFIX.times
time_of() {
  local out=$1
  shift
  /usr/bin/time -f '%e %M' -a -o "$out.times" "$@" >/dev/null 2>"$out.err" || {
    cat "$out.err" >&2
    exit 1
  }
}
median() {  # FILE -> "wall rss"
  sort -n "$1" | awk '{w[NR]=$1; r[NR]=$2} END {m=int((NR+1)/2); printf "%.2f %.0f", w[m], r[m]/1024}'
}

bench_file() {
  local name=$1 in=$2
  local pb=$dir/pprof_$name.pb gz=$dir/pprof_$name.pb.gz
  echo
  echo "## $name: $in"
  [[ -s $gz ]] || "$ff" convert "$in" -o "$gz"
  [[ -s $pb ]] || "$ff" convert "$in" -o "$pb"
  echo "files: $(stat -c %s "$pb") bytes plain, $(stat -c %s "$gz") gzipped; $("$ff" info "$gz" | grep -E '^call paths' )"
  local t=$dir/pprof_times_$name
  rm -f "$t".*.times
  for ((i = 0; i < rounds; i++)); do
    time_of "$t.ff_read" "$ff" info "$gz"
    time_of "$t.ff_rw" "$ff" convert "$gz" -o "$dir/pprof_out.pb.gz"
    time_of "$t.ff_write" "$ff" convert "$in" -o "$dir/pprof_out2.pb.gz"
    time_of "$t.go_proto" "$go" tool pprof -proto -output "$dir/pprof_go_out.pb.gz" "$gz"
    time_of "$t.go_raw" "$go" tool pprof -raw "$gz"
  done
  echo "| command (median of $rounds) | wall s | peak RSS MB |"
  echo "|---|---|---|"
  for k in "ff_read:flamefold info X.pb.gz (read)" "ff_rw:flamefold convert X.pb.gz -o Y.pb.gz (read + write)" \
           "ff_write:flamefold convert SOURCE -o Y.pb.gz (source read + write)" \
           "go_proto:go tool pprof -proto X.pb.gz (read + rewrite)" "go_raw:go tool pprof -raw X.pb.gz (read + print)"; do
    read -r wall rss <<<"$(median "$t.${k%%:*}.times")"
    echo "| ${k#*:} | $wall | $rss |"
  done
  read -r ffrw _ <<<"$(median "$t.ff_rw.times")"
  read -r goproto _ <<<"$(median "$t.go_proto.times")"
  python3 -c "print('go tool pprof -proto / flamefold read+write: %.1fx' % ($goproto / $ffrw))"
  if [[ -x $stage ]]; then
    echo "phases (pprof_stage, median of $rounds):"
    "$stage" "$pb" "$dir/pprof_stage_$name" "$rounds" | sed 's/^/    /'
  fi
  # The reference reader's totals per sample type against flamefold's.
  "$go" tool pprof -raw "$gz" 2>/dev/null | awk '
    /^Samples:/ {s = 1; next} /^Locations/ {s = 0}
    s && !types {n = split($0, t, " "); types = 1; next}
    s && types && /^ *-?[0-9]/ {split($0, parts, ":"); k = split(parts[1], v, " "); if (k == n) for (i = 1; i <= n; i++) tot[i] += v[i]}
    END {for (i = 1; i <= n; i++) printf "go tool pprof -raw total %s = %.0f\n", t[i], tot[i]}'
  "$ff" info "$gz" | grep '^weight' | sed 's/^/flamefold /'
}

if [[ $which == all || $which == 1m ]]; then
  in=$dir/html-1000000.folded
  [[ -s $in ]] || python3 "$here/bench/html_gen_folded.py" --nodes 1000000 -o "$in"
  bench_file 1m "$in"
fi
if [[ $which == all || $which == distinct ]]; then
  in=$dir/folded_1m.txt
  [[ -s $in ]] || /usr/bin/python3 "$here/bench/folded_1m_gen.py" "$in"
  bench_file distinct "$in"
fi
if [[ $which == all || $which == kineto ]]; then
  in=$dir/kineto_1g.json
  [[ -s $in ]] || python3 "$here/../shared/gen/gen_kineto.py" -o "$in" --target-mb 1000 --layers 24
  bench_file kineto "$in"
fi
