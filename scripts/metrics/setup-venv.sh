#!/usr/bin/env bash
# Creates .build/metrics-venv with the pinned official Prometheus Python client from PyPI, whose
# parser the metrics end-to-end tests run on a scrape.
# Idempotent: a complete venv (marked by .ready) is left alone.
# Usage: scripts/metrics/setup-venv.sh [VENV_DIR]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${1:-$root/.build/metrics-venv}"
requirements="$here/requirements.txt"

# Stamp the venv with the requirements it was built from, so a changed pin rebuilds it.
stamp="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [ -f "$venv/.ready" ] && [ "$(cat "$venv/.ready")" = "$stamp" ]; then
  exit 0
fi

python=""
for candidate in "${METRICS_PYTHON:-}" python3; do
  [ -n "$candidate" ] || continue
  if command -v "$candidate" >/dev/null 2>&1 &&
    "$candidate" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 9) else 1)' 2>/dev/null; then
    python="$candidate"
    break
  fi
done
if [ -z "$python" ]; then
  echo "setup-venv: no Python >= 3.9 with the venv module (set METRICS_PYTHON)" >&2
  exit 69
fi

rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
echo "setup-venv: creating $venv with $("$python" --version 2>&1)" >&2
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
  --require-virtualenv -r "$requirements"
echo "$stamp" >"$venv/.ready"
echo "setup-venv: ready" >&2
