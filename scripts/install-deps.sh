#!/usr/bin/env bash
# Installs the Debian packages StreamPreview builds, runs and tests with.
# Usage: scripts/install-deps.sh run|capture|test|bench|image
# Already installed packages are skipped; installing needs root (CI and the
# README's commands run as root on a fresh Debian 12 machine).
set -euo pipefail

run_packages=(pkg-config libhiredis-dev libcurl4-openssl-dev libssl-dev libmicrohttpd-dev redis-server util-linux curl jq)
# curl and jq run the README walk-through. Tests also need protoc (golden bytes),
# the openssl CLI (crypto oracles), ffmpeg (real MP4 clips for the box reader, and the live
# HLS source the capture tests read) and
# iproute2 (the loopback-only network namespace LocalStack runs in), redis-sentinel (the
# failover tests' three sentinels); scripts/test-deploy.sh needs systemd (systemd-analyze
# verify) and python3-venv (kubernetes-validate's venv).
test_packages=("${run_packages[@]}" protobuf-compiler openssl ffmpeg iproute2 redis-sentinel systemd python3-venv)
# `streampreview capture` (a client, usually beside the encoder, not beside serve) runs ffmpeg.
capture_packages=("${run_packages[@]}" ffmpeg)
# scripts/test-replicas.sh puts nginx in front of two serve replicas.
test_packages+=(nginx-light)
# scripts/test-browser.sh drives Debian's Chromium headless through its chromedriver.
test_packages+=(chromium chromium-driver)
# make bench: wrk drives the load, nginx is the ceiling, python3 runs the driver,
# redis-tools has redis-benchmark, openssl times RSA signing; perf is installed when the
# archive has it (BENCH_PROFILE=1), see optional_bench_packages.
bench_packages=("${run_packages[@]}" wrk nginx-light python3 redis-tools openssl)
optional_bench_packages=(linux-perf)
# make image: podman builds the Containerfile (runc: crun refuses hybrid cgroup hosts), from
# bases debootstrap makes; curl reaches the container in scripts/test-image.sh.
image_packages=(podman runc debootstrap curl)

case "${1:-run}" in
  run) wanted=("${run_packages[@]}") ;;
  capture) wanted=("${capture_packages[@]}") ;;
  test) wanted=("${test_packages[@]}") ;;
  bench) wanted=("${bench_packages[@]}") ;;
  image) wanted=("${image_packages[@]}") ;;
  *) echo "usage: $0 run|capture|test|bench|image" >&2; exit 64 ;;
esac

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

missing=()
for package in "${wanted[@]}"; do
  installed "$package" || missing+=("$package")
done
if [ "${1:-run}" = bench ] && [ "$(id -u)" = 0 ]; then
  # Optional: only a profile (BENCH_PROFILE=1) needs perf; the benchmark runs without it.
  for package in "${optional_bench_packages[@]}"; do
    if ! installed "$package" && apt-cache show "$package" >/dev/null 2>&1; then missing+=("$package"); fi
  done
fi
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
  echo "missing Debian packages: ${missing[*]}" >&2
  echo "run as root, or: sudo apt-get install -y ${missing[*]}" >&2
  exit 69
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null
