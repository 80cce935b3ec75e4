#!/usr/bin/env bash
# Checks that the StreamPreviewClient library product an app adds stays Foundation only: builds it,
# then fails if any C module or system library is in its dependency graph, either as declared in
# Package.swift (every target it reaches, transitively, must be a Swift target with no linker
# settings) or as compiled (every module its objects were built against must be the toolchain's,
# and its sources may import Foundation, FoundationNetworking and each other only, never
# FoundationXML, which brings libxml2), and that it spawns no process.
# `swift build --product` refuses an automatic library product, so its targets are built instead.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
product=StreamPreviewClient

description=$(mktemp)
trap 'rm -f "$description"' EXIT
"$SWIFT" package describe --type json >"$description"

# The product's targets, transitively: each must be a Swift target (not a system library or a
# C/Clang target), depend on no other package's product, and link nothing by itself.
targets=$(python3 - "$description" "$product" <<'PY'
import json, sys
description = json.load(open(sys.argv[1]))
product = next((p for p in description["products"] if p["name"] == sys.argv[2]), None)
if product is None:
    sys.exit(f"no product {sys.argv[2]} in Package.swift")
targets = {t["name"]: t for t in description["targets"]}
seen, queue, problems = [], list(product["targets"]), []
while queue:
    name = queue.pop()
    if name in seen:
        continue
    seen.append(name)
    target = targets[name]
    if target["module_type"] != "SwiftTarget":
        problems.append(f"{name} is a {target['module_type']} (a C module or system library)")
    for dependency in target.get("product_dependencies", []):
        problems.append(f"{name} depends on the product {dependency} of another package")
    queue.extend(target.get("target_dependencies", []))
if problems:
    sys.exit(f"{sys.argv[2]}'s graph is not Foundation only:\n  " + "\n  ".join(problems))
print(" ".join(sorted(seen)))
PY
)
manifest_links=$(python3 - "$targets" <<'PY'
import re, sys
# Linker settings in Package.swift for any of the product's targets (.linkedLibrary, unsafeFlags).
text = open("Package.swift").read()
for name in sys.argv[1].split():
    match = re.search(r'\.target\(\s*name:\s*"%s"(.*?)\)\s*,\s*\n' % re.escape(name), text, re.S)
    if match and re.search(r"linkerSettings|linkedLibrary|linkedFramework|unsafeFlags", match.group(1)):
        print(name)
PY
)
if [ -n "$manifest_links" ]; then
    echo "check-client-graph: linker settings on $manifest_links" >&2
    exit 1
fi

"$SWIFT" build $(for target in $targets; do echo --target "$target"; done)

status=0
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v "$SWIFT")")")")
build=$("$SWIFT" build --show-bin-path)
for target in $targets; do
    # The modules each object was compiled against (the .d files of the target's build folder):
    # the toolchain's Swift modules, and this target's own sources. A module map there means a C module.
    deps=$(python3 -c '
import sys
for path in sys.argv[1:]:
    for rule in open(path).read().replace("\\\n", " ").split("\n"):
        if " : " in rule:
            print("\n".join(rule.split(" : ", 1)[1].split()))
' "$build/$target.build"/*.d | sort -u)
    # The product's own targets' modules are allowed too (the app package's ProtobufWire).
    own=$(for t in $targets; do echo "-e ^$build/Modules/$t.swiftmodule -e ^$build/$t.build"; done)
    strangers=$(grep -v -e "^$toolchain/" -e "^$PWD/Sources/$target/" $own <<<"$deps" || true)
    cmodules=$(grep -e 'modulemap$' -e '\.h$' <<<"$deps" || true)
    if [ -n "$strangers$cmodules" ]; then
        echo "check-client-graph: $target was compiled against modules outside the toolchain:" >&2
        printf '  %s\n' $strangers $cmodules >&2
        status=1
    fi
    imports=$(grep -hoE '^\s*(@_implementationOnly |@_exported |public |internal |package )?import [A-Za-z_]+' \
        "Sources/$target"/*.swift | awk '{print $NF}' | sort -u || true)
    for module in $imports; do
        case " Foundation FoundationNetworking $targets " in
        *" $module "*) ;;
        *)
            echo "check-client-graph: Sources/$target imports $module (Foundation, FoundationNetworking and the product's own targets only)" >&2
            status=1
            ;;
        esac
    done
    if grep -nE '\b(Process\(|posix_spawn|NSTask|system\()' "Sources/$target"/*.swift >&2; then
        echo "check-client-graph: Sources/$target spawns processes" >&2
        status=1
    fi
done
[ $status -eq 0 ] && echo "check-client-graph: $product is Foundation only (targets: $targets)"
exit $status
