"""The upload workloads of `make bench`: upload-local and upload-s3 (POST /api/preview/post against
nginx serving an answer of the same size), upload-gcs-rsa (against `openssl speed rsa2048`), and
one upload's Redis commands alone (captured with MONITOR, replayed by redis-benchmark).

Python 3 standard library only.
"""

import json
import os
import re
import shutil
import subprocess
import time

from api_client import expect, http
from children import spawn, stop
from load import alternate, measured, monitor_words, redis_benchmark_rates, share, wrk
from media import MOVIE, THUMBNAIL
from results import NOTES, ceiling_errors, row
from settings import PROFILE, SECONDS, UPLOAD_STREAMS


class UploadWorkloads:
    """Mixed into bench.Bench, on top of fixtures.Fixtures (and perf_profile.Profiling)."""

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
