#!/usr/bin/env bash
# Checks that a client generated from the served API description works whole (part of
# `make test`, after scripts/test-openapi.sh):
#   1. The built binary serves on loopback (a private data dir: embedded Redis, local store) with
#      the write rate-limit class at 1 request an hour and a moderation hook on loopback
#      (scripts/openapi-client/refusing_hook.py) that refuses stream 3's previews.
#   2. openapi-python-client generates a Python client from GET /api/openapi.yaml of that serve
#      (with scripts/openapi-client/config.yaml: protobuf bodies as bytes, the YAML document as
#      text). Any warning fails the run: each is a part of the document the generator could not
#      turn into code (a schema removed, a response left out). The count is printed.
#   3. scripts/openapi-client/flow.py drives the API through the generated client: upload URLs,
#      both PUTs to the signed URLs, commit, the feed, a like; and 409 object_missing, 429
#      rate_limited and 422 rejected_by_hook, each decoded as its typed error model.
# Tools: .build/openapi-client-venv from scripts/openapi-client/requirements.txt (PyPI once;
# rebuilt when the pins change), ffmpeg and redis-server (scripts/install-deps.sh test), and the
# built binary (STREAMPREVIEW_BIN, default .build/debug/streampreview).
#   scripts/test-openapi-client.sh
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
binary="${STREAMPREVIEW_BIN:-$repo/.build/debug/streampreview}"
venv="$repo/.build/openapi-client-venv"
here="$repo/scripts/openapi-client"

[ -x "$binary" ] || { echo "test-openapi-client: $binary missing (swift build first, or set STREAMPREVIEW_BIN)" >&2; exit 69; }
command -v ffmpeg >/dev/null || { echo "test-openapi-client: ffmpeg missing (scripts/install-deps.sh test)" >&2; exit 69; }
"$here/setup-venv.sh" "$venv"

source "$repo/scripts/lib/loopback-serve.sh"
scratch="$(mktemp -d)"
hook_pid=""
cleanup() {
  serve_stop
  if [ -n "$hook_pid" ] && kill -0 "$hook_pid" 2>/dev/null; then
    kill -TERM "$hook_pid"
    wait "$hook_pid" || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

"$venv/bin/python" "$here/refusing_hook.py" "$scratch/hook.port" 3 &
hook_pid=$!
deadline=$((SECONDS + 30))
until [ -s "$scratch/hook.port" ]; do
  if ! kill -0 "$hook_pid" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
    echo "test-openapi-client: the hook did not start" >&2
    exit 1
  fi
  sleep 0.1
done
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$scratch/hook.secret"

serve_start test-openapi-client "$binary" "$scratch" \
  --rate-limit write=1/1h \
  --commit-hook-url "http://127.0.0.1:$(cat "$scratch/hook.port")/hook" \
  --commit-hook-secret-file "$scratch/hook.secret"

# The generator runs ruff (from the venv) over what it writes.
echo "test-openapi-client: openapi-python-client generate from $SERVE_BASE/api/openapi.yaml" >&2
PATH="$venv/bin:$PATH" "$venv/bin/python" "$here/generate.py" "$SERVE_BASE/api/openapi.yaml" \
  "$here/config.yaml" "$scratch/client/streampreview_client"

token() { "$binary" token --data-dir "$scratch/data" "$@"; }
streamer="$(token --sub client-streamer --role streamer --stream 2 --stream 3)"
viewer="$(token --sub client-viewer --role viewer)"
preview_media "$scratch"
"$venv/bin/python" "$here/flow.py" "$scratch/client" "$SERVE_BASE" "$streamer" "$viewer" \
  "$scratch/clip.mp4" "$scratch/thumb.jpg"
echo "test-openapi-client: the generated client kept every response and drove the whole flow" >&2
