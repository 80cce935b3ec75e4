"""The live feed events of `make bench` (GET /api/feed/events, server-sent events), on a server of
their own on the main server's Redis (the same live streams, viewers and token secret):

- events-fanout: 10,000 streams open on loopback, 10 commits one at a time through the main
  server; the delay from just before each commit request until every stream has that stream's
  `preview` event with the new previewVersion (target: p99 within 1 s). Also row events-rss:
  the server's RSS per open stream, against 10,000 idle keep-alive connections.
- events-resume: a stream reads an event and goes; 200 likes and unlikes meanwhile; it comes
  back with Last-Event-ID and must get all 200, in order, none twice, then a live one.
- events-feed: the feed workload with 10,000 streams held open (read by one background thread,
  which wakes for heartbeats only) against none, alternated.

The streams are opened from one thread with non-blocking sockets and one selector; the
answer's chunked framing and the SSE blocks are parsed here, enough to find events.

Python 3 standard library only.
"""

import concurrent.futures
import json
import re
import secrets
import selectors
import socket
import statistics
import threading
import time
import urllib.parse

from api_client import expect, http, upload
from children import proc_cpu_ticks, proc_rss_mib
from load import alternate, share
from results import NOTES, row
from services import Server
from settings import CLK_TCK, FEED_PATH, log

EVENT_STREAMS = 10000
EVENT_COMMITS = 10
COMMIT_STREAMS = range(1, EVENT_COMMITS + 1)  # live on the main server's Redis
DELIVERY_TARGET_MS = 1000
DELIVERY_WAIT = 10.0  # seconds after a commit before its undelivered events count as missing
RSS_TARGET_KIB = 24
IDLE_SECONDS = 6  # open streams sit idle this long (past one heartbeat) before RSS is read
HEARTBEAT = 5
RESUME_LIKES = 200
RESUME_STREAM = 200
OPEN_BATCH = 250
# The events server on its defaults (10,000 stream slots, apart from the 1,024 request connections)
# but for the per-address bound: every stream of the bench comes from 127.0.0.1.
EVENT_FLAGS = ["--max-event-streams-per-ip", str(EVENT_STREAMS), "--events-heartbeat", str(HEARTBEAT)]
# The comparison server of events-rss: as many idle keep-alive request connections instead (and
# a few stream slots, for the one stream opened while warming up).
IDLE_FLAGS = ["--max-connections", str(EVENT_STREAMS + 100), "--max-connections-per-ip", str(EVENT_STREAMS + 100),
              "--max-event-streams", "10", "--events-heartbeat", str(HEARTBEAT)]
# events-feed on serve's defaults but for the per-address bound: heartbeats every 15 s, as shipped.
FEED_BESIDE_FLAGS = ["--max-event-streams-per-ip", str(EVENT_STREAMS)]


def event_id(text):
    """An event ID `<ms>-<seq>` as a pair that orders like the log."""
    milliseconds, sequence = text.split("-")
    return int(milliseconds), int(sequence)


def quantile(values, share_):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share_ * len(ordered)))] if ordered else 0.0


class Connection:
    """One HTTP/1.1 connection of EventStreams: its answer's head, then either a chunked event
    stream (decoded into SSE blocks) or a body of Content-Length (an idle keep-alive request)."""

    def __init__(self, sock, request, events):
        self.sock = sock
        self.request = request
        self.events = events  # True: an event stream; False: a plain request left open after its answer
        self.state = "connecting"
        self.raw = bytearray()
        self.text = bytearray()
        self.chunk = None  # bytes of the current chunk still to come, None while reading a size line
        self.status = None
        self.failure = None
        self.ready = False  # the opening comment (or the whole plain answer) is in
        self.received = []  # events: (arrival, {"id", "event", "data"}), kept when EventStreams.keep
        self.previews = {}  # (streamId, previewVersion) -> arrival of its first `preview` event

    def take_head(self):
        end = self.raw.find(b"\r\n\r\n")
        if end < 0:
            return False
        lines = bytes(self.raw[:end]).decode("latin-1").split("\r\n")
        del self.raw[: end + 4]
        self.status = int(lines[0].split()[1])
        self.headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            self.headers[name.strip().lower()] = value.strip()
        if self.status != 200:
            self.failure = "HTTP %d" % self.status
        elif self.events and self.headers.get("transfer-encoding", "").lower() != "chunked":
            self.failure = "not chunked: %r" % self.headers
        self.state = "body"
        return True

    def take_chunks(self):
        """Moves whole chunks' payloads from raw to text; False once the terminal chunk is in."""
        position = 0
        while True:
            if self.chunk is None:
                end = self.raw.find(b"\r\n", position)
                if end < 0:
                    break
                size = int(bytes(self.raw[position:end]).split(b";")[0], 16)
                position = end + 2
                if size == 0:
                    del self.raw[:]
                    return False
                self.chunk = size
            if len(self.raw) - position < self.chunk + 2:
                break
            self.text += self.raw[position : position + self.chunk]
            position += self.chunk + 2
            self.chunk = None
        del self.raw[:position]
        return True

    def blocks(self):
        """The SSE blocks now complete in text: (comments, fields)."""
        while True:
            end = self.text.find(b"\n\n")
            if end < 0:
                return
            block = bytes(self.text[:end]).decode()
            del self.text[: end + 2]
            comments, fields = [], {}
            for line in block.split("\n"):
                if line.startswith(":"):
                    comments.append(line[1:].strip())
                else:
                    name, _, value = line.partition(":")
                    fields[name] = value[1:] if value.startswith(" ") else value
            yield comments, fields


