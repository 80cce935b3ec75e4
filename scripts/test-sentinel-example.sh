#!/usr/bin/env bash
# Runs deploy/kubernetes/redis-sentinel.yaml's Redis as containers and `serve` from the image
# against it, the way the manifests wire them (`make test-image`), and fails on the first problem:
#   - the data nodes (a primary and a replica) and three sentinels, each started by the
#     ConfigMap's start script with its pod's host name and DNS name, the password from
#     streampreview-redis-auth, its /data kept across a restart as a volume claim. A podman network
#     with fixed addresses and every pod's name in each container's /etc/hosts stands in for the
#     headless Services: as there (publishNotReadyAddresses), a dead pod's name still resolves.
#     (podman's own DNS drops a dead container's name and forwards the lookup upstream, which can
#     hang here: the sentinels then block, enter TILT mode and delay the failover by 30 s or more.)
#   - the sentinels agree on streampreview-redis-0 as the primary, with its replica and 2 peers;
#   - serve, given streampreview-secrets' STREAMPREVIEW_REDIS_URL and the ConfigMap's
#     STREAMPREVIEW_REDIS_WAIT_REPLICAS, answers an end of stream (a write that waits for a
#     replica) with 204;
#   - the primary is killed: the sentinels promote the replica; the killed node is started again
#     once they have (as its StatefulSet would) and rejoins as the replica; the same write
#     succeeds again without restarting serve, with no 500 on the way (503s while no replica can
#     confirm it, WAIT 1; the counts and seconds are printed).
# This image has no redis-sentinel command (the manifests' redis image has): a two-line wrapper
# running `redis-server --sentinel` stands in.
# Needs root, podman with bridge networking, the image (make image), curl, and .build/deploy-venv
# (made here as scripts/test-deploy.sh makes it) to read the YAML. EXAMPLE_SUBNET (10.233.77)
# picks the network's /24 when that one is taken.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
image="${IMAGE:-localhost/streampreview:latest}"
# shellcheck source=lib/podman.sh
source "$repo/scripts/lib/podman.sh"
podman_setup

# shellcheck source=lib/pinned-venv.sh
source "$repo/scripts/lib/pinned-venv.sh"
pinned_venv "$repo/.build/deploy-venv" "$repo/scripts/deploy-check/requirements.txt" DEPLOY_CHECK_PYTHON python3
podman image exists "$image" || { echo "test-sentinel-example: no image $image (make image)" >&2; exit 69; }

