# Sourced by the setup-venv scripts: pinned_venv VENV REQUIREMENTS PYTHON_VARIABLE [CANDIDATE...]
# makes VENV with the packages pinned in REQUIREMENTS from PyPI, using the first Python >= 3.9
# with the venv module among $PYTHON_VARIABLE and the candidates. Idempotent: a venv stamped
# with the requirements' hash is left alone; a changed pin rebuilds it.
pinned_venv() {
  local venv="$1" requirements="$2" variable="$3"
  shift 3
  local stamp python="" candidate
  stamp="$(sha256sum "$requirements" | cut -d' ' -f1)"
  if [ -f "$venv/.ready" ] && [ "$(cat "$venv/.ready")" = "$stamp" ]; then
    return 0
  fi
  for candidate in "${!variable:-}" "$@"; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
      "$candidate" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 9) else 1)' 2>/dev/null; then
      python="$candidate"
      break
    fi
  done
  if [ -z "$python" ]; then
    echo "setup-venv: no Python >= 3.9 with the venv module (set $variable)" >&2
    return 69
  fi
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  echo "setup-venv: creating $venv with $("$python" --version 2>&1)" >&2
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --require-virtualenv -r "$requirements"
  echo "$stamp" >"$venv/.ready"
  echo "setup-venv: ready" >&2
}

# pinned_venv_beside DIR NAME PYTHON_VARIABLE [VENV]: the venv of a suite whose pins are
# DIR/requirements.txt, at VENV or .build/NAME-venv, with pyenv's Python 3.11 preferred (the
# version every pin was checked with), then whatever python3 there is.
pinned_venv_beside() {
  local dir="$1" name="$2" variable="$3" venv="${4:-}"
  local root
  root="$(cd "$dir/../.." && pwd)"
  pinned_venv "${venv:-$root/.build/$name-venv}" "$dir/requirements.txt" "$variable" \
    /root/.pyenv/versions/3.11.*/bin/python3 "$HOME"/.pyenv/versions/3.11.*/bin/python3 python3.11 python3
}
