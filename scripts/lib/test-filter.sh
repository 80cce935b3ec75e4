# Sourced by the scripts that run test suites by name (test-cluster.sh, test-replicas.sh,
# s3-test-servers/in-namespace.sh). `swift test --filter` runs nothing for a name that matches no
# test, and passes: a suite renamed or misspelt would silently drop out of the run. These make
# the run fail first, naming the pattern.
#   list_tests [swift test arguments]   lists the built tests once (`swift test list --skip-build`
#                                       on this package), keeping of the arguments those that say
#                                       where the build is (--scratch-path, --build-path, -c,
#                                       --configuration)
#   require_tests WHO PATTERN...        exits 1, naming each, when an extended regular expression
#                                       matches none of the listed tests (Target.Suite/test())
list_tests() {
  local package args=()
  package="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  while [ $# -gt 0 ]; do
    case "$1" in
    --scratch-path | --build-path | -c | --configuration)
      [ $# -ge 2 ] || break
      args+=("$1" "$2")
      shift 2
      ;;
    --scratch-path=* | --build-path=* | --configuration=*)
      args+=("$1")
      shift
      ;;
    *) shift ;;
    esac
  done
  if ! LISTED_TESTS="$("${SWIFT:-swift}" test list --skip-build --package-path "$package" "${args[@]}")" ||
    [ -z "$LISTED_TESTS" ]; then
    echo "swift test list gave no tests: run swift build --build-tests first (same scratch path)" >&2
    exit 1
  fi
}

require_tests() {
  local who="$1" pattern missing=()
  shift
  for pattern in "$@"; do
    grep -Eq -- "$pattern" <<<"$LISTED_TESTS" || missing+=("$pattern")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "$who: these filters match no test of swift test list (a suite renamed?):" >&2
    printf '  %s\n' "${missing[@]}" >&2
    exit 1
  fi
}