scratch="$(mktemp -d)"
network="streampreview-example-$$"
containers=()
cleanup() {
  for container in "${containers[@]}"; do "${PODMAN[@]}" rm -f --time 0 "$container" >/dev/null 2>&1 || true; done
  podman network rm -f "$network" >/dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT

# The files and values the manifests hold.
"$repo/.build/deploy-venv/bin/python" - "$repo/deploy/kubernetes" "$scratch" <<'PY'
import sys
from pathlib import Path

import yaml

folder, out = Path(sys.argv[1]), Path(sys.argv[2])
documents = [doc for path in sorted(folder.glob("*.yaml")) for doc in yaml.safe_load_all(path.read_text()) if doc]


def find(kind, name):
    return next(doc for doc in documents if doc["kind"] == kind and doc["metadata"]["name"] == name)


(out / "config").mkdir()
for key, value in find("ConfigMap", "streampreview-redis-config")["data"].items():
    (out / "config" / key).write_text(value)
(out / "password").write_text(find("Secret", "streampreview-redis-auth")["stringData"]["REDIS_PASSWORD"])
secrets = find("Secret", "streampreview-secrets")["stringData"]
(out / "url").write_text(secrets["STREAMPREVIEW_REDIS_URL"])
(out / "token-secret").write_text(secrets["STREAMPREVIEW_TOKEN_SECRET"])
(out / "wait-replicas").write_text(find("ConfigMap", "streampreview-config")["data"]["STREAMPREVIEW_REDIS_WAIT_REPLICAS"])
(out / "data-nodes").write_text(str(find("StatefulSet", "streampreview-redis")["spec"]["replicas"]))
PY
password="$(cat "$scratch/password")"
nodes="$(cat "$scratch/data-nodes")"
printf '#!/bin/sh\nexec redis-server "$@" --sentinel\n' >"$scratch/redis-sentinel"
chmod 0755 "$scratch/redis-sentinel"
chmod -R a+rX "$scratch"

# A run killed with -9 leaves its containers and network behind, and the network holds the subnet:
# remove those of runs whose process is gone (the name ends in the run's process ID).
for stale in $(podman network ls --format '{{.Name}}' | sed -n 's/^streampreview-example-\([0-9][0-9]*\)$/\1/p'); do
  if [ "$stale" != "$$" ] && ! kill -0 "$stale" 2>/dev/null; then
    echo "test-sentinel-example: removing the network and containers a killed run $stale left"
    podman network rm -f "streampreview-example-$stale" >/dev/null
  fi
done
subnet="${EXAMPLE_SUBNET:-10.233.77}"
podman network create --disable-dns --subnet "$subnet.0/24" "$network" >/dev/null
declare -A address
hosts=()
for ((i = 0; i < nodes; i++)); do
  address["streampreview-redis-$i"]="$subnet.$((10 + i))"
  hosts+=(--add-host "streampreview-redis-$i.streampreview-redis:$subnet.$((10 + i))")
done
for i in 0 1 2; do
  address["streampreview-sentinel-$i"]="$subnet.$((20 + i))"
  hosts+=(--add-host "streampreview-sentinel-$i.streampreview-sentinel:$subnet.$((20 + i))")
done

# start POD SCRIPT WRITABLE_DIR: one pod of a StatefulSet, as its manifest runs it.
start() {
  local pod="$1" script="$2" writable="$3"
  containers+=("$pod-$$")
  # /data outlives a restart, as the volume claim does.
  mkdir -m 0777 "$scratch/$pod"
  "${PODMAN[@]}" run -d --name "$pod-$$" --hostname "$pod" --network "$network" --ip "${address[$pod]}" "${hosts[@]}" \
    "${PODMAN_LIMITS[@]}" --read-only --tmpfs "$writable:rw,mode=1777" -v "$scratch/$pod:/data" \
    -v "$scratch/config:/config:ro" -v "$scratch/redis-sentinel:/usr/local/bin/redis-sentinel:ro" \
    -e REDIS_PASSWORD="$password" -e REDISCLI_AUTH="$password" \
    --entrypoint /bin/sh "$image" "/config/$script" >/dev/null
}
cli() { local pod="$1"; shift; "${PODMAN[@]}" exec "$pod-$$" redis-cli "$@" 2>/dev/null; }
# wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND until it succeeds.
wait_for() {
  local seconds="$1" what="$2" deadline
  shift 2
  deadline=$((SECONDS + seconds))
  until "$@"; do
    if [ $SECONDS -ge $deadline ]; then
      echo "FAIL $what within $seconds s; logs:" >&2
      for container in "${containers[@]}"; do echo "--- $container" >&2; podman logs --tail 15 "$container" >&2 || true; done
      exit 1
    fi
    sleep 0.5
  done
}
pong() { [ "$(cli "$1" PING)" = PONG ]; }
field() { cli "$1" -p 26379 SENTINEL master streampreview | awk -v key="$2" 'found { print; exit } $0 == key { found = 1 }'; }
agreed() {
  local i
  for i in 0 1 2; do
    [ "$(field "streampreview-sentinel-$i" ip)" = "$1" ] &&
      [ "$(field "streampreview-sentinel-$i" num-slaves)" = $((nodes - 1)) ] &&
      [ "$(field "streampreview-sentinel-$i" num-other-sentinels)" = 2 ] || return 1
  done
}

# Data nodes in order (podManagementPolicy OrderedReady), then the sentinels.
for ((i = 0; i < nodes; i++)); do
  start "streampreview-redis-$i" start-redis.sh /run/redis
  wait_for 30 "streampreview-redis-$i answers PING" pong "streampreview-redis-$i"
done
for i in 0 1 2; do start "streampreview-sentinel-$i" start-sentinel.sh /run/sentinel; done
first="streampreview-redis-0.streampreview-redis"
wait_for 60 "the sentinels agree on $first with $((nodes - 1)) replicas and 2 peers" agreed "$first"
echo "ok   sentinels agree: primary $first, $((nodes - 1)) replica(s), 3 sentinels"

# serve as serve.yaml runs it (local store: no bucket here).
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
containers+=("streampreview-api-$$")
"${PODMAN[@]}" run -d --name "streampreview-api-$$" --network "$network" --ip "$subnet.30" "${hosts[@]}" \
  -p "127.0.0.1:$port:8080" \
  "${PODMAN_LIMITS[@]}" --read-only --tmpfs /tmp:rw,mode=1777 \
  -e STREAMPREVIEW_HOST=0.0.0.0 -e STREAMPREVIEW_PORT=8080 -e STREAMPREVIEW_DATA_DIR=/tmp/streampreview \
  -e STREAMPREVIEW_SWEEP_INTERVAL=0 -e STREAMPREVIEW_REDIS_URL="$(cat "$scratch/url")" \
  -e STREAMPREVIEW_REDIS_WAIT_REPLICAS="$(cat "$scratch/wait-replicas")" \
  -e STREAMPREVIEW_TOKEN_SECRET="$(cat "$scratch/token-secret")" "$image" >/dev/null
token="$("${PODMAN[@]}" run --rm --network none "${PODMAN_LIMITS[@]}" \
  -e STREAMPREVIEW_TOKEN_SECRET="$(cat "$scratch/token-secret")" "$image" token --sub alice --role streamer --stream 42)"
end_stream() {
  curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X DELETE -H "Authorization: Bearer $token" \
    "http://127.0.0.1:$port/api/preview/42" || echo 000
}
ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/readyz")" = 200 ]; }
wait_for 60 "serve answers /readyz 200 through the sentinels" ready
status="$(end_stream)"
[ "$status" = 204 ] || { echo "FAIL end of stream before the failover answered $status, not 204" >&2; exit 1; }
echo "ok   serve reaches the primary through $(cat "$scratch/url" | sed 's#//[^@]*@#//***@#'): end of stream 204"

