"""The feed workloads of `make bench` against their ceilings: feed and feed-anon (nginx serving the
same bytes), healthz, feed-mixed (2% likes and seen marks), and the feed's Redis commands alone
(redis-benchmark).

Python 3 standard library only.
"""

import shutil

from load import alternate, measured, redis_benchmark_rates, share, wrk
from results import NOTES, ceiling_errors, row
from settings import FEED_PATH, PROFILE, SECONDS


class FeedWorkloads:
    """Mixed into bench.Bench, on top of fixtures.Fixtures (and perf_profile.Profiling)."""

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
