#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets of fuzz/ with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer, writes the seed corpus (fuzz/make_corpus.py, plus ../shared/data
# when it is there), and runs every target for FUZZ_SECONDS (default 60) in turn.
#
#   FUZZ_SECONDS=600 fuzz/run.sh [target ...]     # targets: folded perf kineto ... (default: all)
#
# Findings (crash-*, timeout-*, leak-*, oom-* inputs) land in $FUZZ_DIR/findings/; a summary of
# executions and coverage per target in $FUZZ_DIR/summary.md. Exits 1 when any target found
# something. Keep each finding as a regression input: tests/fuzz_regressions/<target>/<name>
# (tests/unit/fuzz_regression_test.cpp replays them in `make test`).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_DIR=${FUZZ_DIR:-$ROOT/build-fuzz}
JOBS=${JOBS:-$(nproc)}
ALL=(folded perf kineto nsys ascend pstats speedscope cpuprofile gecko pprof stacks sniffed bundle gpu_cpu_merge sqlite_pages)
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=("${ALL[@]}")

scripts/setup.sh --fuzz
CC=clang CXX=clang++ cmake -S . -B "$FUZZ_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLAMEFOLD_FUZZ=ON \
  -DFLAMEFOLD_SANITIZE=address,undefined >/dev/null
cmake --build "$FUZZ_DIR" -j "$JOBS" --target "${TARGETS[@]/#/fuzz_}"

SHARED_DATA=$ROOT/../shared/data
rm -rf "$FUZZ_DIR/seeds"
if [[ -d $SHARED_DATA ]]; then
  /usr/bin/python3 fuzz/make_corpus.py "$FUZZ_DIR/seeds" "$SHARED_DATA"
else
  echo "fuzz: no ../shared/data beside the checkout: seeds from fuzz/make_corpus.py only" >&2
  /usr/bin/python3 fuzz/make_corpus.py "$FUZZ_DIR/seeds"
fi

# The dictionary of each target's format (libFuzzer inserts its tokens as mutations).
dict_of() {
  case $1 in
    folded | stacks) echo fuzz/dict/folded.dict ;;
    perf) echo fuzz/dict/perf.dict ;;
    kineto | gpu_cpu_merge | speedscope | cpuprofile | gecko) echo fuzz/dict/json.dict ;;
    nsys | ascend | sqlite_pages) echo fuzz/dict/sqlite.dict ;;
    *) echo "" ;;
  esac
}

mkdir -p "$FUZZ_DIR/findings"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
summary=$FUZZ_DIR/summary.md
{
  echo "| target | seconds | executions | exec/s | coverage (cov) | features (ft) | corpus | findings |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
} >"$summary"
found=0
for t in "${TARGETS[@]}"; do
  corpus=$FUZZ_DIR/corpus/$t
  mkdir -p "$corpus"
  dict=$(dict_of "$t")
  log=$FUZZ_DIR/$t.log
  before=$(find "$FUZZ_DIR/findings" -name "$t-*" | wc -l)
  echo "fuzz: $t for ${FUZZ_SECONDS}s" >&2
  # -timeout: an input taking over 10 s is a hang; -rss_limit_mb: a reader must not blow up on
  # a small input; the seeds directory is read, new inputs go to the corpus directory.
  set +e
  "$FUZZ_DIR/fuzz/fuzz_$t" "$corpus" "$FUZZ_DIR/seeds/$t" ${dict:+-dict=$dict} -max_total_time="$FUZZ_SECONDS" \
    -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=262144 -print_final_stats=1 \
    -artifact_prefix="$FUZZ_DIR/findings/$t-" >"$log" 2>&1
  rc=$?
  set -e
  after=$(find "$FUZZ_DIR/findings" -name "$t-*" | wc -l)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*' || true)
  ft=$(grep -o 'ft: [0-9]*' <<<"$last" | grep -o '[0-9]*' || true)
  corp=$(grep -o 'corp: [0-9]*' <<<"$last" | grep -o '[0-9]*' || true)
  echo "| $t | $FUZZ_SECONDS | ${execs:-?} | ${speed:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} | $((after - before)) |" >>"$summary"
  if ((rc != 0 || after > before)); then
    found=1
    echo "fuzz: $t found something (exit $rc): see $log and $FUZZ_DIR/findings/$t-*" >&2
    grep -E 'ERROR|SUMMARY|flamefold fuzz:' "$log" | head -5 >&2 || true
  fi
done
cat "$summary"
exit $found
