#!/usr/bin/env bash
# A real browser on other origins: Debian's Chromium, headless, through chromium-driver and the
# pinned selenium (scripts/browser/setup-venv.sh, .build/browser-venv), against
# `streampreview serve --cors-origins` on loopback (scripts/browser/drive.py: a page on the
# listed origin uploads, commits, reads the feed and plays the clip to its end; the same page on
# an origin not listed fails at its first fetch). About a minute.
# Builds nothing: run `swift build` first (uses .build/debug/streampreview, or $STREAMPREVIEW_BINARY).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
binary="${STREAMPREVIEW_BINARY:-$repo/.build/debug/streampreview}"
[ -x "$binary" ] || { echo "test-browser.sh: $binary is missing: run swift build first" >&2; exit 69; }
"$repo/scripts/install-deps.sh" test  # chromium and chromium-driver, among the test packages
for tool in /usr/bin/chromium /usr/bin/chromedriver; do
  [ -x "$tool" ] || { echo "test-browser.sh: $tool is missing" >&2; exit 69; }
done
"$repo/scripts/browser/setup-venv.sh"
exec timeout --kill-after=10 300 "$repo/.build/browser-venv/bin/python" -B "$repo/scripts/browser/drive.py" "$binary"
