#!/usr/bin/env bash
# Validates the deploy files offline and fails on the first problem (part of `make test`):
#   - systemd units: `systemd-analyze verify` on copies whose /usr/local/bin/streampreview is a
#     stub (verify refuses a missing ExecStart binary). Any message fails: verify exits 0 after
#     an unknown key or a bad value, which it only warns about.
#   - Kubernetes YAML: `kubernetes-validate --strict` (unknown fields fail) against the schemas
#     the package bundles, for the oldest and the newest Kubernetes version we support.
#   - scripts/deploy-check/check.py: what the schemas cannot say (the sweeper's run ends
#     inside its period, never two runs at once, non-root, 69/75 are not counted as success;
#     the API drains before it is killed, probes, metrics port; every variable that
#     `streampreview serve --help` and `sweep --help` name is set in kubernetes/config.yaml or
#     listed there as left default, credentials in the Secret only; the Sentinel URL matches
#     the example Sentinel set).
# Tools: systemd-analyze (Debian systemd), .build/deploy-venv, made from
# scripts/deploy-check/requirements.txt (PyPI once; rebuilt when the pins change), and the built
# binary for its --help (STREAMPREVIEW_BIN, default .build/debug/streampreview: `make test` builds
# before it runs this).
#   scripts/test-deploy.sh [DEPLOY_DIR]      (default: deploy/ of this repository)
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
deploy="$(cd "${1:-$repo/deploy}" && pwd)"
venv="$repo/.build/deploy-venv"
requirements="$repo/scripts/deploy-check/requirements.txt"
kubernetes_versions=(1.31.0 1.37.0)

command -v systemd-analyze >/dev/null || { echo "test-deploy: systemd-analyze missing (scripts/install-deps.sh test)" >&2; exit 69; }
binary="${STREAMPREVIEW_BIN:-$repo/.build/debug/streampreview}"
[ -x "$binary" ] || { echo "test-deploy: $binary missing (swift build first, or set STREAMPREVIEW_BIN)" >&2; exit 69; }

stamp="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [ ! -f "$venv/.ready" ] || [ "$(cat "$venv/.ready")" != "$stamp" ]; then
  python=""
  for candidate in "${DEPLOY_CHECK_PYTHON:-}" python3; do
    if [ -n "$candidate" ] && command -v "$candidate" >/dev/null &&
      "$candidate" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 9) else 1)' 2>/dev/null; then
      python="$candidate"
      break
    fi
  done
  [ -n "$python" ] || { echo "test-deploy: no Python >= 3.9 with venv (set DEPLOY_CHECK_PYTHON)" >&2; exit 69; }
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
  echo "$stamp" >"$venv/.ready"
fi

failed=0
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# systemd: the units with ExecStart pointed at a stub, verified together (the timer names its service).
printf '#!/bin/sh\nexit 0\n' >"$scratch/streampreview"
chmod +x "$scratch/streampreview"
units=()
for unit in "$deploy"/*.service "$deploy"/*.timer; do
  [ -e "$unit" ] || continue
  sed "s#/usr/local/bin/streampreview#$scratch/streampreview#g" "$unit" >"$scratch/$(basename "$unit")"
  units+=("$scratch/$(basename "$unit")")
done
if [ ${#units[@]} -eq 0 ]; then
  echo "FAIL systemd: no units in $deploy" >&2
  failed=1
elif ! output="$(cd "$scratch" && systemd-analyze verify "${units[@]}" 2>&1)" || [ -n "$output" ]; then
  echo "FAIL systemd-analyze verify:" >&2
  echo "${output//$scratch\//}" >&2
  failed=1
else
  echo "ok   systemd-analyze verify: $(cd "$scratch" && ls -- *.service *.timer | tr '\n' ' ')"
fi

# Kubernetes: every manifest, strict, per version.
for version in "${kubernetes_versions[@]}"; do
  if output="$("$venv/bin/kubernetes-validate" --strict --quiet -k "$version" "$deploy"/kubernetes/*.yaml 2>&1)"; then
    echo "ok   kubernetes-validate --strict -k $version: $(cd "$deploy/kubernetes" && ls -- *.yaml | tr '\n' ' ')"
  else
    echo "FAIL kubernetes-validate --strict -k $version:" >&2
    echo "$output" >&2
    failed=1
  fi
done

# The settings each command reads, as the binary documents them.
for command in serve sweep; do
  "$binary" "$command" --help >"$scratch/$command-help.txt" ||
    { echo "FAIL $binary $command --help" >&2; failed=1; }
done
if "$venv/bin/python" "$repo/scripts/deploy-check/check.py" "$deploy" "$scratch/serve-help.txt" "$scratch/sweep-help.txt"; then :; else failed=1; fi

if [ "$failed" != 0 ]; then
  echo "test-deploy: deploy files are invalid (above)" >&2
  exit 1
fi
echo "test-deploy: deploy files valid"
