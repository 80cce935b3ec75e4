#!/usr/bin/env bash
# Runs the test suites named LocalStack... against LocalStack's S3 with signature validation on,
# inside a network namespace that has only loopback (LocalStack tries the internet at start; this
# machine must send nothing but loopback traffic). Builds nothing: run `swift build --build-tests`
# (or `swift test`) first with the same scratch path.
#   scripts/test-s3.sh [--scratch-path DIR]     (arguments go on to `swift test`)
# Needs root (unshare --net), curl, bc, iproute2, and PyPI once for the venvs (setup-venvs.sh).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
"$repo/scripts/s3-test-servers/setup-venvs.sh" localstack
exec unshare --net -- bash "$repo/scripts/s3-test-servers/in-namespace.sh" "$@"
