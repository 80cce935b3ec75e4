# StreamPreview: `make run` serves on the embedded defaults, `make test` runs every test.
SWIFT ?= swift
ARGS ?=

.PHONY: all deps test-deps build release run test lint format clean help

all: build

help:
	@echo "make run    install Debian packages (as root), build release, start 'streampreview serve' (ARGS=... adds flags)"
	@echo "make test   install Debian packages (as root), build and run the whole test suite"
	@echo "make build  debug build"
	@echo "make lint   swift format lint (strict, the checked-in .swift-format); make format applies it"
	@echo "make fuzz   build the libFuzzer targets and run each for FUZZ_SECONDS (default 60)"
	@echo "make bench  install wrk and nginx (as root), build release, run the load workloads, print the table, write BENCHMARKS.md"

deps:
	scripts/install-deps.sh run

test-deps:
	scripts/install-deps.sh test

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: release
	.build/release/streampreview serve $(ARGS)

lint:
	$(SWIFT) format lint --strict -r Sources Tests Package.swift

format:
	$(SWIFT) format format -i -r Sources Tests Package.swift

# LocalStack's suites run apart, inside a loopback-only network namespace (scripts/test-s3.sh);
# the end-to-end suites run again against a 6-node Redis Cluster on loopback (scripts/test-cluster.sh).
test: test-deps lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip LocalStack
	FUZZ_SECONDS=10 FUZZ_JOBS=2 scripts/fuzz.sh
	scripts/test-s3.sh
	scripts/test-cluster.sh

# libFuzzer targets of the pure decoders (Tests/Fuzz/<Target>), built into .build/fuzz and run
# FUZZ_SECONDS each on their seed corpora; new inputs stay under .build/fuzz (scripts/fuzz.sh).
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

# Load benchmark of a release build against nginx and the other ceilings (scripts/bench/bench.py,
# Python 3 standard library): one table, BENCHMARKS.md. Knobs: BENCH_SECONDS (per round, 10),
# BENCH_ROUNDS (3), BENCH_ONLY (comma list of workloads), BENCH_SOAK_SECONDS (600), BENCH_PROFILE=1.
# About 25 minutes in all (18 with BENCH_SOAK_SECONDS=120); not part of make test.
PYTHON ?= /usr/bin/python3
.PHONY: bench bench-deps
bench-deps:
	scripts/install-deps.sh bench

bench: bench-deps
	$(SWIFT) build -c release
	$(PYTHON) scripts/bench/bench.py

clean:
	rm -rf .build