# Failover: the primary dies; the write is retried until it succeeds again. Once the sentinels
# have switched, the dead node starts again (its StatefulSet's restart) and rejoins as replica.
"${PODMAN[@]}" kill "streampreview-redis-0-$$" >/dev/null
killed=$SECONDS
answers=""
promoted_after=""
deadline=$((SECONDS + 90))
while [ $SECONDS -lt $deadline ]; do
  status="$(end_stream)"
  answers+=" $status"
  promoted="$(field streampreview-sentinel-1 ip)"
  if [ -z "$promoted_after" ] && [ -n "$promoted" ] && [ "$promoted" != "$first" ]; then
    promoted_after=$((SECONDS - killed))
    "${PODMAN[@]}" start "streampreview-redis-0-$$" >/dev/null
  fi
  [ "$status" = 204 ] && [ -n "$promoted_after" ] && break
  sleep 0.2
done
recovered=$((SECONDS - killed))
count() { tr ' ' '\n' <<<"$answers" | grep -c "^$1\$" || true; }
if [ "$status" != 204 ] || [ "$promoted" = "$first" ]; then
  echo "FAIL no failover within 90 s (primary $promoted, answers:$(tr ' ' '\n' <<<"$answers" | sort | uniq -c | tr -s ' \n' ' '))" >&2
  exit 1
fi
if [ "$(count 500)" != 0 ]; then
  echo "FAIL $(count 500) answers 500 during the failover" >&2
  exit 1
fi
echo "ok   failover to $promoted (sentinels switched ${promoted_after} s after the kill, the old primary then" \
  "restarted): end of stream 204 again $recovered s after the kill, without restarting serve;" \
  "$(count 503) answers 503, $(count 204) 204, $(count 000) no answer, 0 500"
echo "test-sentinel-example: the Sentinel example and serve work together"
