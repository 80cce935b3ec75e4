#!/usr/bin/env bash
# Checks the API against its contract, proto/openapi.yaml (part of `make test`, after the build):
#   1. openapi-spec-validator validates the document (OpenAPI 3.1).
#   2. The built binary serves on loopback with a private data dir (embedded Redis, local store),
#      one preview is published through `streampreview upload` (a 1 s clip made with ffmpeg), so
#      the feed, likes and seen marks have a live stream to answer about.
#   3. schemathesis runs every check (`--checks all`: no 5xx, documented status codes, content
#      types, response schemas and headers, negative data refused, unsupported methods 405 with
#      Allow, auth not ignored, ...) with positive and negative data, once with a streamer token
#      and once with a viewer token, the event stream (GET /api/feed/events) included: each event
#      it reads is validated against the document (scripts/openapi/schemathesis.toml bounds how
#      long a stream is read). Reproducible: `--generation-deterministic` (Hypothesis
#      derandomized, no example database: the same cases every run, so no `--seed`); bounded by
#      `--max-examples` per operation (OPENAPI_MAX_EXAMPLES). Ends with each run's count of cases.
# Any failure exits non-zero; schemathesis's report (JUnit) stays in .build/openapi-report.
# Tools: .build/openapi-venv from scripts/openapi/requirements.txt (PyPI once; rebuilt when the
# pins change), ffmpeg and redis-server (scripts/install-deps.sh test), and the built binary
# (STREAMPREVIEW_BIN, default .build/debug/streampreview).
#   scripts/test-openapi.sh
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
binary="${STREAMPREVIEW_BIN:-$repo/.build/debug/streampreview}"
venv="$repo/.build/openapi-venv"
report="$repo/.build/openapi-report"
max_examples="${OPENAPI_MAX_EXAMPLES:-100}"

[ -x "$binary" ] || { echo "test-openapi: $binary missing (swift build first, or set STREAMPREVIEW_BIN)" >&2; exit 69; }
command -v ffmpeg >/dev/null || { echo "test-openapi: ffmpeg missing (scripts/install-deps.sh test)" >&2; exit 69; }
"$repo/scripts/openapi/setup-venv.sh" "$venv"

echo "test-openapi: openapi-spec-validator proto/openapi.yaml" >&2
"$venv/bin/openapi-spec-validator" "$repo/proto/openapi.yaml"

source "$repo/scripts/lib/loopback-serve.sh"
scratch="$(mktemp -d)"
cleanup() {
  serve_stop
  rm -rf "$scratch"
}
trap cleanup EXIT

serve_start test-openapi "$binary" "$scratch"
base="$SERVE_BASE"

# Stream 1, the smallest ID (which schemathesis tries first), is published by a streamer of its own
# and stays live throughout: likes, seen marks and the feed answer about it. The streamer the
# tests run with owns 2 and the largest ID, so its uploads and ends of stream succeed there.
token() { "$binary" token --data-dir "$scratch/data" "$@"; }
publisher="$(token --sub openapi-publisher --role streamer --stream 1)"
streamer="$(token --sub openapi-streamer --role streamer --stream 2 --stream 9223372036854775807)"
viewer="$(token --sub openapi-viewer --role viewer)"

preview_media "$scratch"
STREAMPREVIEW_TOKEN="$publisher" "$binary" upload --server "$base" --stream 1 \
  "$scratch/clip.mp4" "$scratch/thumb.jpg" >/dev/null

# GET /api/feed/events is tested too: scripts/openapi/schemathesis.toml bounds how long each of its
# streams is read, and every event read is validated against the document.
failed=0
summaries=()
mkdir -p "$report"
for who in streamer viewer; do
  echo "test-openapi: schemathesis with the $who token" >&2
  # Run from the report folder: Hypothesis and schemathesis keep working files in the current one.
  if ! (cd "$report" && "$venv/bin/st" --no-color --config-file "$repo/scripts/openapi/schemathesis.toml" \
    run "$repo/proto/openapi.yaml" --url "$base" \
    --header "Authorization: Bearer ${!who}" \
    --checks all --mode all --max-examples "$max_examples" \
    --generation-deterministic \
    --workers 1 --request-timeout 10 \
    --report junit --report-junit-path "$report/$who.xml") | tee "$scratch/$who.log"; then
    failed=1
  fi
  summaries+=("$who token: $({ grep -A1 '^Test cases:' "$scratch/$who.log" || true; } | tail -1 | sed 's/^ *//')")
done
printf 'test-openapi: schemathesis, %s\n' "${summaries[@]}" >&2

if [ "$failed" -ne 0 ]; then
  echo "test-openapi: schemathesis found failures (above; JUnit reports in ${report#"$repo"/})" >&2
  exit 1
fi
echo "test-openapi: proto/openapi.yaml valid; schemathesis: 0 failures with either token" >&2
