#!/bin/sh
# Used by the Containerfile's two stages: installs those of the named Debian packages the image
# lacks. The bases `make image` makes already hold them all, so there the build needs no network;
# a public base image gets them from the Debian archive.
#   ensure-packages.sh PACKAGE...
set -eu
missing=""
for package in "$@"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
done
if [ -n "$missing" ]; then
  apt-get update -qq
  # shellcheck disable=SC2086 # one word per package
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
  rm -rf /var/lib/apt/lists/*
fi
