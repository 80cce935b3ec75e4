#!/usr/bin/env bash
# Creates .build/docs-venv with the pinned mkdocs from PyPI, for scripts/docs/build.sh.
# Idempotent: a complete venv (stamped with its requirements) is left alone.
# Usage: scripts/docs/setup-venv.sh [VENV_DIR]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../lib/pinned-venv.sh"
pinned_venv_beside "$here" docs DOCS_PYTHON "${1:-}"
