#!/usr/bin/env python3
"""`make bench-sweep`: how fast `streampreview sweep` deletes, and whether it keeps up.

Uses a release build. Each workload starts `streampreview serve` on a fresh data dir under
.build/bench/ with its sweeper loop off and short lifetimes (upload URL, commit window, grace),
and seeds only through the public API, as an uploader app does (make bench's helpers: tokens from
`streampreview token`, upload URL, PUT of both objects, commit):

- burst-local / burst-s3: many streams replace their preview again and again, and leave
  uploads that are never committed (objects PUT, no commit). After the lifetimes have passed,
  one `streampreview sweep` run is timed: objects deleted per second (the run's own `seconds`),
  and the store is counted before and after (files of the local store; moto's listing).
  burst-s3 runs serve with `--storage s3` against moto_server from the test suite's venv.
- steady: STEADY_STREAMS live streams, each replacing its preview every PERIOD seconds (10,000
  every 30 s: 333 commits/s, 667 objects retired per second), for STEADY_SECONDS, with the
  harness running `streampreview sweep` every SWEEP_EVERY seconds like a cron and sampling the
  backlog (objects due and not deleted yet) in Redis every SAMPLE_EVERY seconds. When the
  harness cannot commit that fast (it measures its rate while seeding), fewer streams replace,
  each still every PERIOD seconds, and the table says so.

Prints the tables and writes the "Sweeper" section of BENCHMARKS.md (the rest of the file,
written by `make bench`, stays). Every process it starts is stopped by its PID, also on Ctrl-C.

Knobs (environment): BENCH_SWEEP_STREAMS (burst-local streams, 1000), BENCH_SWEEP_REPLACEMENTS
(commits per stream, 10), BENCH_SWEEP_ABANDONED (uncommitted uploads per stream, 2),
BENCH_SWEEP_S3_STREAMS (burst-s3 streams, 150), BENCH_SWEEP_STEADY_STREAMS (10000),
BENCH_SWEEP_PERIOD (30), BENCH_SWEEP_STEADY_SECONDS (600), BENCH_SWEEP_EVERY (30),
BENCH_SWEEP_LIFETIME (upload URL TTL, commit window and grace, 5 s), BENCH_SWEEP_ONLY (comma
list of burst-local, burst-s3, steady; the section then goes to .build/bench/BENCHMARKS.md).
Python 3 standard library only.
"""

import datetime
import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

import report_sections
from api_client import expect, http, parallel, upload, upload_and_commit
from children import spawn, stop, stop_all
from report import machine, run_header
from services import Server
from settings import BINARY, ROOT, WORK, log
from tokens import Tokens

STREAMS = int(os.environ.get("BENCH_SWEEP_STREAMS") or 1000)
REPLACEMENTS = int(os.environ.get("BENCH_SWEEP_REPLACEMENTS") or 10)
ABANDONED = int(os.environ.get("BENCH_SWEEP_ABANDONED") or 2)
S3_STREAMS = int(os.environ.get("BENCH_SWEEP_S3_STREAMS") or 150)
STEADY_STREAMS = int(os.environ.get("BENCH_SWEEP_STEADY_STREAMS") or 10000)
PERIOD = float(os.environ.get("BENCH_SWEEP_PERIOD") or 30)
STEADY_SECONDS = float(os.environ.get("BENCH_SWEEP_STEADY_SECONDS") or 600)
SWEEP_EVERY = float(os.environ.get("BENCH_SWEEP_EVERY") or 30)
LIFETIME = int(os.environ.get("BENCH_SWEEP_LIFETIME") or 5)
ONLY = [name.strip() for name in (os.environ.get("BENCH_SWEEP_ONLY") or "").split(",") if name.strip()]
WORKLOADS = ["burst-local", "burst-s3", "steady"]
KNOBS = ["BENCH_SWEEP_STREAMS", "BENCH_SWEEP_REPLACEMENTS", "BENCH_SWEEP_ABANDONED", "BENCH_SWEEP_S3_STREAMS",
         "BENCH_SWEEP_STEADY_STREAMS", "BENCH_SWEEP_PERIOD", "BENCH_SWEEP_STEADY_SECONDS", "BENCH_SWEEP_EVERY",
         "BENCH_SWEEP_LIFETIME", "BENCH_SWEEP_ONLY"]

