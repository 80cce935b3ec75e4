#!/usr/bin/env bash
# Creates .build/metrics-venv with the pinned official Prometheus Python client from PyPI, whose
# parser the metrics end-to-end tests run on a scrape.
# Idempotent: a complete venv (stamped with its requirements) is left alone.
# Usage: scripts/metrics/setup-venv.sh [VENV_DIR]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$root/scripts/lib/pinned-venv.sh"
pinned_venv "${1:-$root/.build/metrics-venv}" "$here/requirements.txt" METRICS_PYTHON python3
