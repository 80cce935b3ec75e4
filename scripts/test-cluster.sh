#!/usr/bin/env bash
# Runs the end-to-end suites that talk to `serve` over HTTP against a Redis Cluster of 6 Debian
# redis-server nodes on loopback (3 primaries, 3 replicas), while a background loop migrates the
# slots of live streams between primaries (CLUSTER SETSLOT IMPORTING/MIGRATING, MIGRATE, SETSLOT
# NODE), so MOVED, ASK and TRYAGAIN are followed for real. Every server runs with
# --redis-wait-replicas 1, so each acknowledged write is confirmed (WAIT) by the replica of the
# node that took it. Prints the redirects the servers followed and the run's duration, and fails
# when a server answered a request with a 500 (`internal_error`).
# Builds nothing: run `swift build --build-tests` first with the same scratch path.
#   scripts/test-cluster.sh [arguments for `swift test`]
# Knobs: CLUSTER_BASE_PORT (first node's port, default 17100; the bus uses port + 10000),
# CLUSTER_SUITES (a `swift test --filter` regex replacing the default suite list; it must match a
# test, as every suite of that list must), CLUSTER_PASSES
# (how many times the suites run while slots keep moving, default 2).
#
# Suites run: those that drive the API over HTTP through every route on a shared Redis (uploads,
# commits, the feed, likes and seen marks, ranking, protobuf, validation and auth errors,
# write-once, pending-upload limits, signed URLs, secrets, drain, /metrics with its Redis
# counters, the README walk-through), and the figures' tests over HTTP (counted, read, ranked).
# Suites left out, and why: RedisOutageTests and LifecycleTests stop, kill or look for the
# embedded redis-server; the Sweep* suites read the embedded Redis through its socket (and one
# restarts it; `sweep` itself runs once against the cluster below); ReplicaAgreementTests,
# SentinelFailoverTests and SweepConcurrencyTests start their own Redis; ConformancePresignTests,
# LocalStack and S3Moto suites do not depend on Redis (the S3 ones run in scripts/test-s3.sh);
# UploadMemoryTests (hundreds of 10 MiB uploads) measures the server's memory, which does not
# depend on where Redis is, and would take most of the time budget.
set -euo pipefail
started=$SECONDS
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
export PATH=/opt/swift/usr/bin:$PATH

default_suites=(
    AuthErrorTests CommitAndCacheTests FeedEventsTests GracefulShutdownTests HappyPathTests HostileInputTests LikesAndSeenTests
    MetricsTests PendingUploadLimitEndToEndTests ProtobufTests RankingTests ReadmeWalkthroughTests
    SecretConfigurationTests SignedURLTests ValidationErrorTests WriteOnceTests
)
# The figures' tests that drive serve over HTTP only (the retention test reads the embedded Redis):
# every counting script declares its keys, so a migrating slot answers TRYAGAIN, never an error.
figure_tests='EndToEndTests\.PreviewFiguresTests/(story|owners|watchURLs|feedLinks|rankByOpens|notLive)\('
# Every suite named must exist (a filter that matches nothing passes), checked before any node starts.
source "$repo/scripts/lib/test-filter.sh"
list_tests "$@"
if [ -n "${CLUSTER_SUITES:-}" ]; then
    suites="$CLUSTER_SUITES"
    require_tests test-cluster "$suites"
else
    suites="EndToEndTests\.($(IFS='|'; echo "${default_suites[*]}"))/|$figure_tests"
    patterns=("$figure_tests")
    for suite in "${default_suites[@]}"; do patterns+=("EndToEndTests\.$suite/"); done
    require_tests test-cluster "${patterns[@]}"
fi

port_free() { ! ss -ltnH "sport = :$1" | grep -q .; }
base="${CLUSTER_BASE_PORT:-17100}"
for _ in $(seq 1 20); do
    ok=1
    for i in 0 1 2 3 4 5; do
        port_free $((base + i)) && port_free $((base + i + 10000)) || ok=0
    done
    [ "$ok" = 1 ] && break
    base=$((base + 10))
done
[ "$ok" = 1 ] || { echo "test-cluster: no 6 free loopback ports found" >&2; exit 1; }
ports=()
for i in 0 1 2 3 4 5; do ports+=($((base + i))); done

