#!/usr/bin/env bash
# Installs what flamefold needs to build and test, only when it is missing.
# Debian 12 packages through apt; the browser-test driver (playwright-core) through npm.
set -euo pipefail
cd "$(dirname "$0")/.."

build_pkgs=(g++ cmake make pkg-config
  libsimdjson-dev libcli11-dev libfmt-dev zlib1g-dev libzstd-dev libdeflate-dev libisal-dev libsqlite3-dev libarchive-dev
  libprotobuf-dev protobuf-compiler)
# golang-go: `go tool pprof`, the reference reader of the pprof conformance tests.
test_pkgs=(libgtest-dev libbenchmark-dev graphviz libgraphviz-dev chromium python3 golang-go)
# The Python package (python/, `make python`) and its tests: Debian's interpreter and libraries only.
python_pkgs=(python3 python3-dev python3-venv python3-pip python3-setuptools python3-wheel pybind11-dev
  python3-pytest python3-numpy python3-pandas python3-torch python3-dask python3-distributed)

# `make fuzz`: clang with libFuzzer and the sanitizers' runtimes.
fuzz_pkgs=(clang libfuzzer-14-dev llvm)

want=("${build_pkgs[@]}")
if [[ "${1:-}" == "--test" ]]; then want+=("${test_pkgs[@]}" "${python_pkgs[@]}"); fi
if [[ "${1:-}" == "--python" ]]; then want+=("${python_pkgs[@]}"); fi
if [[ "${1:-}" == "--fuzz" ]]; then want+=("${fuzz_pkgs[@]}"); fi

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

if [[ "${1:-}" == "--test" ]]; then
  if ! command -v npm >/dev/null; then
    SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >&2
  fi
  if [[ ! -d tests/browser/node_modules/playwright-core ]]; then
    echo "setup: npm install (tests/browser)" >&2
    (cd tests/browser && npm install --no-audit --no-fund --silent >&2)
  fi
  if [[ ! -d tests/speedscope_browser/node_modules/speedscope ]]; then
    echo "setup: npm install (tests/speedscope_browser)" >&2
    (cd tests/speedscope_browser && npm install --no-audit --no-fund --silent >&2)
  fi
fi
