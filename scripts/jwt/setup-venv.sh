#!/usr/bin/env bash
# Creates .build/jwt-venv with the pinned PyJWT and cryptography from PyPI, for the
# identity-provider token tests. Idempotent: a complete venv (stamped with its requirements)
# is left alone.
# Usage: scripts/jwt/setup-venv.sh [VENV_DIR]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$root/scripts/lib/pinned-venv.sh"
pinned_venv "${1:-$root/.build/jwt-venv}" "$here/requirements.txt" JWT_PYTHON \
  /root/.pyenv/versions/3.11.*/bin/python3 "$HOME"/.pyenv/versions/3.11.*/bin/python3 python3.11 python3