SAMPLE_EVERY = 5.0
SEED_WORKERS = 32
LOCAL_TARGET = 2000  # objects/s with the local store
S3_TARGET = 3 * 670  # objects/s with S3 batch deletes: 3 × the retirement rate at 10,000 streams / 30 s
S3_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "us-east-1"}
SUMMARY = re.compile(r"swept previews=(\d+) objects=(\d+) kept=(\d+) failed=(\d+) seconds=([\d.]+)")

# Lifetimes short enough to make everything seeded due seconds later; the same on serve and sweep.
LIFETIME_FLAGS = ["--commit-window", str(LIFETIME), "--grace", str(LIFETIME)]
SERVE_FLAGS = ["--sweep-interval", "0", "--upload-url-ttl", str(LIFETIME)] + LIFETIME_FLAGS


# ---------------------------------------------------------------------------------------------
# What is in Redis and in the store.


def redis(server, *command):
    """One redis-cli command on serve's embedded Redis (unix socket in its data dir); raw reply."""
    result = subprocess.run(
        ["redis-cli", "-s", str(server.data / "redis" / "redis.sock"), *map(str, command)],
        capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise RuntimeError("redis-cli %s: %s" % (" ".join(map(str, command)), result.stderr.strip()))
    return result.stdout.strip()


# The backlog, counted in one script on the embedded Redis (not Cluster-safe: it reads keys it
# does not declare, which a single Redis allows): the global queue names streams, and each queued
# stream keeps its garbage (`retired`, scored by when each object may go) and the keys a sweeper
# has condemned (`deleting`, scored by the next delete attempt). Key names: RedisKeys.swift.
BACKLOG_SCRIPT = """
local prefix, now = ARGV[1], tonumber(ARGV[2])
local due, queued = 0, 0
for _, id in ipairs(redis.call('ZRANGE', prefix .. ':{gc}:streams', 0, -1)) do
  for _, name in ipairs({':retired', ':deleting'}) do
    local key = prefix .. ':{s:' .. id .. '}' .. name
    due = due + redis.call('ZCOUNT', key, '-inf', now)
    queued = queued + redis.call('ZCARD', key)
  end
end
return {due, queued}
"""


def backlog(server, queued=False):
    """Objects due for deletion and not deleted yet (with `queued`: also every object queued,
    due or not)."""
    reply = redis(server, "EVAL", BACKLOG_SCRIPT, "0", "sp", int(time.time()))
    due, total = (int(line) for line in reply.split())
    return (due, total) if queued else due


def local_objects(server):
    """Files in the local store (its objects, not their metadata)."""
    return sum(len(files) for _, _, files in os.walk(server.data / "objects" / "data"))


# ---------------------------------------------------------------------------------------------
# moto_server from the test suite's venv (scripts/s3-test-servers/setup-venvs.sh).


class Moto:
    def __init__(self, bucket):
        subprocess.run([str(ROOT / "scripts" / "s3-test-servers" / "setup-venvs.sh"), "moto"], check=True, timeout=900)
        venvs = os.environ.get("S3_TEST_VENVS") or str(ROOT / ".build" / "s3-test-venvs")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.process = spawn(
            [venvs + "/moto/bin/moto_server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=open(WORK / "moto.stdout.log", "w"), stderr=subprocess.STDOUT)
        self.base = "http://127.0.0.1:%d" % port
        self.bucket = bucket
        deadline = time.monotonic() + 60
        while True:
            try:
                if http("GET", self.base + "/", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("moto_server did not start (see %s)" % (WORK / "moto.stdout.log"))
            time.sleep(0.2)
        status, _, body = http("PUT", "%s/%s" % (self.base, bucket), b"")
        expect(status, (200,), "create bucket", body)
        log("moto_server on %s (pid %d), bucket %s" % (self.base, self.process.pid, bucket))

    def count(self):
        """Objects in the bucket, from moto's own listing (ListObjectsV2, unsigned, 1,000 a page)."""
        total, token = 0, None
        while True:
            query = "list-type=2&max-keys=1000" + ("&continuation-token=" + urllib.parse.quote(token, safe="")
                                                   if token else "")
            status, _, body = http("GET", "%s/%s?%s" % (self.base, self.bucket, query))
            expect(status, (200,), "list bucket", body)
            text = body.decode()
            total += text.count("<Key>")
            match = re.search(r"<NextContinuationToken>([^<]+)</NextContinuationToken>", text)
            if not match:
                return total
            token = match.group(1)

    def storage_flags(self):
        return ["--storage", "s3", "--bucket", self.bucket, "--endpoint", self.base, "--addressing", "path"]


# ---------------------------------------------------------------------------------------------
# Seeding through the public API.


def abandon_upload(server, token, stream_id):
    """An uploader that gives up: upload URLs issued, both objects PUT, never committed."""
    upload(server, token, stream_id)


def seed_garbage(server, tokens, stream_ids, replacements, abandoned):
    """Each stream commits `replacements` previews (all but the last become garbage) and leaves
    `abandoned` uploads; returns (garbage objects expected, commits/s reached, when seeding ended)."""
    owners = tokens.streamers(stream_ids)
    started = time.monotonic()
    for round_number in range(replacements):
        parallel(lambda stream: upload_and_commit(server, owners[stream], stream), stream_ids,
                 workers=SEED_WORKERS)
        log("%s: round %d of %d committed (%d streams)" % (server.name, round_number + 1, replacements,
                                                           len(stream_ids)))
    rate = len(stream_ids) * replacements / (time.monotonic() - started)
    for _ in range(abandoned):
        parallel(lambda stream: abandon_upload(server, owners[stream], stream), stream_ids, workers=SEED_WORKERS)
    log("%s: seeded in %.0f s (%.0f commits/s)" % (server.name, time.monotonic() - started, rate))
    garbage = 2 * len(stream_ids) * (replacements - 1 + abandoned)
    return garbage, rate, time.time()


def wait_until_due(after):
    """Sleeps until every object seeded before `after` (wall clock) is past its lifetimes."""
    due = after + 2 * LIFETIME + 2  # upload URL TTL + commit window for abandoned uploads; grace ≤ that
    while time.time() < due:
        time.sleep(min(1.0, due - time.time()))


# ---------------------------------------------------------------------------------------------
# One sweep run.


def sweep(server, storage_flags=(), environment=None, label="sweep", timeout=900, max_seconds=None):
    """Runs `streampreview sweep` on serve's data dir (its embedded Redis); returns the summary,
    the exit code, the wall and CPU seconds of the process, and where its output went."""
    command = [BINARY, "sweep", "--data-dir", server.data, *LIFETIME_FLAGS, *storage_flags]
    if max_seconds:
        command += ["--max-seconds", str(max_seconds)]
    env = dict(os.environ, **(environment or {}))
    stdout_path, stderr_path = WORK / ("%s.run.stdout.log" % label), WORK / ("%s.run.stderr.log" % label)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    with open(stdout_path, "w") as stdout, open(stderr_path, "w") as stderr:
        process = spawn(command, env=env, stdout=stdout, stderr=stderr)
        try:
            code = process.wait(timeout=timeout)
        finally:
            stop(process)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = stdout_path.read_text().splitlines()
    match = SUMMARY.search(lines[-1]) if lines else None
    if match is None:
        raise RuntimeError("sweep exited %d without a summary line (see %s)" % (code, stderr_path))
    previews, objects, kept, failed = (int(match.group(i)) for i in range(1, 5))
    return {"previews": previews, "objects": objects, "kept": kept, "failed": failed,
            "seconds": float(match.group(5)), "exit": code, "wall": wall,
            "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), "log": stderr_path}


# ---------------------------------------------------------------------------------------------
# Results.

BURST_ROWS = []
STEADY_ROWS = []
NOTES = []


def fmt(number):
    return "{:,}".format(number)


def rate(objects, seconds):
    return objects / seconds if seconds > 0 else 0.0


def run_seconds(result):
    """The run's time: its own `seconds`, or the process's wall time when that reads 0.0 (the
    summary has tenths, and a build that fails to fill it in must not give infinite rates).
    Wall time includes starting the process, so the rate from it is a lower bound."""
    return result["seconds"] if result["seconds"] > 0 else result["wall"]


def burst_row(name, result, due_before, stored_before, stored_after, live, target):
    per_second = rate(result["objects"], run_seconds(result))
    if result["seconds"] == 0 and result["objects"]:
        NOTES.append("%s: the summary line said seconds=0.0 after deleting %s objects in %.1f s of wall time: "
                     "objects/s is from the wall time of the process" % (name, fmt(result["objects"]), result["wall"]))
    passed = per_second >= target and result["exit"] == 0 and result["failed"] == 0
    BURST_ROWS.append({
        "workload": name, "objects": "{:,}".format(result["objects"]), "due": "{:,}".format(due_before),
        "seconds": "%.1f" % result["seconds"], "rate": "{:,.0f}".format(per_second),
        "wall": "%.2f" % result["wall"], "cpu": "%.2f" % result["cpu"],
        "kept/failed": "%d/%d" % (result["kept"], result["failed"]), "exit": str(result["exit"]),
        "store": "{:,}→{:,} (live {:,})".format(stored_before, stored_after, live),
        "target": "≥{:,} objects/s".format(target), "result": "PASS" if passed else "FAIL"})


def failed_row(rows, columns, name, error):
    rows.append({columns[0][0]: name, "result": "FAIL"})
    NOTES.append("%s did not complete: %r" % (name, error))


BURST_COLUMNS = [
    ("workload", "workload"), ("objects", "objects deleted"), ("due", "due before"), ("seconds", "sweep s"),
    ("rate", "objects/s"), ("wall", "wall s"), ("cpu", "sweep CPU s"), ("kept/failed", "kept/failed"),
    ("exit", "exit"), ("store", "store objects before→after"), ("target", "target"), ("result", "result")]
STEADY_COLUMNS = [
    ("streams", "live / replacing streams"), ("commits", "commits/s wanted → reached"),
    ("retired", "objects retired/s"), ("runs", "sweep runs (exit≠0)"), ("sweep_rate", "objects/s in runs"),
    ("deleted", "deleted / retired"), ("largest", "largest backlog"), ("thirds", "backlog peak 1st→last third"),
    ("target", "target"), ("result", "result")]


def table(columns, rows, markdown):
    header = [title for _, title in columns]
    body = [[row.get(key, "—") for key, _ in columns] for row in rows]
    if markdown:
        return (["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
                + ["| " + " | ".join(cells) + " |" for cells in body])
    widths = [max(len(cells[i]) for cells in [header] + body) for i in range(len(header))]
    return ["  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
            for cells in [header, ["-" * w for w in widths]] + body]


# ---------------------------------------------------------------------------------------------
# Workloads.


def run_burst_local(tokens):
    server = Server("sweep-local", tokens, SERVE_FLAGS)
    try:
        streams = list(range(1, STREAMS + 1))
        garbage, commit_rate, seeded = seed_garbage(server, tokens, streams, REPLACEMENTS, ABANDONED)
        wait_until_due(seeded)
        due, stored = backlog(server), local_objects(server)
        log("burst-local: %d objects due (%d expected), %d in the store; timing sweep" % (due, garbage, stored))
        result = sweep(server, label="sweep-local")
        after = local_objects(server)
        burst_row("burst-local", result, due, stored, after, 2 * len(streams), LOCAL_TARGET)
        NOTES.append(
            "burst-local: %s streams × %d commits (%s previews replaced) and %d abandoned uploads each, seeded "
            "through the API at %.0f commits/s; %s garbage objects expected, %s due in Redis before the run; "
            "one `sweep --data-dir` run on serve's embedded Redis and local store (default --concurrency); "
            "objects/s = objects deleted / the run's own seconds (its wall time when the summary says 0.0)" % (
                fmt(len(streams)), REPLACEMENTS, fmt(len(streams) * (REPLACEMENTS - 1)), ABANDONED, commit_rate,
                fmt(garbage), fmt(due)))
    finally:
        server.stop()


def run_burst_s3(tokens):
    moto = Moto("sweep-bench-%d" % os.getpid())
    server = None
    try:
        server = Server("sweep-s3", tokens, SERVE_FLAGS + moto.storage_flags(), S3_CREDENTIALS)
        streams = list(range(1, S3_STREAMS + 1))
        garbage, commit_rate, seeded = seed_garbage(server, tokens, streams, REPLACEMENTS, ABANDONED)
        wait_until_due(seeded)
        due, stored = backlog(server), moto.count()
        log("burst-s3: %d objects due (%d expected), %d in the bucket; timing sweep" % (due, garbage, stored))
        result = sweep(server, moto.storage_flags(), S3_CREDENTIALS, label="sweep-s3")
        after = moto.count()
        burst_row("burst-s3 (moto)", result, due, stored, after, 2 * len(streams), S3_TARGET)
        NOTES.append(
            "burst-s3: serve and sweep with --storage s3 against moto_server (the test suite's venv, loopback, "
            "path addressing); %s streams × %d commits and %d abandoned uploads each, seeded at %.0f commits/s; "
            "%s garbage objects expected, %s due in Redis before the run; store counts from moto's own listing" % (
                fmt(len(streams)), REPLACEMENTS, ABANDONED, commit_rate, fmt(garbage), fmt(due)))
    finally:
        if server:
            server.stop()
        stop(moto.process)


class Steady:
    """Streams replacing on a fixed schedule, a cron of sweep runs, and backlog samples."""

    def __init__(self, server, owners, replacing):
        self.server, self.owners, self.replacing = server, owners, replacing
        self.rate = replacing / PERIOD
        self.halt = threading.Event()
        self.lock = threading.Lock()
        self.next_task = 0
        self.commits = self.commit_failures = 0
        self.first_failure = None
        self.samples = []  # (seconds since start, due objects)
        self.runs = []  # (seconds since start, sweep result)

    def committer(self):
        while not self.halt.is_set():
            with self.lock:
                task = self.next_task
                self.next_task += 1
            due = self.started + task / self.rate
            if self.halt.wait(max(0.0, due - time.monotonic())):
                return
            stream = 1 + task % self.replacing
            try:
                upload_and_commit(self.server, self.owners[stream], stream)
                with self.lock:
                    self.commits += 1
            except Exception as error:
                with self.lock:
                    self.commit_failures += 1
                    # Signed URLs are long: their query strings say nothing here.
                    self.first_failure = self.first_failure or re.sub(r"\?[^ ]*", "?…", str(error))[:300]

    def cron(self):
        run = 1
        while not self.halt.wait(max(0.0, self.started + run * SWEEP_EVERY - time.monotonic())):
            at = time.monotonic() - self.started
            try:
                # As deployed: each run ends within 80% of the period, so runs never overlap.
                result = sweep(self.server, label="sweep-steady", max_seconds=max(1, int(SWEEP_EVERY * 0.8)))
            except Exception as error:
                log("steady: sweep run failed: %r" % error)
                result = {"objects": 0, "seconds": 0.0, "exit": -1, "failed": 0}
            self.runs.append((at, result))
            log("steady: sweep at %3.0f s: %d objects in %.2f s, exit %d" % (
                at, result["objects"], result["seconds"], result["exit"]))
            run = max(run + 1, int((time.monotonic() - self.started) / SWEEP_EVERY) + 1)

    def sampler(self):
        while not self.halt.wait(SAMPLE_EVERY):
            try:
                self.samples.append((time.monotonic() - self.started, backlog(self.server)))
            except Exception as error:
                log("steady: backlog sample failed: %r" % error)

    def run(self):
        self.started = time.monotonic()
        workers = max(8, min(64, int(self.rate / 4) + 8))
        threads = [threading.Thread(target=self.committer, daemon=True) for _ in range(workers)]
        threads += [threading.Thread(target=self.cron, daemon=True), threading.Thread(target=self.sampler,
                                                                                      daemon=True)]
        for thread in threads:
            thread.start()
        try:
            while time.monotonic() - self.started < STEADY_SECONDS:
                time.sleep(min(10.0, STEADY_SECONDS - (time.monotonic() - self.started)))
                log("steady: %3.0f s, %d commits, backlog %s" % (
                    time.monotonic() - self.started, self.commits, self.samples[-1][1] if self.samples else "—"))
        finally:
            self.elapsed = time.monotonic() - self.started
            self.halt.set()
            for thread in threads:
                thread.join(timeout=900)


def run_steady(tokens):
    server = Server("sweep-steady", tokens, SERVE_FLAGS)
    try:
        streams = list(range(1, STEADY_STREAMS + 1))
        owners = tokens.streamers(streams)
        started = time.monotonic()
        parallel(lambda stream: upload_and_commit(server, owners[stream], stream), streams,
                 workers=SEED_WORKERS)
        reachable = len(streams) / (time.monotonic() - started)
        log("steady: %d live streams seeded at %.0f commits/s" % (len(streams), reachable))
        wanted = STEADY_STREAMS / PERIOD
        # The schedule must leave the harness and serve room for the sweep runs beside it.
        replacing = STEADY_STREAMS if reachable * 0.7 >= wanted else max(1, int(reachable * 0.7 * PERIOD))
        if replacing < STEADY_STREAMS:
            log("steady: scaled down to %d replacing streams (%.0f commits/s)" % (replacing, replacing / PERIOD))
        sweep(server, label="sweep-steady")  # a clean start: nothing due yet, nothing left from seeding
        steady = Steady(server, owners, replacing)
        steady.run()
        final = backlog(server)
        record_steady(steady, reachable, wanted, final)
    finally:
        server.stop()


def record_steady(steady, reachable, wanted, final):
    reached = steady.commits / steady.elapsed
    retired = 2 * reached
    runs = [result for _, result in steady.runs]
    deleted = sum(result["objects"] for result in runs)
    busy = sum(run_seconds(result) for result in runs if "wall" in result)
    failed_runs = sum(1 for result in runs if result["exit"] != 0)
    third = steady.elapsed / 3
    first = [due for at, due in steady.samples if at <= third]
    last = [due for at, due in steady.samples if at >= steady.elapsed - third]
    largest = max((due for _, due in steady.samples), default=0)
    first_peak, last_peak = max(first, default=0), max(last, default=0)
    # Flat: the peaks of the last third are no higher than those of the first (a quarter more, or
    # one sample interval of retirements, for noise); a sweeper that falls behind grows without bound.
    flat = last_peak <= max(first_peak * 1.25, first_peak + retired * SAMPLE_EVERY)
    passed = flat and failed_runs == 0 and bool(runs) and bool(first) and bool(last)
    STEADY_ROWS.append({
        "streams": "{:,} / {:,}{}".format(STEADY_STREAMS, steady.replacing,
                                          " (scaled down)" if steady.replacing < STEADY_STREAMS else ""),
        "commits": "%.0f → %.0f" % (wanted, reached), "retired": "%.0f" % retired,
        "runs": "%d (%d)" % (len(runs), failed_runs), "sweep_rate": "{:,.0f}".format(rate(deleted, busy)),
        "deleted": "{:,} / {:,}".format(deleted, 2 * steady.commits), "largest": "{:,}".format(largest),
        "thirds": "{:,} → {:,}".format(first_peak, last_peak), "target": "backlog flat",
        "result": "PASS" if passed else "FAIL"})
    NOTES.append(
        "steady: %.0f s; %s streams each replace their preview every %.0f s (%d commit failures); the harness "
        "runs `sweep --max-seconds %d` every %.0f s like a cron (%.1f s of sweeping in all) and counts the objects due and not "
        "deleted in Redis every %.0f s; backlog at the end %s. Seeding all %s streams once reached %.0f "
        "commits/s%s" % (
            steady.elapsed, "{:,}".format(steady.replacing), PERIOD, steady.commit_failures,
            max(1, int(SWEEP_EVERY * 0.8)), SWEEP_EVERY, busy,
            SAMPLE_EVERY, fmt(final), fmt(STEADY_STREAMS), reachable,
            "" if steady.replacing == STEADY_STREAMS else
            ": too slow for %.0f commits/s beside the sweeper, so only %s streams replace (70%% of that rate); "
            "what matters is the sweep rate against the retirement rate" % (wanted, fmt(steady.replacing))))
    if steady.first_failure:
        NOTES.append("steady: first commit failure: %s" % steady.first_failure)


# ---------------------------------------------------------------------------------------------


def write_report(started, finished, host):
    target = ROOT / "BENCHMARKS.md" if not ONLY else WORK / "BENCHMARKS.md"
    lines = run_header(
        "## Sweeper", "Written by `make bench-sweep` (scripts/bench/sweep.py); rerun it to refresh this section.",
        started, finished, host, KNOBS, "make bench-sweep") + [
        "- serve and sweep: release build, `--upload-url-ttl %d --commit-window %d --grace %d`, serve with "
        "`--sweep-interval 0`; seeded through the public API only" % (LIFETIME, LIFETIME, LIFETIME),
        "",
        "One timed `streampreview sweep` run after a burst of garbage:",
        "",
    ] + table(BURST_COLUMNS, BURST_ROWS, markdown=True) + [
        "",
        "Steady state (objects retired at a fixed rate, `sweep` every %.0f s):" % SWEEP_EVERY,
        "",
    ] + table(STEADY_COLUMNS, STEADY_ROWS, markdown=True) + ["", "Notes:", ""] + ["- " + note for note in NOTES]
    report_sections.replace(target, "sweeper", lines)
    return target


def main():
    unknown = [name for name in ONLY if name not in WORKLOADS]
    if unknown:
        print("unknown workload(s) %s; choose from %s" % (", ".join(unknown), ", ".join(WORKLOADS)), file=sys.stderr)
        return 64
    if not BINARY.exists():
        print("%s is missing: swift build -c release" % BINARY, file=sys.stderr)
        return 69
    if subprocess.run(["redis-cli", "--version"], capture_output=True).returncode != 0:
        print("redis-cli is missing: run scripts/install-deps.sh bench as root", file=sys.stderr)
        return 69
    WORK.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))
    started = datetime.datetime.now(datetime.timezone.utc)
    host = machine()
    log("machine: %s" % host)
    tokens = Tokens()
    try:
        for name, run, rows, columns in (
                ("burst-local", run_burst_local, BURST_ROWS, BURST_COLUMNS),
                ("burst-s3", run_burst_s3, BURST_ROWS, BURST_COLUMNS),
                ("steady", run_steady, STEADY_ROWS, STEADY_COLUMNS)):
            if ONLY and name not in ONLY:
                continue
            log("workload %s" % name)
            try:
                run(tokens)
            except Exception as error:  # one broken workload must not lose the others' figures
                log("workload %s failed: %r" % (name, error))
                failed_row(rows, columns, name, error)
    finally:
        stop_all()
    finished = datetime.datetime.now(datetime.timezone.utc)
    print()
    print("\n".join(table(BURST_COLUMNS, BURST_ROWS, markdown=False)))
    print()
    print("\n".join(table(STEADY_COLUMNS, STEADY_ROWS, markdown=False)))
    print()
    for note in NOTES:
        print("- " + note)
    report = write_report(started, finished, host)
    print("\nwrote the Sweeper section of %s" % report.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        stop_all()
        sys.exit(130)
