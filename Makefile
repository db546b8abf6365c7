# skade front door. `make run` and `make test` set up what is missing first.
SHELL := /bin/bash
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
WAREHOUSE ?= ./warehouse
S3_DIR ?= ./warehouse-s3
S3_PORT ?= 9000
HOST ?= 127.0.0.1
PORT ?= 8181
CMAKE_FLAGS ?=
PYTEST ?= .venv/bin/python -m pytest

.PHONY: all setup configure build run run-s3 test test-long test-cpp test-interop bench fuzz format clean

all: build

setup:
	@scripts/setup.sh

$(BUILD)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

configure: setup $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD)

run: build
	@scripts/run.sh $(BUILD)/bin/skade $(WAREHOUSE) $(HOST) $(PORT)

# The same with the warehouse on S3: a local MinIO on S3_PORT, the store in S3_DIR.
run-s3: build
	@scripts/run-s3.sh $(BUILD)/bin/skade $(S3_DIR) $(HOST) $(PORT) $(S3_PORT)

test: build
	$(MAKE) --no-print-directory test-cpp test-interop fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS)

# The same, with the soak and kill -9 loops at full length (CI runs them briefly).
test-long:
	SKADE_LONG_TESTS=1 $(MAKE) --no-print-directory test

test-cpp:
	cd $(BUILD) && ctest --output-on-failure -j2 --timeout 900

test-interop:
	SKADE_BIN=$(abspath $(BUILD))/bin $(PYTEST) -q tests/interop

bench: build
	@scripts/bench.sh $(BUILD)

# libFuzzer targets, built with clang (ASan) in build-fuzz/, each run for
# FUZZ_SECONDS; `make test` runs them briefly.
FUZZ_SECONDS ?= 60
TEST_FUZZ_SECONDS ?= 15
fuzz: setup
	cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-14 \
	  -DCMAKE_CXX_COMPILER=clang++-14 -DSKADE_BUILD_FUZZERS=ON -DSKADE_WITH_ARROW=OFF \
	  -DSKADE_BUILD_BENCH=OFF -DSKADE_SANITIZE=address
	cmake --build build-fuzz --target metadata_json_fuzz manifest_fuzz rest_request_fuzz expression_fuzz \
	  copy_delta_fuzz
	scripts/fuzz.sh build-fuzz/bin $(FUZZ_SECONDS)

format:
	find src tests bench -name '*.h' -o -name '*.cc' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
