#!/usr/bin/env bash
# Runs one step of `make test` and says how long it took, so the step that makes the suite slow
# shows in the log. Exits with the step's status.
set -uo pipefail
start=$SECONDS
"$@"
status=$?
echo "== step '$*': $((SECONDS - start)) s, exit $status" >&2
exit $status
