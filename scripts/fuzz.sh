#!/usr/bin/env bash
# Builds the libFuzzer targets under Tests/Fuzz/<Target>/Target.swift into .build/fuzz and runs
# each for a bounded time on its seed corpus (Tests/Fuzz/<Target>/corpus). New interesting inputs
# go to .build/fuzz/scratch/<Target> (never into the repository), crashes to
# .build/fuzz/artifacts/<Target>. Prints one summary line per target; exits 1 on any crash.
#
#   scripts/fuzz.sh [--seconds N] [--jobs J] [--build-only] [Target ...]
#
# --seconds N   fuzzing time per target (default $FUZZ_SECONDS, else 60)
# --jobs J      targets fuzzed at the same time (default $FUZZ_JOBS, else 1)
# --build-only  build the targets and stop
# Targets default to every folder under Tests/Fuzz. Extra libFuzzer flags: $FUZZ_FLAGS.
#
# PreviewCore and PreviewCrypto are compiled as modules with -sanitize=fuzzer,address (so the
# decoders are coverage-instrumented) and -enable-testing (targets may use internal helpers
# through @testable import); each target links against them and the system libcrypto.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

seconds="${FUZZ_SECONDS:-60}"
jobs="${FUZZ_JOBS:-1}"
build_only=0
targets=()
while (($#)); do
    case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --build-only) build_only=1; shift ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 64 ;;
    *) targets+=("$1"); shift ;;
    esac
done
if ((${#targets[@]} == 0)); then
    for dir in Tests/Fuzz/*/; do targets+=("$(basename "$dir")"); done
fi
for target in "${targets[@]}"; do
    [[ -f "Tests/Fuzz/$target/Target.swift" ]] || { echo "fuzz.sh: no Tests/Fuzz/$target/Target.swift" >&2; exit 64; }
done

swiftc="${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}"
out=".build/fuzz"
modules="$out/modules"
mkdir -p "$modules"
flags=(-O -sanitize=fuzzer,address -enable-testing -parse-as-library -enable-upcoming-feature InternalImportsByDefault)
openssl=(-Xcc "-fmodule-map-file=Sources/COpenSSL/module.modulemap")

# Rebuilds `$1` when it is missing or older than any of the remaining paths.
stale() {
    local product="$1"; shift
    [[ ! -e "$product" ]] && return 0
    [[ -n "$(find "$@" -newer "$product" -print -quit)" ]]
}

build_module() {
    local name="$1"; shift
    local sources=("Sources/$name"/**/*.swift)
    if stale "$out/$name.o" "Sources/$name" "$@" "$0"; then
        echo "fuzz.sh: compiling $name"
        "$swiftc" "${flags[@]}" "${openssl[@]}" -I "$modules" -module-name "$name" -wmo -c \
            -emit-module -emit-module-path "$modules/$name.swiftmodule" -o "$out/$name.o" "${sources[@]}"
        touch "$out/$name.o"  # swiftc keeps the old time stamp of an object whose bytes did not change
    fi
}

shopt -s globstar nullglob
build_module ProtobufWire
build_module PreviewCore "$out/ProtobufWire.o"
build_module PreviewCrypto "$out/PreviewCore.o"
for target in "${targets[@]}"; do
    binary="$out/$target"
    if stale "$binary" "Tests/Fuzz/$target/Target.swift" "$out/ProtobufWire.o" "$out/PreviewCore.o" "$out/PreviewCrypto.o"; then
        echo "fuzz.sh: linking $target"
        "$swiftc" "${flags[@]}" "${openssl[@]}" -I "$modules" -module-name "Fuzz$target" \
            "Tests/Fuzz/$target/Target.swift" "$out/ProtobufWire.o" "$out/PreviewCore.o" "$out/PreviewCrypto.o" -lcrypto -use-ld=lld -o "$binary"
    fi
done
((build_only)) && exit 0

# Runs one target; its log is $out/logs/<Target>.log, its summary $out/logs/<Target>.summary.
run_one() {
    local target="$1"
    local scratch="$out/scratch/$target" artifacts="$out/artifacts/$target" log="$out/logs/$target.log"
    mkdir -p "$scratch" "$artifacts" "$out/logs"
    local status=0
    # shellcheck disable=SC2086 # FUZZ_FLAGS is a list of flags
    "$out/$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" ${FUZZ_FLAGS:-} "$scratch" "Tests/Fuzz/$target/corpus" >"$log" 2>&1 ||
        status=$?
    local execs cov ft corpus
    execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
    cov="$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)"
    ft="$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)"
    corpus="$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)"
    # libFuzzer stops at the first crash, so a run finds at most one.
    printf '%-8s %ss  execs %s  cov %s  ft %s  corpus %s  crashes %s%s\n' "$target" "$seconds" \
        "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corpus:-?}" "$((status != 0 ? 1 : 0))" \
        "$( ((status != 0)) && echo "  (exit $status; see $log and $artifacts)")" >"$out/logs/$target.summary"
    return "$status"
}

# libFuzzer reports crashes itself; Swift's backtracer would only slow (or stall) that.
export SWIFT_BACKTRACE=enable=no
failed=0
running=0
pids=()
for target in "${targets[@]}"; do
    run_one "$target" &
    pids+=("$!")
    running=$((running + 1))
    if ((running >= jobs)); then
        wait -n || failed=1
        running=$((running - 1))
    fi
done
while ((running > 0)); do
    wait -n || failed=1
    running=$((running - 1))
done
for target in "${targets[@]}"; do cat "$out/logs/$target.summary"; done
if ((failed)); then
    echo "fuzz.sh: a fuzz target crashed or failed (inputs under $out/artifacts)" >&2
    exit 1
fi
