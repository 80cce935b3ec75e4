"""What the workloads share, started on first use and seeded once: the main server (200 live
streams, 1,000 viewers with seen marks and likes), its nginx ceiling serving the same bytes, the
S3 stand-in and the servers on S3 and GCS; and the feed runs several workloads measure.

Python 3 standard library only.
"""

import json
import random
import subprocess

from api_client import expect, http, seed_streams, seed_viewer_actions
from load import measured, wrk, write_lines
from media import MOVIE, THUMBNAIL
from services import Nginx, S3StandIn, Server
from settings import (
    FEED_PATH, FEED_STREAMS, LIKES_PER_VIEWER, SECONDS, SEEN_PER_VIEWER, UPLOAD_STREAMS, VIEWERS, WORK, log)
from tokens import Tokens


class Fixtures:
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
            viewers = self.seed_feed(server)
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

    def seed_feed(self, server):
        """The feed's state of every feed workload: FEED_STREAMS live streams, and VIEWERS viewers
        with the same seen marks and likes on every server seeded (the generator's seed is fixed).
        Returns the viewers' tokens."""
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
        return viewers

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

    def feed_run(self, server, env, seconds=SECONDS):
        """One measured round of GET /api/feed?limit=20 at 64 connections."""
        return measured(server.pid, lambda: wrk(server.base + FEED_PATH, "feed.lua", seconds, env=env))

    def warm(self, server, script="feed.lua", path=FEED_PATH, env=None):
        wrk(server.base + path, script, 2, env=env)
