#!/usr/bin/env bash
# Creates .build/conformance-venv with the pinned official SDKs (boto3/botocore,
# google-cloud-storage, google-auth) from PyPI, for the presign conformance suite.
# Idempotent: a complete venv (stamped with its requirements) is left alone.
# Usage: scripts/conformance/setup-venv.sh [VENV_DIR]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$root/scripts/lib/pinned-venv.sh"
pinned_venv "${1:-$root/.build/conformance-venv}" "$here/requirements.txt" CONFORMANCE_PYTHON \
  /root/.pyenv/versions/3.11.*/bin/python3 "$HOME"/.pyenv/versions/3.11.*/bin/python3 python3.11 python3
