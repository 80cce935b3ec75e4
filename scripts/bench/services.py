"""The processes a benchmark measures: `streampreview serve` (Server), its nginx ceiling (Nginx)
and the S3 stand-in (S3StandIn), each started on a free loopback port and stopped by its PID.

Python 3 standard library only.
"""

import os
import shutil
import subprocess
import sys
import threading
import time

from api_client import expect, http
from children import read_listening_line, spawn, stop
from settings import BINARY, HERE, SERVER_FLAGS, WORK, log

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


class Server:
    def __init__(self, name, tokens, extra_flags=(), environment=None):
        self.name = name
        self.data = WORK / name
        discard(self.data)
        # A flag of extra_flags replaces SERVER_FLAGS' (serve refuses a flag given twice).
        given = {str(flag) for flag in extra_flags}
        defaults = [part for flag, value in zip(SERVER_FLAGS[::2], SERVER_FLAGS[1::2]) if flag not in given
                    for part in (flag, value)]
        command = [BINARY, "serve", "--port", "0", "--data-dir", self.data, *defaults, *extra_flags]
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

