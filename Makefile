# flamefold — `make run` renders the bundled example, `make test` runs every test.
BUILD ?= build
JOBS  ?= $(shell nproc)

.PHONY: all setup build run test bench clean

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
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DFLAMEFOLD_TESTS=ON >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: setup
	@bench/run.sh

clean:
	rm -rf $(BUILD) out
