#!/usr/bin/env bash
# Builds the Containerfile with podman into IMAGE (default localhost/streampreview:latest), with
# base images made here from Debian packages, so no image registry is needed (`make image`):
#   - runtime base: `debootstrap --variant=minbase bookworm` plus the runtime packages the
#     Containerfile's second stage names, imported with `podman import`;
#   - build base: the same with the -dev packages and what the Swift toolchain needs; the
#     toolchain of this machine (SWIFT_ROOT, default the one `swift` on PATH comes from) is
#     mounted read-only at /opt/swift during the build instead of copied in (3 GB).
# Each base is made once and kept in podman's storage; IMAGE_REBUILD_BASES=1 makes them again.
# Then `podman build` runs without a network: the bases hold every package.
# Needs root, podman, runc and debootstrap (scripts/install-deps.sh image), and the Debian mirror
# (DEBIAN_MIRROR, default http://deb.debian.org/debian) while a base is made.
# podman's runtime and limits on this kind of host: scripts/lib/podman.sh.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
image="${IMAGE:-localhost/streampreview:latest}"
runtime_base="localhost/streampreview-runtime-base:bookworm"
build_base="localhost/streampreview-build-base:bookworm"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
work="$repo/.build/image"

# The Containerfile's lists: runtime libraries (and redis-server for the embedded default); the
# -dev packages; and what swift, swift-build and the linker load or link with.
runtime_packages=libhiredis0.14,libcurl4,libssl3,libmicrohttpd12,libstdc++6,ca-certificates,redis-server
build_packages=pkg-config,libhiredis-dev,libcurl4-openssl-dev,libssl-dev,libmicrohttpd-dev
build_packages+=,libc6-dev,libgcc-12-dev,libstdc++-12-dev,binutils,libsqlite3-0,libncurses6,libxml2,zlib1g-dev

for tool in podman debootstrap; do
  command -v "$tool" >/dev/null || { echo "make-image: $tool missing (scripts/install-deps.sh image)" >&2; exit 69; }
done
[ "$(id -u)" = 0 ] || { echo "make-image: run as root (debootstrap, rootful podman)" >&2; exit 69; }
swift_root="${SWIFT_ROOT:-}"
if [ -z "$swift_root" ]; then
  swift="$(command -v swift)" || { echo "make-image: no swift on PATH (or set SWIFT_ROOT)" >&2; exit 69; }
  swift_root="$(cd "$(dirname "$(readlink -f "$swift")")/../.." && pwd)"
fi
[ -x "$swift_root/usr/bin/swift" ] || { echo "make-image: $swift_root/usr/bin/swift missing" >&2; exit 69; }

# shellcheck source=lib/podman.sh
source "$repo/scripts/lib/podman.sh"
podman_setup

# make_base IMAGE PACKAGES [PATH]: debootstrap, podman import (with PATH as its PATH when given).
make_base() {
  local name="$1" packages="$2" path="${3:-}" rootfs="$work/rootfs" changes=()
  if [ "${IMAGE_REBUILD_BASES:-0}" != 1 ] && podman image exists "$name"; then
    echo "make-image: base $name exists"
    return 0
  fi
  echo "make-image: making $name (debootstrap bookworm from $mirror)"
  rm -rf "$rootfs"
  mkdir -p "$work/debs"
  debootstrap --variant=minbase --cache-dir="$work/debs" --include="$packages" bookworm "$rootfs" "$mirror" \
    >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  if [ -n "$path" ]; then
    mkdir -p "$rootfs/opt/swift"  # where the toolchain is mounted
    changes=(--change "ENV PATH=$path")
  fi
  tar -C "$rootfs" --numeric-owner -c . | podman import --quiet "${changes[@]}" --change "CMD [\"/bin/bash\"]" - "$name" >/dev/null
  rm -rf "$rootfs"
}

started=$(date +%s)
make_base "$runtime_base" "$runtime_packages"
make_base "$build_base" "$build_packages" /opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
bases_done=$(date +%s)

echo "make-image: podman build -> $image"
"${PODMAN[@]}" build "${PODMAN_LIMITS[@]}" --network none --pull=never \
  --volume "$swift_root:/opt/swift:ro" \
  --build-arg "SWIFT_IMAGE=$build_base" --build-arg "RUNTIME_IMAGE=$runtime_base" \
  -t "$image" -f "$repo/Containerfile" "$repo"
finished=$(date +%s)
echo "make-image: $image built (bases $((bases_done - started)) s, image $((finished - bases_done)) s)"
