#!/usr/bin/env bash
# Runs LocalStack's S3 in the foreground on 127.0.0.1:PORT with signature validation ON
# (S3_SKIP_SIGNATURE_VALIDATION=0): bad signatures, wrong hosts and expired URLs get 403.
#   start-localstack.sh PORT STATE_DIR
# Run it inside a network namespace with only loopback (scripts/test-s3.sh does): LocalStack
# tries to reach the internet at start (analytics, downloads), and must not. It refuses to
# start where any interface other than lo exists, unless S3_TEST_ALLOW_NETWORK=1.
set -euo pipefail
port="${1:?usage: start-localstack.sh PORT STATE_DIR}"
state="${2:?usage: start-localstack.sh PORT STATE_DIR}"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${S3_TEST_VENVS:-$repo/.build/s3-test-venvs}/localstack"

others=$(ip -o link show | awk -F": " '{print $2}' | grep -v "^lo$" | tr "\n" " " || true)
if [[ -n "$others" && "${S3_TEST_ALLOW_NETWORK:-0}" != 1 ]]; then
    echo "start-localstack.sh: interfaces besides lo exist ($others); run inside 'unshare --net' (see scripts/test-s3.sh)" >&2
    exit 69
fi
[[ -x "$venv/bin/python" ]] || { echo "no $venv; run scripts/s3-test-servers/setup-venvs.sh localstack" >&2; exit 69; }
mkdir -p "$state"

# Offline, S3 only, plain settings (LocalStack's config.py):
#   GATEWAY_SERVER=hypercorn  the default twisted gateway needs service_identity for its TLS side
#   DISABLE_EVENTS=1          no analytics events; SKIP_INFRA_DOWNLOADS / SKIP_SSL_CERT_DOWNLOAD: no downloads
#   DNS_ADDRESS=0             no DNS server of its own; EAGER_SERVICE_LOADING=1: S3 ready when healthy
export GATEWAY_SERVER=hypercorn GATEWAY_LISTEN="127.0.0.1:$port" LOCALSTACK_HOST="127.0.0.1:$port" \
    SERVICES=s3 EAGER_SERVICE_LOADING=1 S3_SKIP_SIGNATURE_VALIDATION=0 PERSISTENCE=0 \
    DISABLE_EVENTS=1 SKIP_INFRA_DOWNLOADS=1 SKIP_SSL_CERT_DOWNLOAD=1 DNS_ADDRESS=0 \
    LOCALSTACK_VOLUME_DIR="$state/volume" FILESYSTEM_ROOT="$state/fs" TMPDIR="$state" \
    AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1
cd "$state"
exec "$venv/bin/python" -m localstack.runtime.main