work="$(mktemp -d /tmp/sp-cluster-XXXXXX)"
pids=()
migrator=""
cleanup() {
    [ -n "$migrator" ] && kill "$migrator" 2>/dev/null || true
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

cli() { timeout 10 redis-cli -h 127.0.0.1 -p "$1" "${@:2}"; }

for port in "${ports[@]}"; do
    mkdir -p "$work/$port"
    redis-server --bind 127.0.0.1 --port "$port" --dir "$work/$port" --cluster-enabled yes \
        --cluster-config-file nodes.conf --cluster-node-timeout 5000 --save '' --appendonly no \
        --repl-diskless-sync yes --repl-diskless-sync-delay 0 \
        --daemonize no --logfile "$work/$port/redis.log" &
    pids+=($!)
done
for port in "${ports[@]}"; do
    for _ in $(seq 1 100); do cli "$port" PING 2>/dev/null | grep -q PONG && break; sleep 0.1; done
done
nodes=()
for port in "${ports[@]}"; do nodes+=("127.0.0.1:$port"); done
timeout 60 redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes >"$work/create.log"
# Deadlines of minutes, not seconds: a loaded 2-core machine forks and loads slowly.
for port in "${ports[@]}"; do
    for _ in $(seq 1 1200); do
        cli "$port" CLUSTER INFO | grep -q 'cluster_state:ok' && break
        sleep 0.1
    done
    cli "$port" CLUSTER INFO | grep -q 'cluster_state:ok' || { echo "node $port never reached cluster_state:ok" >&2; exit 1; }
done
# The servers wait for a replica (--redis-wait-replicas 1): every replica must be in sync first.
in_sync() {
    local info
    info=$(cli "$1" INFO replication) || return 1
    if echo "$info" | grep -q 'role:master'; then
        echo "$info" | grep -q 'state=online'
    else
        echo "$info" | grep -q 'master_link_status:up'
    fi
}
for port in "${ports[@]}"; do
    for _ in $(seq 1 1200); do in_sync "$port" && break; sleep 0.1; done
    in_sync "$port" || {
        echo "node $port: its replica never came in sync" >&2
        cli "$port" INFO replication >&2 || true
        tail -20 "$work/$port/redis.log" >&2 2>/dev/null || true
        exit 1
    }
done
echo "test-cluster: 6 nodes on 127.0.0.1:${ports[0]}-${ports[5]} (3 primaries, 3 replicas)"

# The node ID and port of every primary.
primaries() { cli "${ports[0]}" CLUSTER NODES | awk '$3 ~ /master/ && $3 !~ /fail/ { split($2, a, "[:@]"); print $1, a[2] }'; }
# Three nodes turn replicas a gossip round after `--cluster create`: until the node the
# migrator asks sees exactly 3 primaries, it could pick a replica as a slot's destination.
for _ in $(seq 1 1200); do [ "$(primaries | wc -l)" = 3 ] && break; sleep 0.1; done
[ "$(primaries | wc -l)" = 3 ] || { echo "test-cluster: node ${ports[0]} never saw 3 primaries" >&2; exit 1; }

# Moves one slot from its owner to another primary, with pauses so ASK (keys already moved)
# and MOVED (clients with the old map) both happen while the suites run. $2: a node to ask.
migrate_slot() {
    local slot=$1 src_id src_port dst_id dst_port keys
    read -r src_id src_port < <(cli "$2" CLUSTER NODES | awk -v s="$slot" '$3 ~ /master/ {
        for (i = 9; i <= NF; i++) {
            if ($i ~ /^\[/) continue
            n = split($i, r, "-"); lo = r[1]; hi = (n == 2 ? r[2] : r[1])
            if (s + 0 >= lo + 0 && s + 0 <= hi + 0) { split($2, a, "[:@]"); print $1, a[2]; exit }
        } }')
    [ -n "${src_id:-}" ] || return 0
    read -r dst_id dst_port < <(primaries | awk -v p="$src_port" '$2 != p' | shuf -n 1)
    [ -n "${dst_id:-}" ] || return 0
    cli "$dst_port" CLUSTER SETSLOT "$slot" IMPORTING "$src_id" >/dev/null || return 0
    cli "$src_port" CLUSTER SETSLOT "$slot" MIGRATING "$dst_id" >/dev/null || return 0
    sleep 0.1
    for _ in $(seq 1 100); do
        mapfile -t keys < <(cli "$src_port" CLUSTER GETKEYSINSLOT "$slot" 100)
        [ "${#keys[@]}" -gt 0 ] && [ -n "${keys[0]}" ] || break
        cli "$src_port" MIGRATE 127.0.0.1 "$dst_port" "" 0 5000 REPLACE KEYS "${keys[@]}" >/dev/null || break
    done
    sleep 0.1
    cli "$dst_port" CLUSTER SETSLOT "$slot" NODE "$dst_id" >/dev/null || true
    cli "$src_port" CLUSTER SETSLOT "$slot" NODE "$dst_id" >/dev/null || true
    echo "$(date +%T.%N) $slot $src_port -> $dst_port" >>"$work/migrated"
}

# Every ~0.2 s after the last: the slot of a live stream's preview hash (any key prefix), found on a random primary.
migrate_loop() {
    while [ ! -e "$work/stop" ]; do
        read -r _ port < <(primaries | shuf -n 1) || true
        if [ -n "${port:-}" ]; then
            key=$(cli "$port" --scan --pattern '*{s:*}:preview' 2>/dev/null | shuf -n 1 || true)
            if [ -n "$key" ]; then
                migrate_slot "$(cli "$port" CLUSTER KEYSLOT "$key")" "$port" || true
            fi
        fi
        sleep 0.2
    done
}
touch "$work/migrated"
migrate_loop >"$work/migrate.log" 2>&1 &
migrator=$!

mkdir -p "$work/logs"
status=0
for pass in $(seq 1 "${CLUSTER_PASSES:-2}"); do
    echo "test-cluster: pass $pass"
    STREAMPREVIEW_REDIS_WAIT_REPLICAS=1 \
        STREAMPREVIEW_TEST_REDIS_URL="redis-cluster://127.0.0.1:${ports[0]},127.0.0.1:${ports[1]},127.0.0.1:${ports[2]}" \
        STREAMPREVIEW_TEST_KEEP_LOGS="$work/logs" \
        swift test --skip-build --filter "$suites" "$@" || status=$?
done

# `sweep` on the cluster: lease, claim and settle scripts on {gc}, collect on a stream's slot.
mkdir -p "$work/sweep-data"
if ! sweep_out=$("$(swift build --show-bin-path)/streampreview" sweep --data-dir "$work/sweep-data" \
    --redis "redis-cluster://127.0.0.1:${ports[0]}" --key-prefix sweep-smoke 2>&1); then
    echo "test-cluster: streampreview sweep against the cluster failed: $sweep_out" >&2
    status=1
fi

touch "$work/stop"
wait "$migrator" 2>/dev/null || true
migrator=""
moved=0
ask=0
tryagain=0
while read -r line; do
    for field in $line; do
        case "$field" in
        moved=*) moved=$((moved + ${field#moved=})) ;;
        ask=*) ask=$((ask + ${field#ask=})) ;;
        tryagain=*) tryagain=$((tryagain + ${field#tryagain=})) ;;
        esac
    done
done < <(cat "$work"/logs/*.log 2>/dev/null | grep 'event=redis_cluster_redirects' || true)
servers=$(cat "$work"/logs/*.log 2>/dev/null | grep -c 'event=redis_cluster_redirects' || true)
echo "test-cluster: $(wc -l <"$work/migrated") slot migrations; $servers servers followed MOVED $moved, ASK $ask, TRYAGAIN $tryagain"
errors=$(cat "$work"/logs/*.log 2>/dev/null | grep -E 'event=(internal_error|redis_unavailable)' || true)
if [ -n "$errors" ]; then
    echo "test-cluster: $(echo "$errors" | wc -l) Redis errors the servers logged (503 redis_unavailable, 500 internal_error):" >&2
    echo "$errors" | sed 's/^/  /' | head -20 >&2
fi
if echo "$errors" | grep -q 'event=internal_error'; then
    echo "test-cluster: a server answered 500" >&2
    [ "$status" -ne 0 ] || status=1
fi
echo "test-cluster: $((SECONDS - started)) s"
if [ "$status" -ne 0 ]; then
    rm -rf "$repo/.build/test-cluster-failed"
    cp -r "$work" "$repo/.build/test-cluster-failed" 2>/dev/null || true
    echo "test-cluster: swift test failed ($status); node and server logs in .build/test-cluster-failed" >&2
    exit "$status"
fi
