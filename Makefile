# The two commands of README.md, and their friends. Everything real happens
# in CMake (CMakeLists.txt) and scripts/; this file only sequences them.
#   make run      install what is missing, build, and run mnemo on this repository
#   make test     build and pass the whole suite, plain and under ASan+UBSan, and check formatting
#   make bench    build (optimised) and run the benchmarks in bench/
#   make install  PREFIX=/usr/local DESTDIR=
PREFIX ?= /usr/local
DESTDIR ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
BENCH_BUILD ?= build-bench

.PHONY: all deps build run test test-plain test-asan test-tsan test-fuzz check-format format bench install clean

all: build

deps:
	@scripts/deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# the build's output goes to $(BUILD)/make-run.log (printed whole only when it fails), so
# what shows is mnemo's own
run:
	@scripts/run.sh $(BUILD)

test-plain: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

$(ASAN_BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMNEMO_SANITIZE=ON

test-asan: deps $(ASAN_BUILD)/CMakeCache.txt
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -LE slow

# ThreadSanitizer on the tests labelled "threads" (tests/CMakeLists.txt): the code that runs
# threads (the semantic scan beside the full-text work, the embedder's parallel training, the
# indexer's parse workers, the HTTP server, the MCP stdio reader) and the tests that drive it.
$(TSAN_BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMNEMO_TSAN=ON

test-tsan: deps $(TSAN_BUILD)/CMakeCache.txt
	cmake --build $(TSAN_BUILD) -j $(JOBS)
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --output-on-failure -j $(JOBS) -L threads

check-format:
	@scripts/check-format.sh

format:
	@scripts/check-format.sh --fix

# The libFuzzer targets for the JSON-RPC reader and the REST request reader (fuzz/), 20 s each
# from their seed corpus; new inputs they find stay in $(FUZZ_BUILD)/corpus and corpus-rest.
FUZZ_BUILD ?= build-fuzz
test-fuzz: deps
	cmake -S fuzz -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang -DMNEMO_FUZZ=ON
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	mkdir -p $(FUZZ_BUILD)/corpus $(FUZZ_BUILD)/corpus-rest
	$(FUZZ_BUILD)/fuzz_jsonrpc -max_total_time=20 -max_len=65536 $(FUZZ_BUILD)/corpus fuzz/corpus/jsonrpc
	$(FUZZ_BUILD)/fuzz_rest -max_total_time=20 -max_len=65536 $(FUZZ_BUILD)/corpus-rest fuzz/corpus/rest

test: check-format test-plain test-asan test-tsan test-fuzz

$(BENCH_BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=Release

bench: deps $(BENCH_BUILD)/CMakeCache.txt
	cmake --build $(BENCH_BUILD) -j $(JOBS)
	@scripts/bench.sh $(BENCH_BUILD)

install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(BENCH_BUILD)
