"""The feed under size, time and slow storage: memory (RSS over a soak and at 1,000 connections),
feed-scale (10 to 10,000 live streams, seen maps of 0 to 10,000 entries) and feed-slow-storage
(the feed while commits wait on stalled S3 HEADs).

Python 3 standard library only.
"""

import random
import statistics
import threading
import time

from api_client import seed_streams, seed_viewer_actions, upload_and_commit
from children import proc_rss_mib
from load import alternate, measured, share, wrk, write_lines
from results import NOTES, row
from services import Server
from settings import (
    FEED_PATH, FEED_STREAMS, SCALE_SEEN, SCALE_STREAMS, SECONDS, SLOW_COMMITTERS, SLOW_STREAMS, SOAK_SECONDS,
    STALL_SECONDS, log)


class ScaleWorkloads:
    """Mixed into bench.Bench, on top of fixtures.Fixtures."""

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

