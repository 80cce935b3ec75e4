"""The public HTTP API as a client uses it: keep-alive requests per thread, and seeding the way an
uploader app (upload URL, PUT of both objects, commit) and viewers (seen, like) do.

Python 3 standard library only.
"""

import concurrent.futures
import http.client as httpclient
import json
import threading
import time
import urllib.parse

from media import MOVIE, THUMBNAIL
from settings import log

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



def upload(server, token, stream_id):
    """The first half of an uploader app's work: ask for two signed PUT URLs and PUT both objects;
    returns the upload ID, for a commit (or none: an abandoned upload)."""
    auth = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
    request = json.dumps({
        "streamId": str(stream_id), "movieBytes": len(MOVIE), "thumbnailBytes": len(THUMBNAIL),
        "movieContentType": "video/mp4", "thumbnailContentType": "image/jpeg"}).encode()
    status, _, body = http("POST", server.base + "/api/preview/post", request, auth)
    expect(status, (200,), "POST /api/preview/post", body)
    answer = json.loads(body)
    for url, headers, data in (
        (answer["movieBodyUrl"], answer["movieHeaders"], MOVIE),
        (answer["movieThumbnailBodyUrl"], answer["thumbnailHeaders"], THUMBNAIL),
    ):
        status, _, reply = http("PUT", url, data, dict(headers))
        expect(status, (200, 201, 204), "PUT " + url, reply)
    return answer["uploadId"]


def upload_and_commit(server, token, stream_id):
    """What an uploader app does: ask for two signed PUT URLs, PUT both objects, commit."""
    commit = json.dumps({"streamId": str(stream_id), "uploadId": upload(server, token, stream_id)}).encode()
    status, _, body = http(
        "POST", server.base + "/api/preview/commit", commit,
        {"Authorization": "Bearer " + token, "Content-Type": "application/json"})
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
