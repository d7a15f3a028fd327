#!/usr/bin/env bash
# Whole-run checks of the CLI (issue 15, item 5): every file of ../shared/data and the fuzzers'
# generated seeds through every command, under a 512 MB address-space limit; then outputs into a
# full, a read-only and a vanishing directory (small tmpfs mounts: needs root, skipped otherwise).
# Each run must end with exit 0, or exit 2 and one "flamefold: error:" line; never a signal; no
# output file when it failed, no temporary file left; the inputs untouched (checksums).
#
#   tests/soak/soak.sh [BUILD_DIR=build] [SHARED_DATA=../shared/data]   (make soak)
#
# Prints a summary; exits 1 on any violation, listing each.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
DATA=${2:-../shared/data}
FF=$PWD/$BUILD/flamefold
LIMIT_KB=${SOAK_LIMIT_KB:-524288}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flamefold-soak.XXXXXX")
trap 'umount "$WORK"/mnt/* 2>/dev/null; rm -rf "$WORK"' EXIT
[[ -x $FF ]] || { echo "soak: no $FF (build first)" >&2; exit 2; }

inputs=()
if [[ -d $DATA ]]; then
  while IFS= read -r -d '' f; do inputs+=("$f"); done < <(find "$DATA" -type f ! -name SOURCES.tsv -print0 | sort -z)
else
  echo "soak: no $DATA: generated inputs only" >&2
fi
/usr/bin/python3 fuzz/make_corpus.py "$WORK/seeds" >/dev/null
while IFS= read -r -d '' f; do inputs+=("$f"); done < <(find "$WORK/seeds" -type f ! -path '*/sniffed/*' ! -path '*/stacks/*' ! -path '*/gpu_cpu_merge/*' ! -path '*/sqlite_pages/*' -print0 | sort -z)
inputs+=("$PWD/examples/python-perf.txt")

sha256sum "${inputs[@]}" >"$WORK/before.sha"
violations=0 runs=0 ok=0 refused=0
fail() { echo "VIOLATION: $*"; violations=$((violations + 1)); }

# One run: ARGS... with the output OUT (or "" for stdout); checks the contract above.
check_run() {
  local what=$1 out=$2
  shift 2
  local dir
  dir=$(dirname "${out:-$WORK/none}")
  local before_files
  before_files=$(ls -A "$dir" 2>/dev/null | wc -l)
  (ulimit -v "$LIMIT_KB"; exec "$FF" "$@") >"$WORK/stdout" 2>"$WORK/stderr" </dev/null
  local rc=$?
  runs=$((runs + 1))
  if ((rc >= 128)); then
    fail "$what: killed by signal $((rc - 128)): $(tail -1 "$WORK/stderr")"
  elif ((rc == 0)); then
    ok=$((ok + 1))
    [[ -z $out || -s $out ]] || fail "$what: exit 0 but no $out"
  elif ((rc == 2)); then
    refused=$((refused + 1))
    local errors
    errors=$(grep -c '^flamefold: error: ' "$WORK/stderr")
    ((errors == 1)) || fail "$what: exit 2 with $errors error lines: $(head -3 "$WORK/stderr")"
    echo "$what: $(grep '^flamefold: error: ' "$WORK/stderr")" >>"$WORK/refusals"
    [[ -z $out || ! -e $out ]] || fail "$what: failed but left $out"
  else
    fail "$what: exit $rc: $(tail -1 "$WORK/stderr")"
  fi
  if [[ -n $out && -d $dir ]]; then
    local leftovers
    leftovers=$(ls -A "$dir" | grep -v -x -F "$(basename "$out")" | wc -l)
    ((leftovers <= before_files)) || fail "$what: temporary files left in $dir: $(ls -A "$dir" | head -3)"
  fi
  rm -f "$out"
  return 0
}

mkdir -p "$WORK/out"
for f in "${inputs[@]}"; do
  name=$(basename "$f")
  check_run "$name collapse" "$WORK/out/x.folded" collapse "$f" -o "$WORK/out/x.folded"
  check_run "$name -> html" "$WORK/out/x.html" flamegraph "$f" -o "$WORK/out/x.html"
  check_run "$name -> svg" "$WORK/out/x.svg" flamegraph "$f" -o "$WORK/out/x.svg"
  check_run "$name -> pprof" "$WORK/out/x.pb.gz" convert "$f" -o "$WORK/out/x.pb.gz"
  check_run "$name -> speedscope" "$WORK/out/x.speedscope.json" convert "$f" -o "$WORK/out/x.speedscope.json"
  check_run "$name -> pstats" "$WORK/out/x.prof" convert "$f" -o "$WORK/out/x.prof"
  check_run "$name top" "" top "$f"
done
echo "soak: $runs runs over ${#inputs[@]} inputs under ulimit -v $LIMIT_KB KB: $ok written, $refused refused with one error line"
# What the refusals said, by problem (the text after the file and place).
[[ -s $WORK/refusals ]] && sed -E 's/.*flamefold: error: [^ ]*( [^:]*:)? //' "$WORK/refusals" | cut -c1-90 | sort | uniq -c | sort -rn | head -12
: >"$WORK/refusals"

# Output directories that fail under the writer: full, read-only, removed mid-run.
big=""
for f in "${inputs[@]}"; do [[ -z $big || $(stat -c %s "$f") -gt $(stat -c %s "$big") ]] && big=$f; done
if [[ $(id -u) -eq 0 ]] && mkdir -p "$WORK/mnt/full" "$WORK/mnt/ro" && mount -t tmpfs -o size=16k tmpfs "$WORK/mnt/full" 2>/dev/null; then
  mount -t tmpfs -o size=1m,ro tmpfs "$WORK/mnt/ro"
  for kind in html svg pb.gz speedscope.json folded; do
    cmd=flamegraph
    [[ $kind == pb.gz || $kind == speedscope.json ]] && cmd=convert
    check_run "full disk -> $kind" "$WORK/mnt/full/x.$kind" $cmd "$big" -o "$WORK/mnt/full/x.$kind"
    check_run "read-only dir -> $kind" "$WORK/mnt/ro/x.$kind" $cmd "$big" -o "$WORK/mnt/ro/x.$kind"
  done
  # The output directory removed while the run writes: a clear error or a finished run, never a crash.
  for i in 1 2 3 4 5; do
    mkdir -p "$WORK/gone"
    (ulimit -v "$LIMIT_KB"; exec "$FF" flamegraph "$big" -o "$WORK/gone/x.html") >/dev/null 2>"$WORK/stderr" &
    pid=$!
    sleep "0.0$i"
    rm -rf "$WORK/gone"
    wait "$pid"
    rc=$?
    runs=$((runs + 1))
    ((rc == 0 || rc == 2)) || fail "directory removed mid-run ($i): exit $rc: $(tail -1 "$WORK/stderr")"
    ((rc != 2)) || (($(grep -c '^flamefold: error: ' "$WORK/stderr") == 1)) || fail "directory removed mid-run ($i): $(head -3 "$WORK/stderr")"
  done
  echo "soak: full, read-only and vanishing output directories checked with $(basename "$big"); what they said:"
  [[ -s $WORK/refusals ]] && cut -c1-150 "$WORK/refusals"
else
  echo "soak: not root or no tmpfs: the full / read-only / removed output directory checks are skipped" >&2
fi

sha256sum --quiet -c "$WORK/before.sha" >/dev/null || fail "an input changed: $(sha256sum --quiet -c "$WORK/before.sha" 2>&1 | head -3)"
if ((violations)); then
  echo "soak: $violations violations"
  exit 1
fi
echo "soak: no violations; inputs unchanged"
