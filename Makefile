# StreamPreview: `make run` serves on the embedded defaults, `make test` runs every test.
SWIFT ?= swift
ARGS ?=

.PHONY: all deps test-deps build release run test lint format docs clean help

all: build

help:
	@echo "make run    install Debian packages (as root), build release, start 'streampreview serve' (ARGS=... adds flags)"
	@echo "make test   install Debian packages (as root), build and run the whole test suite"
	@echo "make build  debug build"
	@echo "make docs   build the manual (docs/manual, mkdocs --strict) into .build/docs"
	@echo "make lint   swift format lint (strict, the checked-in .swift-format); make format applies it"
	@echo "make fuzz   build the libFuzzer targets and run each for FUZZ_SECONDS (default 60)"
	@echo "make bench  install wrk and nginx (as root), build release, run the load workloads, print the table, write BENCHMARKS.md"
	@echo "make bench-sweep  build release, time 'streampreview sweep' (local store, S3 on moto, steady state), write BENCHMARKS.md's Sweeper section"
	@echo "make image  install podman, runc, debootstrap (as root), make Debian base images, build the Containerfile with podman"
	@echo "make test-image  make image, then check it (--help, libraries, serve read-only and non-root) and run the Sentinel example with it"

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

# The manual, docs/manual with docs/mkdocs.yml, built by a pinned mkdocs into .build/docs; --strict
# fails on a broken link or anchor and on a page left out of the navigation.
docs:
	scripts/docs/build.sh

# LocalStack's suites run apart, inside a loopback-only network namespace (scripts/test-s3.sh);
# the end-to-end suites run again against a 6-node Redis Cluster on loopback (scripts/test-cluster.sh).
# scripts/test-deploy.sh validates deploy/ offline (systemd-analyze verify, kubernetes-validate,
# and the manifests' settings against the built binary's --help, so it runs after the build).
# scripts/test-replicas.sh runs the end-to-end suites again through nginx in front of two serve replicas.
# scripts/test-browser.sh drives Debian's Chromium headless (selenium) on pages of other loopback
# origins against serve --cors-origins, then the viewer page at / against a serve with live streams.
# test-image (below) builds the Containerfile with podman and runs the image and the Sentinel example.
# scripts/test-openapi.sh validates proto/openapi.yaml and runs schemathesis against a serve on loopback.
# scripts/test-openapi-client.sh generates a Python client from a serve's GET /api/openapi.yaml with
# openapi-python-client (no warning allowed) and drives uploads, commit, feed, like and typed errors with it.
# scripts/check-client-graph.sh builds the StreamPreviewClient library product and fails if a C module or
# system library is in its graph (Package.swift, the modules it was compiled against, its imports) or it spawns.
# scripts/test-client-readme.sh builds the Swift blocks of README.md's Apps section in a fresh package that
# depends on this one, as an app would (the SwiftUI view is left out on Linux by #if canImport(SwiftUI)).
# scripts/docs/build.sh builds the manual with mkdocs --strict (make docs).
# Each step says how long it took (scripts/step.sh).
test: test-deps lint
	scripts/step.sh scripts/docs/build.sh
	scripts/step.sh $(SWIFT) build --build-tests
	scripts/step.sh scripts/test-deploy.sh
	scripts/step.sh $(SWIFT) test --skip-build --skip LocalStack
	scripts/step.sh scripts/test-browser.sh
	scripts/step.sh scripts/test-openapi.sh
	scripts/step.sh scripts/test-openapi-client.sh
	scripts/step.sh scripts/check-client-graph.sh
	scripts/step.sh scripts/test-client-readme.sh
	FUZZ_SECONDS=10 FUZZ_JOBS=2 scripts/step.sh scripts/fuzz.sh
	scripts/step.sh scripts/test-s3.sh
	scripts/step.sh scripts/test-replicas.sh
	scripts/step.sh scripts/test-cluster.sh
	scripts/step.sh $(MAKE) test-image

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

# Sweeper benchmark (scripts/bench/sweep.py, Python 3 standard library, shares make bench's
# helpers): serve with short lifetimes and its loop off, garbage seeded through the API, then one
# timed `streampreview sweep` (objects deleted/s) with the local store and with S3 against
# moto_server (the test suite's venv); then a steady state of streams replacing every
# BENCH_SWEEP_PERIOD s with sweep run like a cron and the backlog sampled in Redis. Prints two
# tables and rewrites only the Sweeper section of BENCHMARKS.md. Knobs: BENCH_SWEEP_STREAMS (1000),
# BENCH_SWEEP_REPLACEMENTS (10 commits a stream), BENCH_SWEEP_ABANDONED (2 uploads a stream),
# BENCH_SWEEP_S3_STREAMS (150), BENCH_SWEEP_STEADY_STREAMS (10000), BENCH_SWEEP_PERIOD (30),
# BENCH_SWEEP_STEADY_SECONDS (600), BENCH_SWEEP_EVERY (30 s between sweep runs),
# BENCH_SWEEP_LIFETIME (5 s upload URL TTL, commit window and grace), BENCH_SWEEP_ONLY (comma list
# of burst-local, burst-s3, steady). About 20 minutes (10 with BENCH_SWEEP_STEADY_SECONDS=120);
# not part of make test.
.PHONY: bench-sweep
bench-sweep: bench-deps
	$(SWIFT) build -c release
	$(PYTHON) -B scripts/bench/sweep.py

# The Containerfile built with podman from base images made here with debootstrap (no registry):
# scripts/make-image.sh. The two bases are made once (about 2 minutes, downloads included), then
# the release binary is compiled in the container with this machine's toolchain mounted (about
# 2.5 minutes); scripts/test-image.sh runs the image (about 7 s); scripts/test-sentinel-example.sh
# runs deploy/kubernetes/redis-sentinel.yaml's Redis as containers with serve from the image
# against it and kills the primary (about 30 s). The last step of make test; IMAGE=name:tag picks
# the tag.
.PHONY: image test-image image-deps
image-deps:
	scripts/install-deps.sh image

image: image-deps
	scripts/make-image.sh

test-image: image
	scripts/test-image.sh
	scripts/test-sentinel-example.sh

clean:
	rm -rf .build