class EventStreams:
    """Connections to one server, all read by whichever single thread calls pump()."""

    def __init__(self, base, keep=False):
        parts = urllib.parse.urlsplit(base)
        self.address = (parts.hostname, parts.port)
        self.host = parts.netloc
        self.selector = selectors.DefaultSelector()
        self.connections = []
        self.keep = keep  # keep every event (resume); otherwise only `preview` arrivals
        self.heartbeats = 0
        self.events = 0
        self.closed_by_server = 0
        self.parsed = {}  # data -> its JSON: 2,000 streams get the same bytes
        self.waiting = {}  # (streamId, previewVersion) -> connections that have its `preview`

    def open(self, count, path="/api/feed/events", headers=(), events=True, timeout=120):
        """Opens `count` connections, OPEN_BATCH at a time, each done once its opening comment
        (or its whole plain answer) is in; raises if one fails."""
        request = "GET %s HTTP/1.1\r\nHost: %s\r\n%s%s\r\n" % (
            path, self.host, "Accept: text/event-stream\r\n" if events else "",
            "".join("%s: %s\r\n" % header for header in headers))
        deadline = time.monotonic() + timeout
        opened = []
        for start in range(0, count, OPEN_BATCH):
            batch = []
            for _ in range(min(OPEN_BATCH, count - start)):
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.setblocking(False)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                connection = Connection(sock, request.encode(), events)
                self.connections.append(connection)
                sock.connect_ex(self.address)
                self.selector.register(sock, selectors.EVENT_WRITE, connection)
                batch.append(connection)
            while not all(c.ready or c.failure for c in batch):
                if time.monotonic() > deadline:
                    raise RuntimeError("%d of %d connections not open after %d s" % (
                        count - len(opened) - sum(c.ready for c in batch), count, timeout))
                self.pump(0.5)
            failed = [c for c in batch if c.failure]
            if failed:
                raise RuntimeError("%d connections failed to open, e.g. %s" % (len(failed), failed[0].failure))
            opened += batch
        return opened

    def pump(self, timeout):
        """Reads whatever is ready within `timeout` seconds; returns how many sockets were ready."""
        ready = self.selector.select(timeout)
        for key, _ in ready:
            connection = key.data
            if connection.state == "connecting":
                error = connection.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if error:
                    self.drop(connection, "connect: errno %d" % error)
                    continue
                connection.sock.send(connection.request)  # a few hundred bytes into an empty buffer
                connection.state = "head"
                self.selector.modify(connection.sock, selectors.EVENT_READ, connection)
                continue
            try:
                data = connection.sock.recv(262144)
            except BlockingIOError:
                continue
            except OSError as error:
                self.drop(connection, "recv: %s" % error)
                continue
            if not data:
                self.closed_by_server += 1
                self.drop(connection, "closed by the server")
                continue
            self.receive(connection, data, time.monotonic())
        return len(ready)

    def receive(self, connection, data, arrival):
        connection.raw += data
        if connection.state == "head" and not connection.take_head():
            return
        if connection.failure:
            return
        if not connection.events:
            if len(connection.raw) >= int(connection.headers.get("content-length", "0")):
                del connection.raw[:]
                connection.ready = True
            return
        if not connection.take_chunks():
            self.drop(connection, "the server ended the stream")
        for comments, fields in connection.blocks():
            if "connected" in comments:
                connection.ready = True
            if "keep-alive" in comments:
                self.heartbeats += 1
            if "event" not in fields:
                continue
            self.events += 1
            if self.keep:
                connection.received.append((arrival, fields))
            if fields["event"] == "preview":
                item = self.parsed.get(fields["data"])
                if item is None:
                    item = self.parsed[fields["data"]] = json.loads(fields["data"])
                key = (int(item["streamId"]), int(item["previewVersion"]))
                if key not in connection.previews:
                    connection.previews[key] = arrival
                    self.waiting[key] = self.waiting.get(key, 0) + 1

    def drop(self, connection, reason):
        if connection.failure is None:
            connection.failure = reason
        try:
            self.selector.unregister(connection.sock)
        except (KeyError, ValueError):
            pass
        connection.sock.close()

    def open_count(self):
        return sum(1 for c in self.connections if c.ready and c.sock.fileno() >= 0)

    def close(self):
        for connection in self.connections:
            try:
                self.selector.unregister(connection.sock)
            except (KeyError, ValueError):
                pass
            connection.sock.close()
        self.connections = []
        self.selector.close()


