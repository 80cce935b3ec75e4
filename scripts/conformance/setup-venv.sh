#!/usr/bin/env bash
# Creates .build/conformance-venv with the pinned official SDKs (boto3/botocore,
# google-cloud-storage, google-auth) from PyPI, for the presign conformance suite.
# Idempotent: a complete venv (marked by .ready) is left alone.
# Usage: scripts/conformance/setup-venv.sh [VENV_DIR]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${1:-$root/.build/conformance-venv}"
requirements="$here/requirements.txt"

# Stamp the venv with the requirements it was built from, so a changed pin rebuilds it.
stamp="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [ -f "$venv/.ready" ] && [ "$(cat "$venv/.ready")" = "$stamp" ]; then
  exit 0
fi

python=""
for candidate in "${CONFORMANCE_PYTHON:-}" /root/.pyenv/versions/3.11.*/bin/python3 \
  "$HOME"/.pyenv/versions/3.11.*/bin/python3 python3.11 python3; do
  [ -n "$candidate" ] || continue
  if command -v "$candidate" >/dev/null 2>&1 &&
    "$candidate" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 9) else 1)' 2>/dev/null; then
    python="$candidate"
    break
  fi
done
if [ -z "$python" ]; then
  echo "setup-venv: no Python >= 3.9 with the venv module (set CONFORMANCE_PYTHON)" >&2
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
