#!/usr/bin/env python3
"""`make bench`: load-tests a release build of `streampreview serve` against its ceilings.

Starts the server (its own data dir under .build/bench/, a free loopback port), nginx from
Debian on another loopback port (the ceiling: the same bytes as static files), seeds through
the public HTTP API only (as an uploader app and viewers do), runs wrk with the Lua scripts
beside this file, alternating each target with its ceiling for BENCH_ROUNDS rounds, and
prints one table of medians. It writes BENCHMARKS.md (a BENCH_ONLY run writes
.build/bench/BENCHMARKS.md instead) and stops every process it started, by PID, also on
Ctrl-C and on failure.

Knobs (environment): BENCH_SECONDS (per round, default 10), BENCH_ROUNDS (default 3),
BENCH_ONLY (comma list of workloads), BENCH_SOAK_SECONDS (default 600), BENCH_PROFILE=1
(perf record -g on the server during `feed`, `upload-local` and `rate-limit-feed`, limiter off and on),
BENCH_CALIBRATE=1 (rate-limit-feed with the limiter off on both servers: the noise floor of its
ratio), BENCH_STALL_SECONDS (HEAD stall of the S3
stand-in in feed-slow-storage, default 3), BENCH_SLOW_COMMITTERS (concurrent background
commits there, default 16: twice serve's 8 worker threads).

The workloads are in feed_workloads.py, upload_workloads.py, scale_workloads.py,
rate_limit_workloads.py, event_workloads.py (GET /api/feed/events: 10,000 streams' delivery
and RSS, resuming with Last-Event-ID, the feed beside 10,000 open streams) and
figures_workloads.py (the feed and likes with figures counted against serve --no-stats), on the servers of
fixtures.py; the helpers they share are settings.py, children.py, api_client.py,
media.py, tokens.py, services.py, load.py, results.py, report.py and perf_profile.py (sweep.py
uses several of them too).

Python 3 standard library only.
"""

import datetime
import json
import resource
import shutil
import signal
import sys

from children import stop_all
from event_workloads import EventWorkloads
from feed_workloads import FeedWorkloads
from figures_workloads import FiguresWorkloads
from fixtures import Fixtures
from perf_profile import Profiling
from rate_limit_workloads import RateLimitWorkloads
from report import machine, write_report
from results import NOTES, ROWS, row, table_lines
from scale_workloads import ScaleWorkloads
from settings import BINARY, ONLY, ROOT, WORK, log
from upload_workloads import UploadWorkloads

WORKLOADS = [
    "feed", "feed-anon", "healthz", "feed-mixed", "feed-accept", "metrics-scrape", "upload-local", "memory",
    "feed-scale", "upload-s3", "feed-slow-storage", "upload-gcs-rsa", "rate-limit-feed", "rate-limit-burst",
    "events-fanout", "events-resume", "events-feed", "figures",
]


class Bench(FeedWorkloads, UploadWorkloads, ScaleWorkloads, RateLimitWorkloads, EventWorkloads, FiguresWorkloads,
            Profiling, Fixtures):
    """Every workload as run_<name> (name with - as _), on the servers Fixtures starts."""


def main():
    unknown = [name for name in ONLY if name not in WORKLOADS]
    if unknown:
        print("unknown workload(s) %s; choose from %s" % (", ".join(unknown), ", ".join(WORKLOADS)), file=sys.stderr)
        return 64
    for tool in ("wrk", "nginx"):
        if shutil.which(tool) is None:
            print("%s is missing: run scripts/install-deps.sh bench as root" % tool, file=sys.stderr)
            return 69
    if not BINARY.exists():
        print("%s is missing: swift build -c release" % BINARY, file=sys.stderr)
        return 69
    WORK.mkdir(parents=True, exist_ok=True)
    # 10,000 event streams are 10,000 sockets on this side too: the soft open-file limit goes up
    # to the hard one (the servers started from here inherit it, and raise it themselves anyway).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    # Ctrl-C, SIGTERM and SIGHUP unwind through the finally below, which stops every child by PID
    # (SIGINT explicitly: a shell without job control starts background jobs with it ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))
    started = datetime.datetime.now(datetime.timezone.utc)
    host = machine()
    log("machine: %s" % host)
    bench = Bench()
    order = [name for name in WORKLOADS if not ONLY or name in ONLY]
    try:
        for name in order:
            log("workload %s" % name)
            try:
                getattr(bench, "run_" + name.replace("-", "_"))()
            except Exception as error:  # one broken workload must not lose the others' figures
                log("workload %s failed: %r" % (name, error))
                row(name, goal="runs", passed=False, note="did not complete: %r" % error)
            if name == "upload-s3" and "feed-slow-storage" not in order:
                bench.release("s3")
            if name == "feed-slow-storage":
                bench.release("s3")
    finally:
        stop_all()
    finished = datetime.datetime.now(datetime.timezone.utc)
    print()
    print("\n".join(table_lines(markdown=False)))
    print()
    for note in NOTES:
        print("- " + note)
    report = write_report(started, finished, host)
    (WORK / "results.json").write_text(json.dumps({"rows": ROWS, "notes": NOTES}, indent=1))
    print("\nwrote %s" % report.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        stop_all()
        sys.exit(130)
