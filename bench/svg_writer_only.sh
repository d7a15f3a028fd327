#!/usr/bin/env bash
# Builds bench/svg_writer_only.cpp against BUILD/libflamefold.a and times write_svg alone.
# Usage: bench/svg_writer_only.sh [build-dir] [folded-file] [--reverse]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
input=${2:-/tmp/ffbench/svg100k.sorted.folded}
mkdir -p /tmp/ffbench
g++ -O2 -std=c++20 -I"$here/include" "$here/bench/svg_writer_only.cpp" "$build/libflamefold.a" \
  -lsimdjson -lfmt -lz -lsqlite3 -lzstd -ldeflate -lpthread -o /tmp/ffbench/svg_writer_only
/tmp/ffbench/svg_writer_only "$input" /tmp/ffbench/svg-writer-only.svg ${3:-}
