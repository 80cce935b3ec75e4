#!/usr/bin/env bash
# Checks the image `make image` built (IMAGE, default localhost/streampreview:latest) and fails on
# the first problem (`make test-image`):
#   - its metadata: ENTRYPOINT ["streampreview"], CMD ["serve"], a non-root user;
#   - `streampreview --help` in it lists the commands, `serve --help` the settings;
#   - every shared library the binary loads is in the image (ldd finds them all);
#   - the default command runs as the pods do (read-only root file system, a tmpfs /tmp holding
#     the data dir, the image's non-root user): serve on the embedded defaults, its own
#     redis-server included, answers /readyz, and on SIGTERM exits 0.
# Needs root and podman (scripts/install-deps.sh image); the last check talks to the container on
# loopback (host network) with curl.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
image="${IMAGE:-localhost/streampreview:latest}"
# shellcheck source=lib/podman.sh
source "$repo/scripts/lib/podman.sh"
podman_setup

command -v podman >/dev/null || { echo "test-image: podman missing (scripts/install-deps.sh image)" >&2; exit 69; }
podman image exists "$image" || { echo "test-image: no image $image (make image)" >&2; exit 69; }

failed=0
fail() { echo "FAIL $*" >&2; failed=1; }
run() { "${PODMAN[@]}" run --rm "${PODMAN_LIMITS[@]}" --network none "$@"; }

# Metadata.
entrypoint="$(podman image inspect --format '{{json .Config.Entrypoint}}' "$image")"
cmd="$(podman image inspect --format '{{json .Config.Cmd}}' "$image")"
user="$(podman image inspect --format '{{.Config.User}}' "$image")"
[ "$entrypoint" = '["streampreview"]' ] || fail "ENTRYPOINT is $entrypoint, not [\"streampreview\"]"
[ "$cmd" = '["serve"]' ] || fail "CMD is $cmd, not [\"serve\"]"
case "$user" in "" | 0 | 0:* | root | root:*) fail "the image runs as root (User '$user')" ;; esac
[ "$failed" = 0 ] && echo "ok   image $image: ENTRYPOINT $entrypoint, CMD $cmd, User $user"

# streampreview --help.
if help="$(run "$image" --help 2>&1)"; then
  for command in serve sweep token upload presign; do
    grep -Eq "^  $command " <<<"$help" || fail "streampreview --help does not list '$command'"
  done
  grep -q '^Usage: streampreview <command>' <<<"$help" || fail "streampreview --help has no usage line"
else
  fail "streampreview --help exited non-zero: $help"
fi
if serve_help="$(run "$image" serve --help 2>&1)"; then
  grep -q '\[env STREAMPREVIEW_REDIS_URL\]' <<<"$serve_help" || fail "serve --help does not name STREAMPREVIEW_REDIS_URL"
else
  fail "streampreview serve --help exited non-zero"
fi
[ "$failed" = 0 ] && echo "ok   streampreview --help lists serve, sweep, token, upload, presign; serve --help its settings"

# Shared libraries.
if libraries="$(run --entrypoint ldd "$image" /usr/local/bin/streampreview 2>&1)"; then
  if grep -q 'not found' <<<"$libraries"; then
    fail "libraries missing in the image: $(grep 'not found' <<<"$libraries" | tr -s ' \t\n' ' ')"
  else
    echo "ok   ldd: $(awk '/=>/ {print $1}' <<<"$libraries" | tr '\n' ' ')"
  fi
else
  fail "ldd in the image: $libraries"
fi

# The default command, locked down as in deploy/kubernetes/serve.yaml.
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
name="streampreview-test-image-$$"
cleanup() { "${PODMAN[@]}" rm -f --time 0 "$name" >/dev/null 2>&1 || true; }
trap cleanup EXIT
"${PODMAN[@]}" run -d --name "$name" "${PODMAN_LIMITS[@]}" --network host --read-only --tmpfs /tmp:rw,mode=1777 \
  -e STREAMPREVIEW_HOST=127.0.0.1 -e STREAMPREVIEW_PORT="$port" -e STREAMPREVIEW_DATA_DIR=/tmp/streampreview \
  "$image" >/dev/null
ready=""
deadline=$((SECONDS + 60))
while [ $SECONDS -lt $deadline ]; do
  if [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/readyz")" = 200 ]; then
    ready=1
    break
  fi
  [ "$(podman inspect --format '{{.State.Running}}' "$name")" = true ] || break
  sleep 0.2
done
if [ -z "$ready" ]; then
  fail "serve in the image never answered /readyz 200 on port $port; its log:"
  podman logs "$name" >&2 || true
else
  "${PODMAN[@]}" stop --time 30 "$name" >/dev/null
  status="$(podman inspect --format '{{.State.ExitCode}}' "$name")"
  if [ "$status" = 0 ]; then
    echo "ok   serve (embedded Redis, read-only root, user $user) answered /readyz 200, exited 0 on SIGTERM"
  else
    fail "serve exited $status on SIGTERM; its log:"
    podman logs "$name" >&2 || true
  fi
fi

if [ "$failed" != 0 ]; then
  echo "test-image: $image failed (above)" >&2
  exit 1
fi
echo "test-image: $image ok"
