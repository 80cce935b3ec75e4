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
(perf record -g on the server during `feed` and `upload-local`), BENCH_STALL_SECONDS (HEAD stall of the S3
stand-in in feed-slow-storage, default 3), BENCH_SLOW_COMMITTERS (concurrent background
commits there, default 16: twice serve's 8 worker threads).

Python 3 standard library only.
"""

import concurrent.futures
import ctypes
import datetime
import http.client as httpclient
import json
import os
import platform
import queue
import random
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

import report_sections

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "scripts" / "bench"
WORK = ROOT / ".build" / "bench"
BINARY = ROOT / ".build" / "release" / "streampreview"

SECONDS = int(os.environ.get("BENCH_SECONDS") or 10)
ROUNDS = int(os.environ.get("BENCH_ROUNDS") or 3)
SOAK_SECONDS = int(os.environ.get("BENCH_SOAK_SECONDS") or 600)
PROFILE = os.environ.get("BENCH_PROFILE") == "1"
STALL_SECONDS = float(os.environ.get("BENCH_STALL_SECONDS") or 3)
SLOW_COMMITTERS = int(os.environ.get("BENCH_SLOW_COMMITTERS") or 16)
ONLY = [name.strip() for name in (os.environ.get("BENCH_ONLY") or "").split(",") if name.strip()]

CONNECTIONS = 64
FEED_STREAMS = 200
VIEWERS = 1000
SEEN_PER_VIEWER = 20
LIKES_PER_VIEWER = 5
SCALE_STREAMS = [10, 100, 1000, 10000]
SCALE_SEEN = [0, 100, 10000]
UPLOAD_STREAMS = range(100001, 101001)
SLOW_STREAMS = range(200001, 200001 + 64)
STREAMS_PER_TOKEN = 100
FEED_PATH = "/api/feed?limit=20"
CLK_TCK = os.sysconf("SC_CLK_TCK")

# Limits raised with the server's own flags (and why), reported under the table.
SERVER_FLAGS = [
    "--preview-ttl", "7200",  # previews must stay live for the whole run (default 600 s)
    "--max-pending-uploads", "10000",  # upload workloads issue thousands of uploads per stream (default 8)
    "--max-retained-bytes-per-stream", "0",  # ... each counted at its signed size (default 1 GiB)
    "--max-retained-bytes-per-subject", "0",  # ... by few subjects (default 4 GiB)
    "--max-connections-per-ip", "2000",  # memory: 1,000 connections from 127.0.0.1 (default 64)
]
FLAG_NOTES = [
    "server flags: --preview-ttl 7200 (previews stay live for the whole run; default 600), "
    "--max-pending-uploads 10000 (upload workloads issue many uploads per stream without committing; default 8), "
    "--max-retained-bytes-per-stream 0 and --max-retained-bytes-per-subject 0 (those uploads count at their signed "
    "sizes; defaults 1 GiB and 4 GiB), "
    "--max-connections-per-ip 2000 (memory opens 1,000 connections from 127.0.0.1; default 64); "
    "everything else is serve's embedded default (8 threads, embedded Redis on a unix socket)",
]

WORKLOADS = [
    "feed", "feed-anon", "healthz", "feed-mixed", "upload-local", "memory",
    "feed-scale", "upload-s3", "feed-slow-storage", "upload-gcs-rsa",
]


def log(message):
    print("[bench %s] %s" % (time.strftime("%H:%M:%S"), message), file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Child processes: every one is recorded and stopped by its PID.

STARTED = []


def _die_with_parent():
    # PR_SET_PDEATHSIG: the child gets SIGTERM if this driver dies without cleaning up.
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
    except OSError:
        pass


def spawn(command, **kwargs):
    process = subprocess.Popen([str(part) for part in command], preexec_fn=_die_with_parent, **kwargs)
    STARTED.append(process)
    return process


def stop(process, grace=10.0):
    if process.poll() is None:
        try:
            os.kill(process.pid, signal.SIGTERM)
            process.wait(timeout=grace)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=grace)
    if process in STARTED:
        STARTED.remove(process)


def stop_all():
    for process in list(reversed(STARTED)):
        try:
            stop(process)
        except Exception as error:  # keep stopping the others
            log("could not stop pid %d: %s" % (process.pid, error))


def read_listening_line(process, name, timeout=120):
    """Waits for 'listening on http://HOST:PORT' on the child's stdout; the rest goes to a log."""
    lines = queue.Queue()
    sink = open(WORK / ("%s.stdout.log" % name), "w")

    def pump():
        for raw in process.stdout:
            text = raw.decode(errors="replace")
            sink.write(text)
            sink.flush()
            lines.put(text)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        if line is None:
            break
        match = re.search(r"listening on (http://[\w.:\[\]]+)", line)
        if match:
            return match.group(1)
    raise RuntimeError("%s did not start (see %s)" % (name, WORK / ("%s.*.log" % name)))


# ---------------------------------------------------------------------------------------------
# HTTP through the public API (keep-alive connections per thread).

_local = threading.local()


def http(method, url, body=None, headers=None, timeout=60):
    parts = urllib.parse.urlsplit(url)
    target = parts.path + ("?" + parts.query if parts.query else "")
    connections = getattr(_local, "connections", None)
    if connections is None:
        connections = _local.connections = {}
    for attempt in range(2):
        connection = connections.get(parts.netloc)
        if connection is None:
            connection = connections[parts.netloc] = httpclient.HTTPConnection(parts.netloc, timeout=timeout)
        try:
            connection.request(method, target, body=body, headers=headers or {})
            response = connection.getresponse()
            data = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        except (OSError, httpclient.HTTPException):
            connection.close()
            connections.pop(parts.netloc, None)
            if attempt == 1:
                raise


def expect(status, wanted, what, body=b""):
    if status not in wanted:
        raise RuntimeError("%s: HTTP %d %s" % (what, status, body[:300].decode(errors="replace")))


def parallel(function, items, workers=16):
    pool = concurrent.futures.ThreadPoolExecutor(workers)
    try:
        return list(pool.map(function, items))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # on Ctrl-C or a failure, drop what has not started


# ---------------------------------------------------------------------------------------------
# Media: the same tiny fast-start MP4 and JPEG as Sources/PreviewTestSupport/TestMedia.swift.


def _be32(value):
    return value.to_bytes(4, "big")


def _box(kind, payload):
    return _be32(8 + len(payload)) + kind.encode() + payload


def _pattern(count, seed):
    return bytes((i * 31 + seed * 7 + (i >> 8)) & 0xFF for i in range(count))


def test_mp4(size=2048, duration_ms=10000, width=640, height=360):
    ftyp = _box("ftyp", b"isom" + bytes([0, 0, 2, 0]) + b"isommp41")
    mvhd = bytearray(100)
    mvhd[12:16], mvhd[16:20], mvhd[20:24], mvhd[96:100] = _be32(1000), _be32(duration_ms), _be32(0x10000), _be32(2)
    tkhd = bytearray(84)
    tkhd[0:4], tkhd[12:16], tkhd[20:24] = _be32(3), _be32(1), _be32(duration_ms)
    tkhd[76:80], tkhd[80:84] = _be32(width << 16), _be32(height << 16)
    hdlr = bytes(8) + b"vide" + bytes(13)
    trak = _box("trak", _box("tkhd", bytes(tkhd)) + _box("mdia", _box("hdlr", hdlr)))
    head = ftyp + _box("moov", _box("mvhd", bytes(mvhd)) + trak)
    return head + _box("mdat", _pattern(max(0, size - len(head) - 8), 0))


def test_jpeg(size=512):
    head = bytes([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]) + b"JFIF" + bytes([0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
    return head + _pattern(max(0, size - len(head) - 2), 0) + bytes([0xFF, 0xD9])


MOVIE = test_mp4()
THUMBNAIL = test_jpeg()


# ---------------------------------------------------------------------------------------------
# Tokens, minted by `streampreview token` with the secret every server of the run is given.


class Tokens:
    def __init__(self):
        secret_file = WORK / "token-secret"
        self.cache_file = WORK / "tokens.json"
        fresh = secret_file.exists() and time.time() - secret_file.stat().st_mtime < 20 * 3600
        if not fresh:
            secret_file.write_text(secrets.token_hex(32))
            self.cache_file.unlink(missing_ok=True)
        self.secret = secret_file.read_text().strip()
        self.cache = json.loads(self.cache_file.read_text()) if self.cache_file.exists() else {}
        self.lock = threading.Lock()

    def environment(self):
        return dict(os.environ, STREAMPREVIEW_TOKEN_SECRET=self.secret)

    def _mint(self, spec):
        subject, role, streams = spec
        command = [str(BINARY), "token", "--sub", subject, "--role", role]
        for stream in streams:
            command += ["--stream", str(stream)]
        result = subprocess.run(command, env=self.environment(), capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError("streampreview token failed: %s" % result.stderr.strip())
        return result.stdout.strip()

    def many(self, specs):
        keys = ["%s|%s|%s" % (subject, role, ",".join(map(str, streams))) for subject, role, streams in specs]
        missing = [(key, spec) for key, spec in zip(keys, specs) if key not in self.cache]
        if missing:
            log("minting %d tokens with streampreview token" % len(missing))
            minted = parallel(lambda item: self._mint(item[1]), missing, workers=8)
            with self.lock:
                for (key, _), token in zip(missing, minted):
                    self.cache[key] = token
                self.cache_file.write_text(json.dumps(self.cache))
        return [self.cache[key] for key in keys]

    def viewers(self, prefix, count):
        return self.many([("%s-%d" % (prefix, n), "viewer", []) for n in range(count)])

    def streamers(self, stream_ids):
        """A streamer token for each stream, one token per block of STREAMS_PER_TOKEN streams."""
        stream_ids = list(stream_ids)
        blocks = [stream_ids[i : i + STREAMS_PER_TOKEN] for i in range(0, len(stream_ids), STREAMS_PER_TOKEN)]
        specs = [("streamer-%d-%d" % (block[0], block[-1]), "streamer", block) for block in blocks]
        owner = {}
        for block, token in zip(blocks, self.many(specs)):
            for stream in block:
                owner[stream] = token
        return owner


def write_lines(name, lines):
    path = WORK / name
    path.write_text("".join("%s\n" % line for line in lines))
    return path


# ---------------------------------------------------------------------------------------------
# The server under test and its ceilings.


DISCARDING = set()


def discard(path):
    """Moves a previous run's directory aside and deletes it in the background: a data dir of
    10,000 previews takes minutes to delete on a busy disk. Leftovers go on the next run."""
    trash = WORK / "trash"
    trash.mkdir(exist_ok=True)
    if path.exists():
        path.rename(trash / ("%s-%d" % (path.name, time.time_ns())))
    for old in trash.iterdir():
        if old in DISCARDING:
            continue
        DISCARDING.add(old)
        threading.Thread(target=shutil.rmtree, args=(old,), kwargs={"ignore_errors": True}, daemon=True).start()


def proc_cpu_ticks(pid):
    fields = Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)


def proc_rss_mib(pid):
    for line in Path("/proc/%d/status" % pid).read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return 0.0


class Server:
    def __init__(self, name, tokens, extra_flags=(), environment=None):
        self.name = name
        self.data = WORK / name
        discard(self.data)
        command = [BINARY, "serve", "--port", "0", "--data-dir", self.data, *SERVER_FLAGS, *extra_flags]
        env = tokens.environment()
        env.update(environment or {})
        log("starting %s: %s" % (name, " ".join(map(str, command[1:]))))
        self.process = spawn(
            command, env=env, stdout=subprocess.PIPE, stderr=open(WORK / ("%s.stderr.log" % name), "w"))
        self.base = read_listening_line(self.process, name)
        self.pid = self.process.pid
        log("%s listening on %s (pid %d)" % (name, self.base, self.pid))

    def redis_socket(self):
        found = sorted(self.data.rglob("redis.sock"))
        return found[0] if found else None

    def stop(self):
        stop(self.process)


class Nginx:
    """nginx from Debian with a private prefix and config, serving files at fixed paths."""

    def __init__(self):
        self.prefix = WORK / "nginx"
        shutil.rmtree(self.prefix, ignore_errors=True)
        (self.prefix / "html").mkdir(parents=True)
        (self.prefix / "logs").mkdir()
        self.files = {}

    def add(self, path, body, content_type):
        name = "f%d" % len(self.files)
        (self.prefix / "html" / name).write_bytes(body)
        self.files[path] = (name, content_type)

    def start(self):
        import socket

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        locations = "".join(
            '        location = %s { types { } default_type "%s"; try_files /%s =404; }\n' % (path, ctype, name)
            for path, (name, ctype) in self.files.items())
        user = "user root;\n" if os.getuid() == 0 else ""
        config = (
            "%sworker_processes auto;\ndaemon off;\npid %s/nginx.pid;\nerror_log %s/logs/error.log warn;\n"
            "events { worker_connections 4096; }\n"
            "http {\n    access_log off;\n    keepalive_requests 100000000;\n    keepalive_timeout 60s;\n"
            "    client_body_temp_path %s/tmp; proxy_temp_path %s/tmp; fastcgi_temp_path %s/tmp;\n"
            "    uwsgi_temp_path %s/tmp; scgi_temp_path %s/tmp;\n"
            "    server {\n        listen 127.0.0.1:%d;\n        root %s/html;\n%s    }\n}\n"
        ) % (user, self.prefix, self.prefix, *([self.prefix] * 5), port, self.prefix, locations)
        (self.prefix / "tmp").mkdir(exist_ok=True)
        (self.prefix / "nginx.conf").write_text(config)
        self.process = spawn(
            ["nginx", "-p", self.prefix, "-c", self.prefix / "nginx.conf", "-e", self.prefix / "logs/error.log"],
            stdout=subprocess.DEVNULL, stderr=open(WORK / "nginx.stderr.log", "w"))
        self.base = "http://127.0.0.1:%d" % port
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                status, _, _ = http("GET", self.base + next(iter(self.files)), timeout=2)
                if status == 200:
                    log("nginx listening on %s (pid %d)" % (self.base, self.process.pid))
                    return
            except OSError:
                time.sleep(0.2)
            if self.process.poll() is not None:
                break
        raise RuntimeError("nginx did not start (see %s)" % (self.prefix / "logs/error.log"))


class S3StandIn:
    def __init__(self):
        self.process = spawn(
            [sys.executable, HERE / "s3_standin.py"], stdout=subprocess.PIPE,
            stderr=open(WORK / "s3-standin.stderr.log", "w"))
        self.base = read_listening_line(self.process, "s3-standin", timeout=30)

    def stall(self, seconds):
        status, _, body = http("POST", "%s/_bench/stall?seconds=%s" % (self.base, seconds), body=b"")
        expect(status, (204,), "stall", body)


# ---------------------------------------------------------------------------------------------
# Seeding through the public API.


def upload_and_commit(server, token, stream_id):
    """What an uploader app does: ask for two signed PUT URLs, PUT both objects, commit."""
    auth = {"Authorization": "Bearer " + token}
    request = json.dumps({
        "streamId": str(stream_id), "movieBytes": len(MOVIE), "thumbnailBytes": len(THUMBNAIL),
        "movieContentType": "video/mp4", "thumbnailContentType": "image/jpeg"}).encode()
    status, _, body = http(
        "POST", server.base + "/api/preview/post", request, dict(auth, **{"Content-Type": "application/json"}))
    expect(status, (200,), "POST /api/preview/post", body)
    answer = json.loads(body)
    for url, headers, data in (
        (answer["movieBodyUrl"], answer["movieHeaders"], MOVIE),
        (answer["movieThumbnailBodyUrl"], answer["thumbnailHeaders"], THUMBNAIL),
    ):
        status, _, reply = http("PUT", url, data, dict(headers))
        expect(status, (200, 201, 204), "PUT " + url, reply)
    commit = json.dumps({"streamId": str(stream_id), "uploadId": answer["uploadId"]}).encode()
    status, _, body = http(
        "POST", server.base + "/api/preview/commit", commit, dict(auth, **{"Content-Type": "application/json"}))
    expect(status, (200,), "POST /api/preview/commit", body)


def seed_streams(server, tokens, stream_ids):
    owners = tokens.streamers(stream_ids)
    started = time.monotonic()
    parallel(lambda stream: upload_and_commit(server, owners[stream], stream), list(stream_ids), workers=16)
    log("%s: %d previews uploaded and committed in %.1f s" % (
        server.name, len(stream_ids), time.monotonic() - started))


def viewer_action(server, token, stream_id, action):
    status, _, body = http(
        "POST", "%s/api/streams/%d/%s" % (server.base, stream_id, action), b"", {"Authorization": "Bearer " + token})
    expect(status, (200, 204), "POST %s" % action, body)


def seed_viewer_actions(server, actions):
    started = time.monotonic()
    parallel(lambda item: viewer_action(server, *item), actions, workers=32)
    log("%s: %d seen marks and likes in %.1f s" % (server.name, len(actions), time.monotonic() - started))


# ---------------------------------------------------------------------------------------------
# Load: wrk with the Lua scripts beside this file.


def redis_benchmark_rates(name, socket_path, commands, requests, options=()):
    """Requests/s redis-benchmark gives each command on `socket_path` with 64 clients; None (and a
    note for row `name`) when it gives no figure."""
    rates = []
    for command in commands:
        output = subprocess.run(
            ["redis-benchmark", "-s", str(socket_path), "-c", str(CONNECTIONS), "-n", str(requests), *options, "-q",
             *command], capture_output=True, text=True, timeout=300).stdout
        match = re.findall(r"([\d.]+) requests per second", output.replace("\r", "\n"))
        if not match:
            NOTES.append("%s: redis-benchmark gave no figure: %r" % (name, output[-200:]))
            return None
        rates.append(float(match[-1]))
    return rates


def monitor_words(line):
    """The command of a redis-cli MONITOR line (`<time> [<db> <client>] "WORD" "WORD" ...`), its
    words unescaped (MONITOR escapes quotes, backslashes, control and non-ASCII bytes)."""
    escapes = {"n": "\n", "r": "\r", "t": "\t", "a": "\a", "b": "\b", '"': '"', "\\": "\\"}
    words = []
    for quoted in re.findall(r'"((?:[^"\\]|\\.)*)"', line):
        words.append(re.sub(r"\\(x[0-9a-fA-F]{2}|.)", lambda m: chr(int(m.group(1)[1:], 16))
                            if m.group(1).startswith("x") else escapes.get(m.group(1), m.group(1)), quoted))
    return words


def wrk(url, script, seconds, connections=CONNECTIONS, env=None, timeout="10s"):
    command = [
        "wrk", "-t", "2", "-c", str(connections), "-d", "%ds" % seconds, "--timeout", timeout,
        "-s", str(HERE / script), url]
    environment = dict(os.environ, BENCH_LUA_DIR=str(HERE), **(env or {}))
    result = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=seconds + 120)
    for line in result.stdout.splitlines():
        if line.startswith("BENCH_RESULT "):
            data = json.loads(line[len("BENCH_RESULT "):])
            if data["requests"] == 0:
                # Nothing answered within the run: the requests still waiting are its errors.
                data["errors"] = max(data["errors"], data["unanswered"], 1)
            data["seconds"] = data["duration_us"] / 1e6
            data["rps"] = data["requests"] / data["seconds"]
            data["feed_rps"] = data["feeds"] / data["seconds"]
            return data
    raise RuntimeError("wrk gave no result (rc %d): %s %s" % (result.returncode, result.stdout, result.stderr))


def measured(pid, run):
    """Runs `run()` (a wrk call) and adds the server's CPU per request and RSS to its result."""
    before = proc_cpu_ticks(pid)
    result = run()
    used = proc_cpu_ticks(pid) - before
    result["cpu_us"] = used * 1e6 / CLK_TCK / max(result["requests"], 1)
    result["rss_mib"] = proc_rss_mib(pid)
    return result


def share(part, whole):
    """part / whole, 0 when nothing was measured (a run where no request finished)."""
    return part / whole if whole else 0.0


def medians(results):
    keys = [key for key, value in results[0].items() if isinstance(value, (int, float))]
    return {key: statistics.median(result[key] for result in results) for key in keys}


def alternate(runs):
    """runs: {label: function}. Runs each in turn, ROUNDS times; returns {label: medians}."""
    collected = {label: [] for label in runs}
    for round_number in range(ROUNDS):
        for label, run in runs.items():
            result = run()
            collected[label].append(result)
            log("  round %d %-14s %9.0f rps  p99 %7.2f ms  errors %d" % (
                round_number + 1, label, result.get("rps", 0), result.get("p99_us", 0) / 1000,
                result.get("errors", 0)))
    return {label: medians(results) for label, results in collected.items()}


# ---------------------------------------------------------------------------------------------
# Results table.

ROWS = []
NOTES = list(FLAG_NOTES)
PROFILE_TEXT = []


def ceiling_errors(result):
    """A note when the ceiling itself answered wrongly (its figure is then no ceiling)."""
    if result.get("errors"):
        return "the ceiling had %d errors in its median round: its figure is not valid" % result["errors"]
    return None


def row(name, target=None, ceiling=None, ceiling_name="", ratio=None, ratio_text=None, goal="", passed=None,
        rss=None, note=None):
    target = target or {}
    answered = bool(target.get("requests"))
    ROWS.append({
        "workload": name,
        "rps": target.get("rps"),
        "p50_ms": target["p50_us"] / 1000 if answered else None,
        "p99_ms": target["p99_us"] / 1000 if answered else None,
        "p999_ms": target["p999_us"] / 1000 if answered else None,
        "errors": target.get("errors"),
        "rss_mib": rss if rss is not None else target.get("rss_mib"),
        "cpu_us": target.get("cpu_us") if answered else None,
        "ceiling": ceiling_name,
        "ceiling_rps": ceiling,
        "ratio": ratio_text if ratio_text is not None else ("%.2f×" % ratio if ratio is not None else ""),
        "target": goal,
        "result": "" if passed is None else ("PASS" if passed else "FAIL"),
    })
    if note:
        NOTES.append("%s: %s" % (name, note))
    if target and not answered:
        NOTES.append("%s: no request was answered within a %d s round (about %d still waiting at its end, "
                     "counted as errors)" % (name, SECONDS, target.get("unanswered", 0)))


COLUMNS = [
    ("workload", "workload"), ("rps", "req/s"), ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"),
    ("p999_ms", "p99.9 ms"), ("errors", "errors"), ("rss_mib", "RSS MiB"), ("cpu_us", "CPU µs/req"),
    ("ceiling", "ceiling"), ("ceiling_rps", "ceiling req/s"), ("ratio", "ratio"), ("target", "target"),
    ("result", "result"),
]


def cell(key, value):
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if key in ("rps", "ceiling_rps"):
        return "{:,.0f}".format(value)
    if key == "errors":
        return "{:,}".format(int(value))
    if key == "cpu_us":
        return "%.0f" % value
    if key == "rss_mib":
        return "%.1f" % value
    return "%.2f" % value


def table_lines(markdown):
    header = [title for _, title in COLUMNS]
    body = [[cell(key, entry[key]) for key, _ in COLUMNS] for entry in ROWS]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        return lines + ["| " + " | ".join(cells) + " |" for cells in body]
    widths = [max(len(cells[i]) for cells in [header] + body) for i in range(len(header))]
    def fmt(cells):
        return "  ".join(c.ljust(w) if i in (0, 8, 11) else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    return [fmt(header), fmt(["-" * w for w in widths])] + [fmt(cells) for cells in body]


# ---------------------------------------------------------------------------------------------
# Workloads.


class Bench:
    def __init__(self):
        self.tokens = Tokens()
        self.servers = {}
        self.nginx = None
        self.standin = None
        self.ceiling_files = {}

    # -- servers, started on first use and seeded once ----------------------------------------

    def main(self):
        if "main" not in self.servers:
            server = self.servers["main"] = Server("main", self.tokens)
            viewers = self.tokens.viewers("viewer", VIEWERS)
            seed_streams(server, self.tokens, range(1, FEED_STREAMS + 1))
            rng = random.Random(8)
            actions = []
            for token in viewers:
                for stream in rng.sample(range(1, FEED_STREAMS + 1), SEEN_PER_VIEWER):
                    actions.append((token, stream, "seen"))
                for stream in rng.sample(range(1, FEED_STREAMS + 1), LIKES_PER_VIEWER):
                    actions.append((token, stream, "like"))
            seed_viewer_actions(server, actions)
            self.viewer_tokens = write_lines("viewers.txt", viewers)
            self.live_streams = write_lines("live-streams.txt", range(1, FEED_STREAMS + 1))
            # The ceiling's bytes: one real answer of each kind, served by nginx as a static file.
            status, headers, body = http(
                "GET", server.base + FEED_PATH, headers={"Authorization": "Bearer " + viewers[0]})
            expect(status, (200,), "feed", body)
            self.ceiling_files["/api/feed"] = (body, headers["content-type"])
            status, headers, body = http("GET", server.base + FEED_PATH)
            expect(status, (200,), "anonymous feed", body)
            self.ceiling_files["/anon/api/feed"] = (body, headers["content-type"])
            status, headers, body = http("GET", server.base + "/healthz")
            expect(status, (200,), "healthz", body)
            self.ceiling_files["/healthz"] = (body, headers.get("content-type", "text/plain"))
            owners = self.tokens.streamers(UPLOAD_STREAMS)
            self.upload_pairs = write_lines("upload-pairs.txt", ["%s %d" % (owners[s], s) for s in UPLOAD_STREAMS])
            request = json.dumps({
                "streamId": str(UPLOAD_STREAMS[0]), "movieBytes": len(MOVIE), "thumbnailBytes": len(THUMBNAIL),
                "movieContentType": "video/mp4", "thumbnailContentType": "image/jpeg"}).encode()
            status, headers, body = http("POST", server.base + "/api/preview/post", request, {
                "Authorization": "Bearer " + owners[UPLOAD_STREAMS[0]], "Content-Type": "application/json"})
            expect(status, (200,), "upload", body)
            self.ceiling_files["/upload.json"] = (body, headers["content-type"])
            log("feed answer %d bytes (%d anonymous), upload answer %d bytes" % (
                len(self.ceiling_files["/api/feed"][0]), len(self.ceiling_files["/anon/api/feed"][0]), len(body)))
        return self.servers["main"]

    def ceiling(self):
        if self.nginx is None:
            self.main()
            self.nginx = Nginx()
            for path, (body, content_type) in self.ceiling_files.items():
                self.nginx.add(path, body, content_type)
            self.nginx.start()
        return self.nginx

    def s3_standin(self):
        if self.standin is None:
            self.standin = S3StandIn()
        return self.standin

    def s3(self):
        if "s3" not in self.servers:
            standin = self.s3_standin()
            server = self.servers["s3"] = Server(
                "s3", self.tokens, ["--storage", "s3", "--bucket", "bench", "--endpoint", standin.base,
                                    "--addressing", "path"],
                {"STREAMPREVIEW_S3_ACCESS_KEY_ID": "AKIABENCHDUMMY", "STREAMPREVIEW_S3_SECRET_ACCESS_KEY": "dummy"})
            self.s3_seeded = False
        return self.servers["s3"]

    def gcs(self):
        if "gcs" not in self.servers:
            key_file = WORK / "gcs-key.json"
            pem = subprocess.run(
                ["openssl", "genrsa", "2048"], capture_output=True, text=True, check=True, timeout=60).stdout
            key_file.write_text(json.dumps({
                "type": "service_account", "client_email": "bench@bench.iam.gserviceaccount.com",
                "private_key": pem}))
            self.servers["gcs"] = Server(
                "gcs", self.tokens,
                ["--storage", "gcs", "--bucket", "bench", "--endpoint", self.s3_standin().base],
                {"STREAMPREVIEW_GCS_KEY_FILE": str(key_file)})
        return self.servers["gcs"]

    def release(self, name):
        server = self.servers.pop(name, None)
        if server:
            server.stop()

    # -- workloads --------------------------------------------------------------------------

    def feed_pair(self, server, path=FEED_PATH, tokens=True, nginx_path="/api/feed", extra=None):
        env = {"BENCH_TOKENS": str(self.viewer_tokens)} if tokens else {}
        env.update(extra or {})
        nginx = self.ceiling()
        return {
            "target": lambda: measured(server.pid, lambda: wrk(server.base + path, "feed.lua", SECONDS, env=env)),
            "nginx": lambda: wrk(nginx.base + nginx_path + "?limit=20", "feed.lua", SECONDS, env=env),
        }

    def feed_run(self, server, env):
        """One measured round of GET /api/feed?limit=20 at 64 connections."""
        return measured(server.pid, lambda: wrk(server.base + FEED_PATH, "feed.lua", SECONDS, env=env))

    def warm(self, server, script="feed.lua", path=FEED_PATH, env=None):
        wrk(server.base + path, script, 2, env=env)

    def feed_like(self, name, tokens, nginx_path):
        server = self.main()
        env = {"BENCH_TOKENS": str(self.viewer_tokens)} if tokens else {}
        self.ceiling()
        self.warm(server, env=env)
        result = alternate(self.feed_pair(server, tokens=tokens, nginx_path=nginx_path))
        target, nginx = result["target"], result["nginx"]
        ratio = share(target["rps"], nginx["rps"])
        p99_ratio = share(target["p99_us"], nginx["p99_us"])
        passed = ratio >= 0.6 and p99_ratio <= 2.0 and target["errors"] == 0
        row(name, target, nginx["rps"], "nginx same bytes", ratio,
            ratio_text="%.2f×, p99 %.1f×" % (ratio, p99_ratio), goal="≥0.60×, p99 ≤2×, 0 err", passed=passed,
            note="nginx p50/p99/p99.9 %.2f/%.2f/%.2f ms, %d errors" % (
                nginx["p50_us"] / 1000, nginx["p99_us"] / 1000, nginx["p999_us"] / 1000, nginx["errors"]))
        return target

    def run_feed(self):
        target = self.feed_like("feed", True, "/api/feed")
        self.redis_ceiling(target)
        if PROFILE:
            self.profile(self.main(), "feed", self.main().base + FEED_PATH, "feed.lua",
                         {"BENCH_TOKENS": str(self.viewer_tokens)})

    def run_feed_anon(self):
        self.feed_like("feed-anon", False, "/anon/api/feed")

    def run_healthz(self):
        server = self.main()
        nginx = self.ceiling()
        env = {"BENCH_EXPECT": "ok"}
        result = alternate({
            "target": lambda: measured(server.pid, lambda: wrk(server.base + "/healthz", "feed.lua", SECONDS, env=env)),
            "nginx": lambda: wrk(nginx.base + "/healthz", "feed.lua", SECONDS, env=env),
        })
        ratio = share(result["target"]["rps"], result["nginx"]["rps"])
        row("healthz", result["target"], result["nginx"]["rps"], "nginx same bytes", ratio, goal="reference",
            note=ceiling_errors(result["nginx"]))

    def redis_ceiling(self, feed):
        """redis-benchmark for the commands one feed request sends: HMGET of the viewer's seen hash
        and SMISMEMBER of the liked set, each for the 2×limit+24 = 64 first candidate streams."""
        server = self.main()
        socket_path = server.redis_socket()
        if socket_path is None or shutil.which("redis-benchmark") is None:
            NOTES.append("feed vs redis: skipped (no redis-benchmark or no embedded Redis socket)")
            return
        candidates = [str(stream) for stream in range(1, 65)]
        rates = redis_benchmark_rates("feed vs redis", socket_path, [
            ["HMGET", "sp:{v:viewer-0}:seen"] + candidates, ["SMISMEMBER", "sp:{v:viewer-0}:liked"] + candidates],
            requests=200000)
        if rates is None:
            return
        combined = share(1, sum(share(1, rate) for rate in rates))
        row("feed vs redis", feed, combined, "redis-benchmark", share(feed["rps"], combined), goal="reference",
            note="redis-benchmark on the embedded Redis's unix socket, 64 clients: HMGET of 64 fields of a "
            "20-entry seen hash %.0f/s, SMISMEMBER of 64 members of a 5-member liked set %.0f/s; both in "
            "sequence %.0f/s (the feed sends them pipelined, once per request; the live list is cached)" % (
                rates[0], rates[1], combined))

    def upload_redis_ceiling(self, upload):
        """redis-benchmark for the commands one upload request sends, as the server sent them
        (captured with MONITOR during one upload): the sweep queue's ZADD LT and ZADD GT and the
        record script's EVALSHA, each recording a new upload of one of 1,000 streams."""
        server = self.main()
        socket_path = server.redis_socket()
        if socket_path is None or shutil.which("redis-benchmark") is None:
            NOTES.append("upload vs redis: skipped (no redis-benchmark or no embedded Redis socket)")
            return
        stream = UPLOAD_STREAMS[0]
        commands = self.captured_upload_commands(server, socket_path, stream)
        if commands is None:
            NOTES.append("upload vs redis: MONITOR did not show the upload's commands")
            return
        rates = redis_benchmark_rates("upload vs redis", socket_path, commands, requests=100000,
                                      options=["-r", "1000"])
        if rates is None:
            return
        combined = share(1, sum(share(1, rate) for rate in rates))
        row("upload vs redis", upload, combined, "redis-benchmark", share(upload["rps"], combined), goal="reference",
            note="redis-benchmark on the embedded Redis's unix socket (append-only file on), 64 clients, the "
            "commands of one upload as MONITOR showed them, stream and upload IDs randomised over 1,000 streams: "
            "ZADD LT of the sweep queue %.0f/s, ZADD GT of its touch times %.0f/s, EVALSHA of the record script "
            "(%d arguments) %.0f/s; all three in sequence %.0f/s (the server sends them pipelined, in one round "
            "trip)" % (rates[0], rates[1], len(commands[2]) - 1, rates[2], combined))

    def captured_upload_commands(self, server, socket_path, stream):
        """The ZADD LT, ZADD GT and EVALSHA one upload of `stream` sends, with the stream and
        upload IDs replaced by redis-benchmark's __rand_int__; None if MONITOR did not show them."""
        monitor = spawn(["redis-cli", "-s", str(socket_path), "MONITOR"], stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, text=True)
        try:
            if monitor.stdout.readline().strip() != "OK":
                return None
            owners = self.tokens.streamers([stream])
            request = json.dumps({
                "streamId": str(stream), "movieBytes": len(MOVIE), "thumbnailBytes": len(THUMBNAIL),
                "movieContentType": "video/mp4", "thumbnailContentType": "image/jpeg"}).encode()
            status, _, body = http("POST", server.base + "/api/preview/post", request, {
                "Authorization": "Bearer " + owners[stream], "Content-Type": "application/json"})
            expect(status, (200,), "upload", body)
            upload_id = json.loads(body)["uploadId"]
            found = {}
            deadline = time.monotonic() + 10
            while len(found) < 3 and time.monotonic() < deadline:
                line = monitor.stdout.readline()
                if not line:
                    break
                words = monitor_words(line)
                if words[:1] == ["ZADD"] and words[2:3] in (["LT"], ["GT"]) and words[-1] == str(stream):
                    found[words[2]] = words
                elif words[:1] == ["EVALSHA"] and any(upload_id in word for word in words):
                    found["EVALSHA"] = words
            if len(found) < 3:
                return None
        finally:
            stop(monitor)

        def randomised(words):
            marker = "{s:%d}" % stream
            return [word.replace(upload_id, "__rand_int__").replace(marker, "{s:__rand_int__}")
                    if word != str(stream) else "__rand_int__" for word in words]

        return [randomised(found["LT"]), randomised(found["GT"]), randomised(found["EVALSHA"])]

    def profile(self, server, name, url, script, env):
        """perf record -g on the server during one more run of `name`; also the CPU per request of
        the server and of its embedded Redis over that run."""
        if shutil.which("perf") is None:
            NOTES.append("profile: perf is not installed (Debian linux-perf)")
            return
        data = WORK / ("perf-%s.data" % name)
        log("profiling %s with perf record -g for %d s" % (name, SECONDS))
        redis = subprocess.run(["pgrep", "-P", str(server.pid), "redis-server"], capture_output=True,
                               text=True).stdout.split()
        before = [proc_cpu_ticks(server.pid)] + [proc_cpu_ticks(int(pid)) for pid in redis[:1]]
        recorder = spawn(
            ["perf", "record", "-g", "-p", str(server.pid), "-o", data, "--", "sleep", str(SECONDS)],
            stdout=subprocess.DEVNULL, stderr=open(WORK / "perf.stderr.log", "w"))
        result = wrk(url, script, SECONDS, env=env)
        after = [proc_cpu_ticks(server.pid)] + [proc_cpu_ticks(int(pid)) for pid in redis[:1]]
        recorder.wait(timeout=SECONDS + 60)
        stop(recorder)
        per_request = [(b - a) * 1e6 / CLK_TCK / max(result["requests"], 1) for a, b in zip(before, after)]
        split = "server %.0f µs of CPU a request" % per_request[0]
        if len(per_request) > 1:
            split += ", its embedded Redis %.0f µs" % per_request[1]
        flat = self.perf_report(data, ["--percent-limit", "0.7", "-g", "none", "--sort", "dso,symbol"])
        # Frames perf could not name (addresses only) say nothing: left out.
        inclusive = [line for line in self.perf_report(
            data, ["--percent-limit", "4", "-g", "none", "--sort", "symbol"], children=True)
            if not re.search(r"\] (0x)?[0-9a-f]+$", line)]
        PROFILE_TEXT.append((name, "%.0f requests/s while recorded; %s" % (result["rps"], split), flat[:40],
                             inclusive[:45]))

    @staticmethod
    def perf_report(data, options, children=False):
        report = subprocess.run(
            ["perf", "report", "--children" if children else "--no-children", "--stdio", "-i", str(data), *options],
            capture_output=True, text=True, timeout=600).stdout
        swift = shutil.which("swift")
        if swift:
            report = subprocess.run(
                [swift, "demangle", "--simplified", "--compact"], input=report, capture_output=True, text=True,
                timeout=300).stdout or report
        return [re.sub(r"(\s+-)+\s*$", "", line.rstrip())[:160] for line in report.splitlines()
                if line.strip() and not line.startswith("#") and line.strip() != "|"]

    def run_feed_mixed(self):
        server = self.main()
        env = {"BENCH_TOKENS": str(self.viewer_tokens)}
        mixed = dict(env, BENCH_MIX_PERCENT="2", BENCH_STREAMS=str(self.live_streams))
        self.warm(server, env=env)
        result = alternate({
            "pure feed": lambda: self.feed_run(server, env),
            "mixed": lambda: self.feed_run(server, mixed),
        })
        pure, mix = result["pure feed"], result["mixed"]
        shown = dict(mix, rps=mix["feed_rps"])
        ratio = share(mix["feed_rps"], pure["rps"])
        row("feed-mixed", shown, pure["rps"], "pure feed, same run", ratio, goal="≥0.90×",
            passed=ratio >= 0.9 and mix["errors"] == 0,
            note="2%% of requests are POST like/seen (half each) on the 200 live streams; req/s counts feed "
            "answers only (%.0f like/seen answers/s besides); latencies over all requests" % (
                mix["writes"] / mix["seconds"]))

    def upload_row(self, name, server, goal_ratio=0.4):
        nginx = self.ceiling()
        env = {"BENCH_PAIRS": str(self.upload_pairs), "BENCH_MOVIE_BYTES": str(len(MOVIE)),
               "BENCH_THUMBNAIL_BYTES": str(len(THUMBNAIL))}
        self.warm(server, "upload.lua", "/api/preview/post", env)
        result = alternate({
            "target": lambda: measured(server.pid, lambda: wrk(server.base, "upload.lua", SECONDS, env=env)),
            "nginx": lambda: wrk(nginx.base, "upload.lua", SECONDS, env=dict(env, BENCH_PATH="/upload.json")),
        })
        ratio = share(result["target"]["rps"], result["nginx"]["rps"])
        row(name, result["target"], result["nginx"]["rps"],
            "nginx %d-byte JSON" % len(self.ceiling_files["/upload.json"][0]), ratio, goal="≥%.2f×" % goal_ratio,
            passed=ratio >= goal_ratio and result["target"]["errors"] == 0, note=ceiling_errors(result["nginx"]))
        return result["target"]

    def run_upload_local(self):
        self.main()
        upload = self.upload_row("upload-local", self.main())
        self.upload_redis_ceiling(upload)
        if PROFILE:
            self.profile(self.main(), "upload-local", self.main().base, "upload.lua", {
                "BENCH_PAIRS": str(self.upload_pairs), "BENCH_MOVIE_BYTES": str(len(MOVIE)),
                "BENCH_THUMBNAIL_BYTES": str(len(THUMBNAIL))})

    def run_upload_s3(self):
        self.main()
        self.upload_row("upload-s3", self.s3())

    def run_upload_gcs_rsa(self):
        self.main()
        server = self.gcs()
        env = {"BENCH_PAIRS": str(self.upload_pairs), "BENCH_MOVIE_BYTES": str(len(MOVIE)),
               "BENCH_THUMBNAIL_BYTES": str(len(THUMBNAIL))}
        self.warm(server, "upload.lua", "/api/preview/post", env)

        def openssl():
            output = subprocess.run(
                ["openssl", "speed", "-seconds", str(SECONDS), "-multi", str(os.cpu_count() or 1), "rsa2048"],
                capture_output=True, text=True, timeout=SECONDS * 4 + 120).stdout
            match = re.findall(r"^rsa\s+2048 bits\s+\S+\s+\S+\s+([\d.]+)\s+([\d.]+)", output, re.M)
            if not match:
                raise RuntimeError("openssl speed gave no rsa2048 line: %s" % output[-300:])
            return {"rps": float(match[-1][0]) / 2, "signs": float(match[-1][0])}

        result = alternate({
            "target": lambda: measured(server.pid, lambda: wrk(server.base, "upload.lua", SECONDS, env=env)),
            "openssl": openssl,
        })
        ratio = share(result["target"]["rps"], result["openssl"]["rps"])
        row("upload-gcs-rsa", result["target"], result["openssl"]["rps"], "openssl speed rsa2048 / 2", ratio,
            goal="≥0.85×", passed=ratio >= 0.85 and result["target"]["errors"] == 0,
            note="openssl speed -multi %d rsa2048: %.0f signatures/s; a request signs 2 URLs (GOOG4-RSA-SHA256)" % (
                os.cpu_count() or 1, result["openssl"]["signs"]))

    def run_memory(self):
        server = self.main()
        env = {"BENCH_TOKENS": str(self.viewer_tokens)}
        samples = []
        stop_sampling = threading.Event()

        def sample(interval, into):
            while not stop_sampling.is_set():
                into.append((time.monotonic(), proc_rss_mib(server.pid)))
                stop_sampling.wait(interval)

        log("soak: feed at 64 connections for %d s, RSS every 5 s" % SOAK_SECONDS)
        soak = []
        sampler = threading.Thread(target=sample, args=(5.0, soak), daemon=True)
        sampler.start()
        result = measured(server.pid, lambda: wrk(server.base + FEED_PATH, "feed.lua", SOAK_SECONDS, env=env))
        stop_sampling.set()
        sampler.join()
        window = min(60.0, SOAK_SECONDS / 2)
        soak = soak[1:]  # the first sample is taken before wrk connects
        start, end = soak[0][0], soak[-1][0]
        first = statistics.mean(rss for at, rss in soak if at - start <= window)
        last = statistics.mean(rss for at, rss in soak if end - at <= window)
        ratio = share(last, first)
        row("memory soak %ds" % SOAK_SECONDS, result, rss=last, ceiling=None, ratio=None,
            ratio_text="%.1f→%.1f MiB" % (first, last), goal="last/first ≤1.10", passed=ratio <= 1.10,
            note="mean VmRSS of the first vs the last %.0f s of the run (%.2f×)" % (window, ratio))

        stop_sampling.clear()
        sampler = threading.Thread(target=sample, args=(0.5, samples), daemon=True)
        sampler.start()
        result = measured(server.pid, lambda: wrk(
            server.base + FEED_PATH, "feed.lua", SECONDS, connections=1000, env=env, timeout="30s"))
        stop_sampling.set()
        sampler.join()
        peak = max(rss for _, rss in samples)
        row("memory 1000 conns", result, rss=peak, ceiling=None, goal="RSS ≤64 MiB",
            passed=peak <= 64 and result["errors"] == 0,
            note="wrk -c 1000 on the feed from 127.0.0.1 (--max-connections-per-ip raised); RSS is the peak of "
            "VmRSS sampled every 0.5 s")

    def run_feed_scale(self):
        self.main()
        server = self.servers.get("scale") or Server("scale", self.tokens)
        self.servers["scale"] = server
        env = {"BENCH_TOKENS": str(self.viewer_tokens)}
        seeded = 0
        base = None
        for count in SCALE_STREAMS:
            seed_streams(server, self.tokens, range(seeded + 1, count + 1))
            seeded = count
            self.warm(server, env=env)
            result = alternate({
                "streams=%d" % count: lambda: measured(
                    server.pid, lambda: wrk(server.base + FEED_PATH, "feed.lua", SECONDS, env=env))})
            target = result["streams=%d" % count]
            if base is None:
                base = target
                row("feed-scale streams=%d" % count, target, goal="reference")
            else:
                ratio = share(target["rps"], base["rps"])
                row("feed-scale streams=%d" % count, target, base["rps"], "streams=%d" % SCALE_STREAMS[0], ratio,
                    goal="≥0.50× (near-flat)", passed=ratio >= 0.5 and target["errors"] == 0)
        # Viewers whose seen maps hold 0, 100 and 10,000 entries, at 10,000 live streams.
        # As many viewers in each group: with fewer, their connections would share a few tokens and
        # measure contention on those viewers' cached histories rather than the seen map's size.
        groups = {0: 16, 100: 16, 10000: 16}
        files = {}
        actions = []
        rng = random.Random(9)
        for entries, count in groups.items():
            viewers = self.tokens.viewers("seen%d" % entries, count)
            files[entries] = write_lines("viewers-seen%d.txt" % entries, viewers)
            for token in viewers:
                actions += [(token, stream, "seen") for stream in rng.sample(range(1, seeded + 1), entries)]
        seed_viewer_actions(server, actions)
        runs = {}
        for entries in SCALE_SEEN:
            runs["seen=%d" % entries] = (lambda path: lambda: measured(server.pid, lambda: wrk(
                server.base + FEED_PATH, "feed.lua", SECONDS, env={"BENCH_TOKENS": str(path)})))(files[entries])
        self.warm(server, env={"BENCH_TOKENS": str(files[10000])})
        result = alternate(runs)
        base = result["seen=0"]
        for entries in SCALE_SEEN:
            target = result["seen=%d" % entries]
            name = "feed-scale seen=%d" % entries
            if entries == 0:
                row(name, target, goal="reference")
            else:
                ratio = share(target["rps"], base["rps"])
                row(name, target, base["rps"], "seen=0", ratio, goal="≥0.80× (flat)",
                    passed=ratio >= 0.8 and target["errors"] == 0)
        NOTES.append(
            "feed-scale: its own server; live streams seeded cumulatively (10, 100, 1,000, 10,000), read by the "
            "1,000 viewer tokens (no seen marks there); seen=N rows at 10,000 live streams with viewers whose "
            "seen hash holds N entries (16 viewers each)")
        self.release("scale")

    def run_feed_slow_storage(self):
        self.main()
        server = self.s3()
        standin = self.s3_standin()
        if not self.s3_seeded:
            standin.stall(0)
            seed_streams(server, self.tokens, range(1, FEED_STREAMS + 1))
            self.s3_seeded = True
        owners = self.tokens.streamers(SLOW_STREAMS)
        env = {"BENCH_TOKENS": str(self.viewer_tokens)}
        commits = {"done": 0, "failed": 0}
        lock = threading.Lock()

        def stalled():
            standin.stall(STALL_SECONDS)
            halt = threading.Event()

            def committer(index):
                streams = [s for n, s in enumerate(SLOW_STREAMS) if n % SLOW_COMMITTERS == index]
                n = 0
                while not halt.is_set():
                    stream = streams[n % len(streams)]
                    n += 1
                    try:
                        upload_and_commit(server, owners[stream], stream)
                        with lock:
                            commits["done"] += 1
                    except Exception:
                        with lock:
                            commits["failed"] += 1

            threads = [threading.Thread(target=committer, args=(i,), daemon=True) for i in range(SLOW_COMMITTERS)]
            for thread in threads:
                thread.start()
            time.sleep(min(STALL_SECONDS, 2))  # commits are inside their stalled HEADs
            try:
                return measured(server.pid, lambda: wrk(server.base + FEED_PATH, "feed.lua", SECONDS, env=env))
            finally:
                halt.set()
                standin.stall(0)
                for thread in threads:
                    thread.join(timeout=120)

        self.warm(server, env=env)
        result = alternate({
            "no commits": lambda: self.feed_run(server, env),
            "stalled commits": stalled,
        })
        base, slow = result["no commits"], result["stalled commits"]
        ratio = share(slow["p99_us"], base["p99_us"])
        row("feed-slow-storage", slow, base["rps"], "same feed, no commits", None,
            ratio_text=("p99 %.1f× (%.1f ms)" % (ratio, base["p99_us"] / 1000)) if slow["requests"] else "no answers",
            goal="p99 ≤2×",
            passed=ratio <= 2.0 and slow["errors"] == 0,
            note="--storage s3 against scripts/bench/s3_standin.py; %d background committers, each HEAD stalled "
            "%.0f s; %d commits done, %d failed over the stalled rounds; ceiling columns are the same feed "
            "without commits" % (SLOW_COMMITTERS, STALL_SECONDS, commits["done"], commits["failed"]))


def machine():
    model = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    load = Path("/proc/loadavg").read_text().split()[:3]
    return "%d cores (nproc), %s, Linux %s; load average at start %s" % (
        os.cpu_count() or 0, model, platform.release(), " ".join(load))


def command_line():
    knobs = ["%s=%s" % (name, os.environ[name]) for name in (
        "BENCH_SECONDS", "BENCH_ROUNDS", "BENCH_ONLY", "BENCH_SOAK_SECONDS", "BENCH_PROFILE",
        "BENCH_STALL_SECONDS", "BENCH_SLOW_COMMITTERS") if os.environ.get(name)]
    return " ".join(knobs + ["make bench"])


def write_report(started, finished, host):
    target = ROOT / "BENCHMARKS.md" if not ONLY else WORK / "BENCHMARKS.md"
    lines = [
        "# Benchmarks",
        "",
        "Written by `make bench` (scripts/bench/bench.py); rerun it to refresh this file.",
        "",
        "- date: %s (%.0f min)" % (started.strftime("%Y-%m-%d %H:%M UTC"), (finished - started).total_seconds() / 60),
        "- machine: %s" % host,
        "- command: `%s`" % command_line(),
        "- commit: %s" % git_head(),
        "- each row: the median of %d rounds of %d s, targets alternated with their ceilings within the run; "
        "wrk -t2, 64 connections unless said otherwise, on the same cores as the server" % (ROUNDS, SECONDS),
        "- what counts are the ratios to ceilings measured in the same run: absolute figures move with the "
        "machine and with whatever else loads its cores (see the load average)",
        "",
    ] + table_lines(markdown=True) + ["", "Notes:", ""] + ["- " + note for note in NOTES] + [
        "",
        "## Profile",
        "",
    ]
    if PROFILE_TEXT:
        lines += [
            "`perf record -g` on the server during one more run of %d s of each workload below (after its" % SECONDS,
            "rounds). First where the time is spent, callees included (`perf report --children --sort symbol",
            "-g none`, entries above 4%), then by function alone (`--no-children --sort dso,symbol`, above 0.7%);",
            "demangled.",
        ]
        for name, summary, flat, inclusive in PROFILE_TEXT:
            lines += ["", "### %s" % name, "", summary + ".", "", "```"] + inclusive + ["```", "", "```"] + flat + [
                "```"]
    else:
        lines += ["Not profiled in this run (BENCH_PROFILE=1 records one during `feed` and `upload-local`)."]
    # Sections other benchmarks own (make bench-sweep's "Sweeper") stay as they are.
    kept = report_sections.sections(target)
    target.write_text("\n".join(lines) + "\n" + "".join("\n" + section for section in kept))
    return target


def git_head():
    try:
        return subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
            timeout=30).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


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
