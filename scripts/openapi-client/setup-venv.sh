#!/usr/bin/env bash
# Creates .build/openapi-client-venv with the pinned openapi-python-client (and the httpx and attrs
# its generated clients import) from PyPI, for scripts/test-openapi-client.sh.
# Idempotent: a complete venv (stamped with its requirements) is left alone.
# Usage: scripts/openapi-client/setup-venv.sh [VENV_DIR]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../lib/pinned-venv.sh"
pinned_venv_beside "$here" openapi-client OPENAPI_CLIENT_PYTHON "${1:-}"
