#!/usr/bin/env bash
# Creates .build/openapi-venv with the pinned openapi-spec-validator and schemathesis from PyPI,
# for scripts/test-openapi.sh.
# Idempotent: a complete venv (stamped with its requirements) is left alone.
# Usage: scripts/openapi/setup-venv.sh [VENV_DIR]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../lib/pinned-venv.sh"
pinned_venv_beside "$here" openapi OPENAPI_PYTHON "${1:-}"
