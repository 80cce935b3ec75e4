#!/usr/bin/env bash
# Installs the Debian packages StreamPreview builds, runs and tests with.
# Usage: scripts/install-deps.sh run|test
# Already installed packages are skipped; installing needs root (CI and the
# README's commands run as root on a fresh Debian 12 machine).
set -euo pipefail

run_packages=(pkg-config libhiredis-dev libcurl4-openssl-dev libssl-dev libmicrohttpd-dev redis-server util-linux curl jq)
# curl and jq run the README walk-through. Tests also need protoc (golden bytes),
# the openssl CLI (crypto oracles), ffmpeg (real MP4 clips for the box reader) and
# iproute2 (the loopback-only network namespace LocalStack runs in).
test_packages=("${run_packages[@]}" protobuf-compiler openssl ffmpeg iproute2)

case "${1:-run}" in
  run) wanted=("${run_packages[@]}") ;;
  test) wanted=("${test_packages[@]}") ;;
  *) echo "usage: $0 run|test" >&2; exit 64 ;;
esac

missing=()
for package in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
  echo "missing Debian packages: ${missing[*]}" >&2
  echo "run as root, or: sudo apt-get install -y ${missing[*]}" >&2
  exit 69
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
