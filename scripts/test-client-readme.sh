#!/usr/bin/env bash
# Builds the Swift blocks of the app guides as an app would: README.md's "Apps" section and the
# manual's docs/manual/apps.md, each as a fresh package made of its Package.swift block (the
# dependency URL pointed at this checkout) and a source file per other block, built with
# `swift build` against the StreamPreviewClient product. On Linux the SwiftUI parts sit under
# `#if canImport(SwiftUI)` and are left out by the compiler.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
repository=$PWD
work=$(mktemp -d /tmp/sp-readme-app.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
# A path dependency is named after its folder: the guides' URL ends in StreamPreview.
ln -s "$repository" "$work/StreamPreview"

# build_guide NAME FILE SECTION: the Swift blocks of FILE (under its "## SECTION" heading, or the
# whole file when SECTION is empty) as the package $work/NAME.
build_guide() {
  local name="$1" file="$2" section="$3"
  mkdir -p "$work/$name"
  python3 - "$file" "$section" "$work" "$name" <<'PY'
import os, re, sys
path, heading, work, name = sys.argv[1:5]
text = open(path).read()
if heading:
    start = text.index("\n## %s\n" % heading)
    end = text.find("\n## ", start + 1)
    text = text[start:end if end > 0 else len(text)]
blocks = re.findall(r"\n```swift\n(.*?)\n```\n", text, re.S)
manifests = [b for b in blocks if "import PackageDescription" in b]
if len(manifests) != 1 or len(blocks) < 3:
    sys.exit(f"{path}: expected one Package.swift block and code blocks, found {len(blocks)} blocks")
manifest = manifests[0]
url = re.search(r'\.package\(url: "[^"]*StreamPreview\.git", branch: "main"\)', manifest)
if not url:
    sys.exit(f"{path}: the Package.swift block has no .package(url: \"...StreamPreview.git\", branch: \"main\")")
manifest = manifest.replace(url.group(0), '.package(path: "%s/StreamPreview")' % work)
target = re.search(r'\.target\(\s*name: "([A-Za-z]+)"', manifest).group(1)
open(os.path.join(work, name, "Package.swift"), "w").write(manifest + "\n")
sources = os.path.join(work, name, "Sources", target)
os.makedirs(sources)
for number, block in enumerate(b for b in blocks if "import PackageDescription" not in b):
    open(os.path.join(sources, f"Guide{number + 1}.swift"), "w").write(block + "\n")
print(f"test-client-readme: {path}: {len(blocks) - 1} code blocks into target {target}")
PY
  "$SWIFT" build --package-path "$work/$name" --scratch-path "$work/build-$name" 2>&1 | tail -60
  local status=${PIPESTATUS[0]}
  [ "$status" -eq 0 ] || { echo "test-client-readme: $file's Swift blocks do not build" >&2; return "$status"; }
  echo "test-client-readme: $file's Swift blocks build against StreamPreviewClient"
}

build_guide readme README.md Apps
build_guide manual docs/manual/apps.md ""
