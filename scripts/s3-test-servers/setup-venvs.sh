#!/usr/bin/env bash
# Creates the Python environments of the S3 test servers, once; fast when they exist.
#   .build/s3-test-venvs/moto        moto[server] (moto_server): S3 plumbing, no signature checks
#   .build/s3-test-venvs/localstack  localstack-core: S3 that verifies SigV4 signatures
# Each venv is rebuilt only when its pins below change (a stamp file holds them).
# Needs pyenv's Pythons (/root/.pyenv/versions) or PYTHON_MOTO / PYTHON_LOCALSTACK; reaches PyPI only.
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
base="${S3_TEST_VENVS:-$repo/.build/s3-test-venvs}"
pyenv_root="${PYENV_ROOT:-/root/.pyenv}"

# moto: any CPython 3.9+; 3.12 or 3.11 from pyenv.
moto_pins=("moto[server]==5.2.5" "boto3")
# LocalStack 2026.3 imports `warnings.deprecated` (Python 3.13). Pins it needs here:
#   cbor2<6      cbor2 6 dropped the `cbor2._decoder` module localstack's parser imports
#   pyopenssl<25 newer pyOpenSSL removed X509.add_extensions, used for its self-signed cert
#                (this also holds cryptography at 44.x; joserfc then warns, unused by S3)
localstack_pins=("localstack-core[runtime]==2026.3.0" "boto3")
localstack_fixups=("cbor2==5.9.0" "pyopenssl==24.3.0")

find_python() {  # find_python VAR candidates...
    local override="$1"; shift
    if [[ -n "${!override:-}" ]]; then echo "${!override}"; return; fi
    for version in "$@"; do
        local found
        found=$(ls -d "$pyenv_root"/versions/"$version"* 2>/dev/null | sort -V | tail -1 || true)
        if [[ -n "$found" && -x "$found/bin/python" ]]; then echo "$found/bin/python"; return; fi
    done
    echo "no Python $* found under $pyenv_root/versions (set $override)" >&2
    exit 69
}

# make_venv NAME PYTHON PINS... [-- FIXUPS...]
make_venv() {
    local name="$1" python="$2"; shift 2
    local dir="$base/$name" stamp="$base/$name/.pins"
    local want="$python $*"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then return 0; fi
    local started=$SECONDS
    echo "setting up $dir with $("$python" --version) ..." >&2
    rm -rf "$dir"
    "$python" -m venv "$dir"
    local pins=() fixups=() after=0
    for arg in "$@"; do
        if [[ "$arg" == "--" ]]; then after=1; elif (( after )); then fixups+=("$arg"); else pins+=("$arg"); fi
    done
    "$dir/bin/pip" install -q "${pins[@]}"
    # Pins applied after the main install, so the resolver does not backtrack through old releases.
    if (( ${#fixups[@]} )); then "$dir/bin/pip" install -q "${fixups[@]}" 2>&1 | grep -v -e "dependency resolver" -e "joserfc" >&2 || true; fi
    echo "$want" > "$stamp"
    echo "$dir ready in $((SECONDS - started)) s" >&2
}

mkdir -p "$base"
what="${1:-all}"
if [[ "$what" == all || "$what" == moto ]]; then
    make_venv moto "$(find_python PYTHON_MOTO 3.12 3.11)" "${moto_pins[@]}"
fi
if [[ "$what" == all || "$what" == localstack ]]; then
    make_venv localstack "$(find_python PYTHON_LOCALSTACK 3.13)" "${localstack_pins[@]}" -- "${localstack_fixups[@]}"
fi
