#!/usr/bin/env bash
# Builds the Swift blocks of README.md's "Apps" section as an app would: a fresh package made of
# the section's Package.swift block (its dependency URL pointed at this checkout) and a source
# file per other block, built with `swift build` against the StreamPreviewClient product. On
# Linux the SwiftUI parts sit under `#if canImport(SwiftUI)` and are left out by the compiler.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
repository=$PWD
work=$(mktemp -d /tmp/sp-readme-app.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
# A path dependency is named after its folder: the README's URL ends in StreamPreview.
ln -s "$repository" "$work/StreamPreview"
mkdir -p "$work/app"

python3 - "$repository/README.md" "$work" <<'PY'
import os, re, sys
readme, work = open(sys.argv[1]).read(), sys.argv[2]
start = readme.index("\n## Apps\n")
end = readme.find("\n## ", start + 1)
section = readme[start:end if end > 0 else len(readme)]
blocks = re.findall(r"\n```swift\n(.*?)\n```\n", section, re.S)
manifests = [b for b in blocks if "import PackageDescription" in b]
if len(manifests) != 1 or len(blocks) < 3:
    sys.exit(f"README.md's Apps section: expected one Package.swift block and code blocks, found {len(blocks)}")
manifest = manifests[0]
url = re.search(r'\.package\(url: "[^"]*StreamPreview\.git", branch: "main"\)', manifest)
if not url:
    sys.exit("README.md's Apps Package.swift block has no .package(url: \"...StreamPreview.git\", branch: \"main\")")
manifest = manifest.replace(url.group(0), '.package(path: "%s/StreamPreview")' % work)
target = re.search(r'\.target\(\s*name: "([A-Za-z]+)"', manifest).group(1)
open(os.path.join(work, "app", "Package.swift"), "w").write(manifest + "\n")
sources = os.path.join(work, "app", "Sources", target)
os.makedirs(sources)
for number, block in enumerate(b for b in blocks if b is not manifest and "import PackageDescription" not in b):
    open(os.path.join(sources, f"Readme{number + 1}.swift"), "w").write(block + "\n")
print(f"test-client-readme: {len(blocks) - 1} code blocks into target {target}")
PY
"$SWIFT" build --package-path "$work/app" --scratch-path "$work/build" 2>&1 | tail -60
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] && echo "test-client-readme: the Apps section's Swift blocks build against StreamPreviewClient"
exit "$status"
