#!/usr/bin/env bash
# The part of scripts/test-s3.sh that runs inside `unshare --net`: brings lo up, starts LocalStack
# on 127.0.0.1:4566, waits until S3 is healthy, runs the LocalStack suites, stops LocalStack.
#   in-namespace.sh [extra swift test arguments, e.g. --scratch-path DIR]
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
filter=LocalStack
# The filter must match a test (one that matches nothing passes), checked before LocalStack starts.
source "$repo/scripts/lib/test-filter.sh"
list_tests "$@"
require_tests test-s3 "$filter"
port=4566  # the namespace is new: nothing else can hold it
ip link set lo up
state=$(mktemp -d /tmp/sp-localstack-XXXXXX)
log="$state/localstack.log"
started=$(date +%s.%N)
setpriv --pdeathsig KILL -- "$repo/scripts/s3-test-servers/start-localstack.sh" "$port" "$state" > "$log" 2>&1 &
localstack=$!
stop() {
    kill -TERM "$localstack" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$localstack" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$localstack" 2>/dev/null || true
    wait "$localstack" 2>/dev/null || true
    rm -rf "$state"
}
trap stop EXIT
healthy=0
for _ in $(seq 1 600); do
    if curl -s -m 2 "http://127.0.0.1:$port/_localstack/health" | grep -q '"s3": "running"'; then healthy=1; break; fi
    kill -0 "$localstack" 2>/dev/null || break
    sleep 0.1
done
if (( ! healthy )); then
    echo "LocalStack did not become healthy; its log:" >&2
    tail -n 60 "$log" >&2
    exit 69
fi
printf 'LocalStack S3 healthy on 127.0.0.1:%s after %.1f s (signature validation on)\n' "$port" \
    "$(awk "BEGIN { print $(date +%s.%N) - $started }")"
cd "$repo"
STREAMPREVIEW_TEST_LOCALSTACK="http://127.0.0.1:$port" swift test --skip-build --filter "$filter" "$@"
