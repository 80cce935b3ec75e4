#!/usr/bin/env bash
# Creates .build/openapi-venv with the pinned openapi-spec-validator and schemathesis from PyPI,
# for scripts/test-openapi.sh.
# Idempotent: a complete venv (stamped with its requirements) is left alone.
# Usage: scripts/openapi/setup-venv.sh [VENV_DIR]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$root/scripts/lib/pinned-venv.sh"
pinned_venv "${1:-$root/.build/openapi-venv}" "$here/requirements.txt" OPENAPI_PYTHON \
  /root/.pyenv/versions/3.11.*/bin/python3 "$HOME"/.pyenv/versions/3.11.*/bin/python3 python3.11 python3
