# flamefold — `make run` renders the bundled example, `make test` runs every test.
BUILD ?= build
JOBS  ?= $(shell nproc)
# The tests of the readers and builders that run threads, for the ThreadSanitizer pass.
TSAN_TESTS ?= Spool|Stream|Nsys|Ascend|Kineto|InputAhead|WorkAhead|SqliteScanAhead|Folded|Perf|Parallel|Html|GzipMembers|TwoThreads|InTwoStages|OutputFile

.PHONY: all setup build run test test-sanitize soak fuzz bench clean python
# `make python`: the Python package installed into this venv (Debian's interpreter, its packages seen).
VENV ?= .venv

all: build

setup:
	@scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	@mkdir -p out
	@$(BUILD)/flamefold flamegraph examples/python-perf.txt -o out/example.html
	@$(BUILD)/flamefold flamegraph examples/python-perf.txt -o out/example.svg
	@echo "wrote $(CURDIR)/out/example.html and $(CURDIR)/out/example.svg"

test:
	@scripts/setup.sh --test
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DFLAMEFOLD_TESTS=ON -DFLAMEFOLD_PYTHON=ON >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The package from this checkout, built by CMake in $(BUILD) (shared with `make build`/`make test`),
# with no package index: everything comes from Debian (scripts/setup.sh --python).
python:
	@scripts/setup.sh --python
	@test -x $(VENV)/bin/python || /usr/bin/python3 -m venv --system-site-packages $(VENV)
	@FLAMEFOLD_BUILD_DIR=$(abspath $(BUILD)) FLAMEFOLD_JOBS=$(JOBS) $(VENV)/bin/python -m pip install -q \
	  --no-build-isolation --no-deps --no-index ./
	@$(VENV)/bin/python -c 'import flamefold; print("flamefold", flamefold.__version__, "in $(VENV):", flamefold.__file__)'

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer, then the multi-threaded
# readers' tests under ThreadSanitizer (separate build trees; see docs/design.md for the times).
test-sanitize:
	@scripts/setup.sh --test
	@cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLAMEFOLD_TESTS=ON -DFLAMEFOLD_SANITIZE=address,undefined >/dev/null
	@cmake --build $(BUILD)-asan -j $(JOBS)
	@cd $(BUILD)-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)
	@cmake -S . -B $(BUILD)-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLAMEFOLD_TESTS=ON -DFLAMEFOLD_SANITIZE=thread >/dev/null
	@cmake --build $(BUILD)-tsan -j $(JOBS) --target flamefold_tests
	@cd $(BUILD)-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j $(JOBS) -R '$(TSAN_TESTS)'

# The CLI over every file of ../shared/data and the generated seeds under a 512 MB address-space
# limit, and into full, read-only and vanishing output directories (tmpfs mounts: run as root).
soak: build
	@tests/soak/soak.sh $(BUILD)

# Coverage-guided fuzzing of every reader (clang + libFuzzer + ASan/UBSan), FUZZ_SECONDS each.
fuzz:
	@fuzz/run.sh

bench: setup
	@bench/run.sh

clean:
	rm -rf $(BUILD) out
