#!/usr/bin/env bash
# Creates .build/conformance-venv with the pinned official SDKs (boto3/botocore,
# google-cloud-storage, google-auth) from PyPI, for the presign conformance suite.
# Idempotent: a complete venv (stamped with its requirements) is left alone.
# Usage: scripts/conformance/setup-venv.sh [VENV_DIR]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../lib/pinned-venv.sh"
pinned_venv_beside "$here" conformance CONFORMANCE_PYTHON "${1:-}"
