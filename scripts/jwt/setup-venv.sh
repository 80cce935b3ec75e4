#!/usr/bin/env bash
# Creates .build/jwt-venv with the pinned PyJWT and cryptography from PyPI, for the
# identity-provider token tests. Idempotent: a complete venv (stamped with its requirements)
# is left alone.
# Usage: scripts/jwt/setup-venv.sh [VENV_DIR]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../lib/pinned-venv.sh"
pinned_venv_beside "$here" jwt JWT_PYTHON "${1:-}"
