#!/usr/bin/env bash
# Runs one step of `make test` and says how long it took, so the step that makes the suite slow
# shows in the log. Exits with the step's status.
#
# CI keeps only the end of a run's output, and a crash's backtrace or a failed expectation can be
# thousands of lines above it. So the step's output is also kept in a file, and a failed step ends
# with what says why: failed expectations, the crash report's first lines and crashed thread, and
# the swift-testing tests that started and never ended (the ones running when a process died).
set -uo pipefail
start=$SECONDS
log=$(mktemp "${TMPDIR:-/tmp}/step.XXXXXX")
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    {
        echo "== why step '$*' failed (from its $(wc -l <"$log") lines of output)"
        grep -E -m 40 '✘|Fatal error|Program crashed|error:|panicked|Assertion|FAIL|^not ok' "$log"
        grep -E -A 25 -m 1 'Thread [0-9]+ crashed' "$log"
        # `◇ Test x started.` without a `✔`/`✘ Test x ...` line after it.
        sed -n 's/^◇ Test \(.*\) started\.$/\1/p' "$log" | sort -u >"$log.started"
        sed -n 's/^\(✔\|✘\) Test \(.*\) \(passed\|failed\) after.*/\2/p' "$log" | sort -u >"$log.ended"
        comm -23 "$log.started" "$log.ended" | sed 's/^/unfinished test: /' | head -20
        rm -f "$log.started" "$log.ended"
    } >&2
fi
echo "== step '$*': $((SECONDS - start)) s, exit $status" >&2
exit "$status"
