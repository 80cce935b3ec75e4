#!/usr/bin/env python3
"""A loopback S3 stand-in for `make bench` (standard library only).

Answers path-style object requests (`/BUCKET/KEY`) from memory: PUT stores the body and its
Content-Type (412 when `If-None-Match: *` meets an existing key), HEAD and GET answer with
Content-Length, Content-Type and ETag (GET honours `Range: bytes=A-B` with 206), DELETE is 204.
Signatures are not checked: the benchmark measures the server, not S3.

`POST /_bench/stall?seconds=N` makes every later HEAD wait N seconds before answering (0 stops
it): a slow object store while commits run. Prints `listening on http://127.0.0.1:PORT`.

Usage: s3_standin.py [--port PORT]   (0, the default, picks a free port)
"""

import argparse
import hashlib
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

OBJECTS = {}
LOCK = threading.Lock()
STALL = {"seconds": 0.0}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # quiet: one line per request would swamp the log
        pass

    def _answer(self, status, headers=(), body=b""):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if not any(name.lower() == "content-length" for name, _ in headers):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def _key(self):
        return urlsplit(self.path).path

    def do_POST(self):
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        if url.path == "/_bench/stall":
            STALL["seconds"] = float(parse_qs(url.query).get("seconds", ["0"])[0])
            self._answer(204)
        else:
            self._answer(405)

    def do_PUT(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        key = self._key()
        with LOCK:
            if self.headers.get("If-None-Match") == "*" and key in OBJECTS:
                error = b"<Error><Code>PreconditionFailed</Code></Error>"
                self._answer(412, [("Content-Type", "application/xml")], error)
                return
            OBJECTS[key] = (body, self.headers.get("Content-Type") or "application/octet-stream")
        self._answer(200, [("ETag", '"%s"' % hashlib.md5(body).hexdigest())])

    def _object_headers(self, body, content_type):
        etag = '"%s"' % hashlib.md5(body).hexdigest()
        return [("Content-Type", content_type), ("ETag", etag), ("Accept-Ranges", "bytes")]

    def do_HEAD(self):
        if STALL["seconds"] > 0:
            time.sleep(STALL["seconds"])
        with LOCK:
            found = OBJECTS.get(self._key())
        if found is None:
            self._answer(404)
            return
        body, content_type = found
        self._answer(200, self._object_headers(body, content_type) + [("Content-Length", str(len(body)))])

    def do_GET(self):
        with LOCK:
            found = OBJECTS.get(self._key())
        if found is None:
            self._answer(404, [("Content-Type", "application/xml")], b"<Error><Code>NoSuchKey</Code></Error>")
            return
        body, content_type = found
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range") or "")
        if match is None:
            self._answer(200, self._object_headers(body, content_type), body)
            return
        start = int(match.group(1))
        end = min(int(match.group(2)) if match.group(2) else len(body) - 1, len(body) - 1)
        if start >= len(body):
            self._answer(416, [("Content-Range", "bytes */%d" % len(body))])
            return
        content_range = "bytes %d-%d/%d" % (start, end, len(body))
        headers = self._object_headers(body, content_type) + [("Content-Range", content_range)]
        self._answer(206, headers, body[start : end + 1])

    def do_DELETE(self):
        with LOCK:
            OBJECTS.pop(self._key(), None)
        self._answer(204)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
