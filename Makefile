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

# LocalStack's suites run apart, inside a loopback-only network namespace (scripts/test-s3.sh).
test: test-deps lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip LocalStack
	FUZZ_SECONDS=10 FUZZ_JOBS=2 scripts/fuzz.sh
	scripts/test-s3.sh

# libFuzzer targets of the pure decoders (Tests/Fuzz/<Target>), built into .build/fuzz and run
# FUZZ_SECONDS each on their seed corpora; new inputs stay under .build/fuzz (scripts/fuzz.sh).
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

clean:
	rm -rf .build