class Holder:
    """EventStreams read by a background thread until stop(): it wakes for heartbeats (and twice
    a second to look at its stop flag), so it costs wrk and the server next to nothing."""

    def __init__(self, streams):
        self.streams = streams
        self.stopping = threading.Event()
        self.cpu = 0.0
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        started = time.thread_time()
        while not self.stopping.is_set():
            self.streams.pump(0.5)
        self.cpu = time.thread_time() - started

    def stop(self):
        self.stopping.set()
        self.thread.join()
        return self.cpu


def open_streams_gauge(server):
    status, _, body = http("GET", server.base + "/metrics")
    expect(status, (200,), "GET /metrics", body)
    match = re.search(rb"^streampreview_event_streams_open (\d+)", body, re.M)
    return int(match.group(1)) if match else None


def wait_streams_gauge(server, wanted, timeout=30.0):
    """Waits for the server's open-streams gauge to read `wanted` (a closed stream frees its slot
    as soon as the server sees the close); returns the seconds it took, None when it never did."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if open_streams_gauge(server) == wanted:
            return time.monotonic() - started
        time.sleep(0.25)
    return None


def commit(server, token, stream_id, upload_id):
    """POST /api/preview/commit; (monotonic time just before it was sent, when its answer was in,
    its FeedItem)."""
    auth = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
    body = json.dumps({"streamId": str(stream_id), "uploadId": upload_id}).encode()
    sent = time.monotonic()
    status, _, answer = http("POST", server.base + "/api/preview/commit", body, auth)
    answered = time.monotonic()
    expect(status, (200,), "POST /api/preview/commit", answer)
    return sent, answered, json.loads(answer)


class EventWorkloads:
    """Mixed into bench.Bench, on top of fixtures.Fixtures."""

    def events_server(self, name="events", flags=EVENT_FLAGS):
        """A server on the main server's embedded Redis with `flags`, started on first use."""
        if name not in self.servers:
            socket_path = self.main().redis_socket()
            if socket_path is None:
                raise RuntimeError("the main server has no embedded Redis socket")
            self.servers[name] = Server(
                name, self.tokens, ["--redis", "unix://%s" % socket_path, "--sweep-interval", "0", *flags])
        return self.servers[name]

    def warm_events(self, server):
        """A few requests and one event stream opened and closed: threads and caches touched
        before a baseline RSS is read."""
        for _ in range(10):
            status, _, body = http("GET", server.base + "/healthz")
            expect(status, (200,), "healthz", body)
        streams = EventStreams(server.base)
        try:
            streams.open(1)
        finally:
            streams.close()
        if wait_streams_gauge(server, 0) is None:
            raise RuntimeError("%s: the open-streams gauge did not return to 0" % server.name)

    def idle_rss(self):
        """VmRSS of a fresh server of the same flags before and with EVENT_STREAMS idle keep-alive
        connections (GET /healthz answered, left open), MiB, and the growth per connection, KiB:
        (before, after, per connection). The server is stopped afterwards."""
        server = self.events_server("events-idle", IDLE_FLAGS)
        try:
            self.warm_events(server)
            before = proc_rss_mib(server.pid)
            connections = EventStreams(server.base)
            try:
                connections.open(EVENT_STREAMS, path="/healthz", events=False)
                idle_until = time.monotonic() + IDLE_SECONDS
                while time.monotonic() < idle_until:
                    connections.pump(0.5)
                still = connections.open_count()
                after = proc_rss_mib(server.pid)
            finally:
                connections.close()
            if still != EVENT_STREAMS:
                NOTES.append("events-rss: only %d of %d idle keep-alive connections stayed open" % (
                    still, EVENT_STREAMS))
            return before, after, (after - before) * 1024 / EVENT_STREAMS
        finally:
            self.release("events-idle")

    def run_events_fanout(self):
        main = self.main()
        owners = self.tokens.streamers(COMMIT_STREAMS)
        try:
            idle = "%.1f → %.1f MiB, %.1f KiB per connection" % self.idle_rss()
        except Exception as error:  # only a comparison: the rows go on without it
            log("events-rss: idle keep-alive connections not measured: %r" % error)
            idle = "not measured (%r)" % error
        self.release("events")  # a fresh server: its RSS before the streams is a baseline
        server = self.events_server()
        self.warm_events(server)
        rss_before = proc_rss_mib(server.pid)
        streams = EventStreams(server.base)
        committer = concurrent.futures.ThreadPoolExecutor(1)
        try:
            opening = time.monotonic()
            streams.open(EVENT_STREAMS)
            log("events-fanout: %d streams open in %.1f s" % (EVENT_STREAMS, time.monotonic() - opening))
            idle_until = time.monotonic() + IDLE_SECONDS
            while time.monotonic() < idle_until:
                streams.pump(0.5)
            rss_after = proc_rss_mib(server.pid)
            gauge = open_streams_gauge(server)
            per_stream = (rss_after - rss_before) * 1024 / EVENT_STREAMS
            log("events-rss: %.1f → %.1f MiB, %.1f KiB per stream (idle keep-alive: %s)" % (
                rss_before, rss_after, per_stream, idle))
            row("events-rss", rss=rss_after, ratio_text="%.1f KiB/stream" % per_stream,
                goal="≤%d KiB/stream" % RSS_TARGET_KIB,
                passed=per_stream <= RSS_TARGET_KIB and gauge == streams.open_count() == EVENT_STREAMS,
                note="VmRSS of a fresh events server (after 10 GET /healthz and one stream opened and closed) "
                "%.1f MiB, then %.1f MiB with %d event streams open and idle for %d s (past a heartbeat; the server "
                "counts %s open): (after − before) / %d = %.1f KiB per stream; the same for %d idle keep-alive "
                "connections (GET /healthz answered, left open) on another fresh server of the same flags: %s" % (
                    rss_before, rss_after, EVENT_STREAMS, IDLE_SECONDS, gauge, EVENT_STREAMS, per_stream,
                    EVENT_STREAMS, idle))

            # Commits one at a time: each waits until every stream has its preview (or DELIVERY_WAIT).
            committer.submit(http, "GET", main.base + "/healthz").result()  # its keep-alive connection
            delays, missing, spreads, python_cpu, answered = [], 0, [], [], []
            cpu_before = proc_cpu_ticks(server.pid)
            for stream_id in COMMIT_STREAMS:
                upload_id = upload(main, owners[stream_id], stream_id)
                streams.pump(0)  # heartbeats that came meanwhile
                python_before = time.process_time()
                pending = committer.submit(commit, main, owners[stream_id], stream_id, upload_id)
                key = None
                deadline = None
                while True:
                    if key is None and pending.done():
                        sent, answer_in, item = pending.result()
                        key = (int(item["streamId"]), int(item["previewVersion"]))
                        deadline = sent + DELIVERY_WAIT
                        answered.append((answer_in - sent) * 1000)
                    if key is not None and (streams.waiting.get(key, 0) >= EVENT_STREAMS
                                            or time.monotonic() > deadline):
                        break
                    streams.pump(0.005 if key is None else 0.05)
                python_cpu.append((time.process_time() - python_before) * 1000)
                arrivals = [c.previews[key] for c in streams.connections if key in c.previews]
                missing += EVENT_STREAMS - len(arrivals)
                delays += [(arrival - sent) * 1000 for arrival in arrivals]
                if arrivals:
                    spreads.append((max(arrivals) - min(arrivals)) * 1000)
                    log("  commit to stream %d (v%d): %d/%d streams got it, first %.1f ms, last %.1f ms" % (
                        stream_id, key[1], len(arrivals), EVENT_STREAMS, (min(arrivals) - sent) * 1000,
                        (max(arrivals) - sent) * 1000))
                else:
                    log("  commit to stream %d (v%d): no stream got it" % (stream_id, key[1]))
            server_cpu = (proc_cpu_ticks(server.pid) - cpu_before) * 1e6 / CLK_TCK
            still = streams.open_count()
        finally:
            committer.shutdown(wait=True)
            streams.close()
        expected = EVENT_STREAMS * EVENT_COMMITS
        measured = {"requests": len(delays), "errors": missing, "rss_mib": rss_after,
                    "p50_us": quantile(delays, 0.5) * 1000, "p99_us": quantile(delays, 0.99) * 1000,
                    "p999_us": quantile(delays, 0.999) * 1000,
                    "cpu_us": server_cpu / max(len(delays), 1)}
        p99 = quantile(delays, 0.99)
        row("events-fanout", measured, ratio_text="%d / %d delivered" % (len(delays), expected),
            goal="p99 ≤%d ms, 0 missing" % DELIVERY_TARGET_MS,
            passed=bool(delays) and p99 <= DELIVERY_TARGET_MS and missing == 0,
            note="%d event streams open on the events server (%s), %d commits through the main server (same Redis; the "
            "event reaches the events server over the change channel), one at a time, each to its own live stream; "
            "latency from just before the commit request was sent until a stream's `preview` event with the new "
            "previewVersion was read by the one Python thread that reads all %d sockets (so it includes the "
            "harness); max %.1f ms; %d missing after %.0f s; commit answered in %.1f ms (median); the last stream "
            "got each event %.1f ms (median) after the first; Python's CPU per commit while waiting %.1f ms (median) "
            "of it; CPU µs/req is the events server's CPU per delivered event; %d streams still open at the end" % (
                EVENT_STREAMS, " ".join(EVENT_FLAGS), EVENT_COMMITS, EVENT_STREAMS, max(delays) if delays else 0,
                missing, DELIVERY_WAIT,
                statistics.median(answered) if answered else 0, statistics.median(spreads) if spreads else 0,
                statistics.median(python_cpu) if python_cpu else 0, still))
        closing = wait_streams_gauge(server, 0)
        if closing is None:
            NOTES.append("events-fanout: the events server still counted open streams 30 s after all were closed")

    def run_events_resume(self):
        server = self.events_server()
        token = self.tokens.viewers("events-resume-%s" % secrets.token_hex(4), 1)[0]  # likes nothing yet
        url = "%s/api/streams/%d/like" % (server.base, RESUME_STREAM)
        auth = {"Authorization": "Bearer " + token}

        def change(liked):
            status, _, body = http("DELETE" if liked else "POST", url, b"", auth)
            expect(status, (200,), "like", body)
            answer = json.loads(body)
            return answer["liked"], answer["likes"]

        def likes_of(streams):
            return [(arrival, fields) for arrival, fields in streams.connections[0].received
                    if fields["event"] == "likes" and json.loads(fields["data"])["streamId"] == str(RESUME_STREAM)]

        def read_until(streams, count, timeout=30.0):
            deadline = time.monotonic() + timeout
            while len(likes_of(streams)) < count and time.monotonic() < deadline:
                streams.pump(0.1)
            return likes_of(streams)

        # A first stream sees one change and goes away with its ID.
        streams = EventStreams(server.base, keep=True)
        try:
            streams.open(1)
            liked, count = change(liked=False)
            seen = read_until(streams, 1)
            if not seen:
                raise RuntimeError("no likes event reached the first stream")
            last_id = seen[-1][1]["id"]
        finally:
            streams.close()
        expected = []
        for _ in range(RESUME_LIKES):
            liked, count = change(liked)
            expected.append(count)
        streams = EventStreams(server.base, keep=True)
        try:
            connected = time.monotonic()
            streams.open(1, headers=[("Last-Event-ID", last_id)])
            replayed = read_until(streams, RESUME_LIKES)
            replay_ms = ((replayed[-1][0] if replayed else time.monotonic()) - connected) * 1000
            liked, live_count = change(liked)
            after = read_until(streams, RESUME_LIKES + 1, timeout=10.0)
            streams.pump(0.2)  # anything more (a duplicate) that follows
            everything = [fields for _, fields in streams.connections[0].received]
        finally:
            streams.close()
        ids = [event_id(fields["id"]) for fields in everything]
        ordered = all(a < b for a, b in zip(ids, ids[1:])) and (not ids or ids[0] > event_id(last_id))
        counts = [json.loads(fields["data"])["likes"] for _, fields in after]
        got = len(counts[:RESUME_LIKES])
        counts_match = counts[:RESUME_LIKES] == [str(c) for c in expected]
        live_ok = len(counts) == RESUME_LIKES + 1 and counts[-1] == str(live_count)
        others = len(everything) - len(after)
        lost = RESUME_LIKES - got
        passed = got == RESUME_LIKES and counts_match and ordered and live_ok and len(set(ids)) == len(ids)
        log("events-resume: %d/%d replayed in %.0f ms, ids ordered %s, counts match %s, live after %s" % (
            got, RESUME_LIKES, replay_ms, ordered, counts_match, live_ok))
        row("events-resume", ratio_text="%d / %d replayed, %d lost" % (got, RESUME_LIKES, lost),
            goal="all, in order, once", passed=passed,
            note="a stream reads a like's event and closes; %d likes and unlikes of stream %d from one viewer while "
            "it is away; it reconnects with Last-Event-ID %s and reads %d likes events (counts %s the %d answers'), "
            "IDs strictly increasing and past the one it left at: %s, duplicates: %d; replayed within %.0f ms of "
            "connecting; a live like after the replay arrived: %s; other events on the stream: %d" % (
                RESUME_LIKES, RESUME_STREAM, last_id, got, "equal to" if counts_match else "NOT equal to",
                RESUME_LIKES, "yes" if ordered else "NO", len(ids) - len(set(ids)), replay_ms,
                "yes" if live_ok else "NO", others))

    def run_events_feed(self):
        self.release("events")  # one events server at a time: 10,000 streams' worth of memory each
        server = self.events_server("events-defaults", FEED_BESIDE_FLAGS)
        env = {"BENCH_TOKENS": str(self.viewer_tokens)}
        self.warm(server, env=env)
        held = {"cpu": [], "heartbeats": [], "open": [], "closing": []}

        def with_streams():
            streams = EventStreams(server.base)
            try:
                streams.open(EVENT_STREAMS)
                holder = Holder(streams)
                try:
                    result = self.feed_run(server, env)
                finally:
                    held["cpu"].append(holder.stop() * 1000)
                held["heartbeats"].append(streams.heartbeats)
                held["open"].append(streams.open_count())
            finally:
                streams.close()
            # The server frees the closed streams' slots as it sees them close: the next round starts without them.
            held["closing"].append(wait_streams_gauge(server, 0))
            return result

        result = alternate({
            "no streams": lambda: self.feed_run(server, env),
            "%d streams" % EVENT_STREAMS: with_streams,
        })
        without, with_ = result["no streams"], result["%d streams" % EVENT_STREAMS]
        ratio = share(with_["rps"], without["rps"])
        all_open = all(count == EVENT_STREAMS for count in held["open"])
        row("events-feed", with_, without["rps"], "no streams, same run", ratio, goal="≥0.90×",
            passed=ratio >= 0.90 and with_["errors"] == 0 and all_open,
            note="the feed workload on the events server with %d event streams held open (one Python thread reads "
            "them: %s ms of its CPU per round, %s heartbeats read; open at the end: %s) against none, alternated; "
            "without streams p50/p99 %.2f/%.2f ms, CPU %.0f µs/req (with: %.0f); the server noticed the closed "
            "streams %s s after they were closed (the server's defaults: a heartbeat after 7.5-15 s of quiet)" % (
                EVENT_STREAMS, "/".join("%.0f" % cpu for cpu in held["cpu"]),
                "/".join(map(str, held["heartbeats"])), "/".join(map(str, held["open"])),
                without["p50_us"] / 1000, without["p99_us"] / 1000, without["cpu_us"], with_["cpu_us"],
                "/".join("never" if s is None else "%.1f" % s for s in held["closing"])))
