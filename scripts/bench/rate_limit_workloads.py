"""The rate limiter's workloads of `make bench`: rate-limit-feed (the feed of a server with the
limiter on against one with it off, both on the main server's Redis and data) and
rate-limit-burst (10,000 likes from one token against a `write` limit with an hour's period,
so every request past the limit is refused: the count of 429s is exact).

Every other workload runs with the limiter off (settings.SERVER_FLAGS): their load comes from
1,000 viewers at tens of requests a second each, or from one address, far above the defaults.

Python 3 standard library only.
"""

import concurrent.futures
import secrets
import time

from api_client import expect, http
from load import alternate_rounds, medians, paired_ratio, share
from results import row
from services import Server
from settings import CALIBRATE, FEED_PATH, PROFILE, ROUNDS, log

# High enough that the feed workload never meets it: what is measured is the cost of asking.
FEED_LIMIT = "feed=1000000/1s"
BURST_LIKES = 10000
BURST_LIMIT = 600
BURST_WORKERS = 16
# The effect measured (under 5%) is smaller than one round's noise on a shared 2-core machine:
# two servers alike in every way (both limiters off) gave 0.93× as the ratio of their medians
# over 6 rounds of 10 s, and single pairs of rounds spread ±9% around 1.00×. Each round's own
# ratio, its median over many short rounds, gave 1.00× to 1.02×: short rounds back to back
# see the same machine, and many of them narrow the median. One round's ratio still spreads
# about ±8% (standard deviation) on a quiet machine, so the median of 48 moves about ±1.5%
# from run to run (24 gave ±2% to 3%).
FEED_ROUNDS = 48
FEED_ROUND_SECONDS = 5


class RateLimitWorkloads:
    """Mixed into bench.Bench, on top of fixtures.Fixtures."""

    def sibling(self, name, rate_limit):
        """A server on the main server's embedded Redis (the same streams, viewers and token
        secret), started on first use; the two siblings differ only in `--rate-limit`."""
        if name not in self.servers:
            socket_path = self.main().redis_socket()
            if socket_path is None:
                raise RuntimeError("the main server has no embedded Redis socket")
            self.servers[name] = Server(name, self.tokens, [
                "--redis", "unix://%s" % socket_path, "--sweep-interval", "0", "--rate-limit", rate_limit])
        return self.servers[name]

    def limited(self):
        return self.sibling("limiter-on", "%s,write=%d/1h,upload=off,commit=off" % (FEED_LIMIT, BURST_LIMIT))

    def run_rate_limit_feed(self):
        unlimited = self.sibling("limiter-off", "feed=off,write=off,upload=off,commit=off")
        limited = self.limited() if not CALIBRATE else self.sibling(
            "limiter-off-too", "feed=off,write=off,upload=off,commit=off")
        env = {"BENCH_TOKENS": str(self.viewer_tokens)}
        status, headers, body = http("GET", limited.base + FEED_PATH)
        expect(status, (200,), "limited feed", body)
        if "ratelimit" not in headers and not CALIBRATE:
            raise RuntimeError("the limited server's feed has no RateLimit field")
        self.warm(unlimited, env=env)
        self.warm(limited, env=env)
        rounds = max(ROUNDS, FEED_ROUNDS)
        collected = alternate_rounds({
            "limiter off": lambda: self.feed_run(unlimited, env, FEED_ROUND_SECONDS),
            "limiter on": lambda: self.feed_run(limited, env, FEED_ROUND_SECONDS),
        }, rounds)
        off, on = medians(collected["limiter off"]), medians(collected["limiter on"])
        ratio = paired_ratio(collected, "limiter on", "limiter off")
        row("rate-limit-feed", on, off["rps"], "limiter off, same run", ratio, goal="≥0.95×",
            passed=ratio >= 0.95 and on["errors"] == 0,
            note="two servers on the main server's Redis, alike but for --rate-limit: %s (never met; a reader's "
            "first feed request is counted alone, later ones in blocks of 100 per Redis call, served from a lease "
            "held in the process) against every class off; %d rounds of %d s, the ratio the median of each round's on/off "
            "(medians of each side: %.2f×); limiter off p50/p99 %.2f/%.2f ms, CPU %.0f µs/req (on: %.0f)" % (
                FEED_LIMIT, rounds, FEED_ROUND_SECONDS, share(on["rps"], off["rps"]), off["p50_us"] / 1000, off["p99_us"] / 1000,
                off["cpu_us"], on["cpu_us"]))
        if PROFILE:
            self.profile(unlimited, "rate-limit-feed-off", unlimited.base + FEED_PATH, "feed.lua", env)
            self.profile(limited, "rate-limit-feed", limited.base + FEED_PATH, "feed.lua", env)

    def run_rate_limit_burst(self):
        limited = self.limited()
        stream = 1  # live on the main server's Redis, which the limited server shares
        token = self.tokens.viewers("burst-%s" % secrets.token_hex(4), 1)[0]
        url = "%s/api/streams/%d/like" % (limited.base, stream)
        auth = {"Authorization": "Bearer " + token}

        def send(index):
            sent = time.monotonic()
            status, _, body = http("POST" if index % 2 == 0 else "DELETE", url, b"", auth)
            if status not in (200, 429):
                raise RuntimeError("like answered %d: %r" % (status, body[:200]))
            return status, (time.monotonic() - sent) * 1e6

        started = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(BURST_WORKERS) as pool:
            answers = list(pool.map(send, range(BURST_LIKES)))
        seconds = time.monotonic() - started
        statuses = [status for status, _ in answers]
        latencies = sorted(micros for _, micros in answers)
        refused = statuses.count(429)
        expected = BURST_LIKES - BURST_LIMIT
        log("rate-limit-burst: %d likes in %.2f s, %d refused (expected %d)" % (
            BURST_LIKES, seconds, refused, expected))
        def quantile(share):
            return latencies[min(len(latencies) - 1, int(share * len(latencies)))]

        measured = {"rps": BURST_LIKES / seconds, "errors": 0, "requests": BURST_LIKES,
                    "p50_us": quantile(0.5), "p99_us": quantile(0.99), "p999_us": quantile(0.999)}
        row("rate-limit-burst", measured, goal="429s = likes − limit",
            ratio_text="%d / %d 429s" % (refused, expected), passed=refused == expected,
            note="%d likes and unlikes from one token, %d Python threads (latencies include the client), against --rate-limit write=%d/1h: %d answered "
            "200, %d answered 429 (expected %d = %d − %d)" % (
                BURST_LIKES, BURST_WORKERS, BURST_LIMIT, statuses.count(200), refused, expected, BURST_LIKES,
                BURST_LIMIT))
