"""Settings of `make bench` (bench.py): paths, the BENCH_* knobs, the workloads' sizes, serve's
raised limits, and the log line. Every module of the benchmark reads them from here.

Python 3 standard library only.
"""

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "scripts" / "bench"
WORK = ROOT / ".build" / "bench"
BINARY = ROOT / ".build" / "release" / "streampreview"

SECONDS = int(os.environ.get("BENCH_SECONDS") or 10)
ROUNDS = int(os.environ.get("BENCH_ROUNDS") or 3)
SOAK_SECONDS = int(os.environ.get("BENCH_SOAK_SECONDS") or 600)
PROFILE = os.environ.get("BENCH_PROFILE") == "1"
# rate-limit-feed with the limiter off on both servers: how far apart two alike servers measure.
CALIBRATE = os.environ.get("BENCH_CALIBRATE") == "1"
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
    # 1,000 viewers at tens of feeds a second each, one address, thousands of uploads per token:
    # far over the defaults (rate_limit_workloads.py measures the limiter on a server of its own)
    "--rate-limit", "feed=off,write=off,upload=off,commit=off",
]
FLAG_NOTES = [
    "server flags: --preview-ttl 7200 (previews stay live for the whole run; default 600), "
    "--max-pending-uploads 10000 (upload workloads issue many uploads per stream without committing; default 8), "
    "--max-retained-bytes-per-stream 0 and --max-retained-bytes-per-subject 0 (those uploads count at their signed "
    "sizes; defaults 1 GiB and 4 GiB), "
    "--max-connections-per-ip 2000 (memory opens 1,000 connections from 127.0.0.1; default 64), "
    "--rate-limit feed=off,write=off,upload=off,commit=off (the load is far over the per-caller defaults; "
    "rate-limit-feed and rate-limit-burst run a server with the limiter on); "
    "everything else is serve's embedded default (8 threads, embedded Redis on a unix socket)",
]


def log(message):
    print("[bench %s] %s" % (time.strftime("%H:%M:%S"), message), file=sys.stderr, flush=True)
