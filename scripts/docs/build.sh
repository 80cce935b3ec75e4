#!/usr/bin/env bash
# Builds the manual (docs/manual, configured by docs/mkdocs.yml) into .build/docs with mkdocs
# --strict: a link to a page that is not there, an anchor no heading makes, or a page left out
# of the navigation fails the build (part of `make test`, as `make docs`).
# Usage: scripts/docs/build.sh
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
venv="$repo/.build/docs-venv"
"$repo/scripts/docs/setup-venv.sh" "$venv"
"$venv/bin/mkdocs" build --strict --config-file "$repo/docs/mkdocs.yml" --site-dir "$repo/.build/docs"
echo "docs: the manual is in .build/docs (open .build/docs/index.html)" >&2
