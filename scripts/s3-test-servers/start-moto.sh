#!/usr/bin/env bash
# Runs moto_server in the foreground on 127.0.0.1:PORT (for poking at by hand; the Swift tests
# start their own). moto does not check signatures: it proves plumbing only.
#   start-moto.sh PORT
set -euo pipefail
port="${1:?usage: start-moto.sh PORT}"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
"$repo/scripts/s3-test-servers/setup-venvs.sh" moto
exec "${S3_TEST_VENVS:-$repo/.build/s3-test-venvs}/moto/bin/moto_server" -H 127.0.0.1 -p "$port"
