#!/usr/bin/env bash
# Builds the manual (docs/manual, configured by docs/mkdocs.yml) into .build/docs with mkdocs
# --strict: a link to a page or file that is not there, an anchor no heading makes, or a page
# left out of the navigation fails the build (part of `make test`, as `make docs`). First the app
# package's API reference: `swift build` writes StreamPreviewClient's symbol graph (a build folder
# of its own, .build/docc-build, so the main build keeps its flags) and the toolchain's `docc`
# turns it into a static site under docs/manual/client-api (not in git), which mkdocs copies
# into the manual beside the pages that link to it.
# Usage: scripts/docs/build.sh
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
swift="${SWIFT:-swift}"
docc="$(command -v docc || echo "$(dirname "$(command -v "$swift")")/docc")"
venv="$repo/.build/docs-venv"
scratch="$repo/.build/docc-build"
graphs="$scratch/symbol-graphs"
reference="$repo/docs/manual/client-api"

# The compiler writes the symbol graph when it compiles the target: an up-to-date build without
# one (a folder removed by hand) is started afresh so that it does.
if ! compgen -G "$graphs/*.symbols.json" >/dev/null; then rm -rf "$scratch"; fi
rm -rf "$reference"
mkdir -p "$graphs"
"$swift" build --package-path "$repo" --scratch-path "$scratch" --target StreamPreviewClient \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" >&2
"$docc" convert --additional-symbol-graph-dir "$graphs" \
  --fallback-display-name StreamPreviewClient --fallback-bundle-identifier com.streampreview.StreamPreviewClient \
  --output-path "$reference" --transform-for-static-hosting --hosting-base-path client-api >&2
[ -f "$reference/documentation/streampreviewclient/index.html" ] || {
  echo "docs: docc wrote no page for StreamPreviewClient" >&2
  exit 1
}

"$repo/scripts/docs/setup-venv.sh" "$venv"
"$venv/bin/mkdocs" build --strict --config-file "$repo/docs/mkdocs.yml" --site-dir "$repo/.build/docs"
echo "docs: the manual is in .build/docs (open .build/docs/index.html; the app package's API reference is client-api/)" >&2
