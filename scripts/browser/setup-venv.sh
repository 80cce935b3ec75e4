#!/usr/bin/env bash
# Creates .build/browser-venv with the pinned selenium from PyPI, for scripts/test-browser.sh.
# Idempotent: a complete venv (stamped with its requirements) is left alone.
# Usage: scripts/browser/setup-venv.sh [VENV_DIR]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../lib/pinned-venv.sh"
pinned_venv_beside "$here" browser BROWSER_PYTHON "${1:-}"
