#!/usr/bin/env bash
# A real browser on other origins: Debian's Chromium, headless, through chromium-driver and the
# pinned selenium (scripts/browser/setup-venv.sh, .build/browser-venv), against
# `streampreview serve --cors-origins` on loopback (scripts/browser/drive.py: a page on the
# listed origin uploads, commits, reads the feed and plays the clip to its end; the same page on
# an origin not listed fails at its first fetch); then the viewer page that serve itself serves at
# / (scripts/browser/viewer.py: the strip of live streams, round-robin play, live events, likes and
# seen marks, CSP). About a minute.
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
python="$repo/.build/browser-venv/bin/python"
timeout --kill-after=10 300 "$python" -B "$repo/scripts/browser/drive.py" "$binary"
# The viewer page served at / (scripts/browser/viewer.py): strip, round robin, live events, likes.
timeout --kill-after=10 300 "$python" -B "$repo/scripts/browser/viewer.py" "$binary"
