"""The feed workloads of `make bench` against their ceilings: feed and feed-anon (nginx serving the
same bytes), healthz, feed-mixed (2% likes and seen marks), feed-accept (an Accept of 2 KiB of
parameters against a plain one), metrics-scrape (GET /metrics against GET /healthz), and the
feed's Redis commands alone (redis-benchmark).

Python 3 standard library only.
"""

import shutil

from load import alternate, measured, redis_benchmark_rates, share, wrk, write_lines
from results import NOTES, ceiling_errors, row
from settings import FEED_PATH, PROFILE, SECONDS


def hostile_accept():
    """An Accept within every cap (32 ranges, 2,048 bytes) made of as many parameters as fit,
    naming JSON last: what a client could send to make each request cost the most."""
    last = "application/json;q=0.9"
    ranges = []
    budget = 2048 - len(last) - 1
    for index in range(31):
        share_ = budget // (31 - index) - 1
        text = "text/x-%d" % index
        while len(text) + 4 <= share_:
            text += ";a=%d" % (len(text) % 10)
        ranges.append(text)
        budget -= len(text) + 1
    header = ",".join(ranges + [last])
    assert len(header) <= 2048 and header.count(",") == 31, len(header)
    return header


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

    def run_feed_accept(self):
        server = self.main()
        env = {"BENCH_TOKENS": str(self.viewer_tokens)}
        plain = write_lines("accept-plain.txt", ["application/json"])
        hostile = hostile_accept()
        crafted = write_lines("accept-hostile.txt", [hostile])
        self.warm(server, env=env)
        result = alternate({
            "plain Accept": lambda: self.feed_run(server, dict(env, BENCH_ACCEPT=str(plain))),
            "2 KiB Accept": lambda: self.feed_run(server, dict(env, BENCH_ACCEPT=str(crafted))),
        })
        plain_run, hostile_run = result["plain Accept"], result["2 KiB Accept"]
        ratio = share(hostile_run["rps"], plain_run["rps"])
        row("feed-accept", hostile_run, plain_run["rps"], "Accept: application/json, same run", ratio,
            goal="≥0.85×", passed=ratio >= 0.85 and hostile_run["errors"] == 0,
            note="the feed workload with an Accept of %d bytes (32 ranges, %d parameters, JSON last with q=0.9) "
            "against Accept: application/json, alternated; CPU %.0f against %.0f µs/req" % (
                len(hostile), hostile.count(";"), hostile_run["cpu_us"], plain_run["cpu_us"]))

    def run_metrics_scrape(self):
        server = self.main()
        env = {"BENCH_EXPECT": "ok"}
        result = alternate({
            "metrics": lambda: measured(server.pid, lambda: wrk(server.base + "/metrics", "feed.lua", SECONDS, env=env)),
            "healthz": lambda: measured(server.pid, lambda: wrk(server.base + "/healthz", "feed.lua", SECONDS, env=env)),
        })
        metrics, healthz = result["metrics"], result["healthz"]
        cpu_ratio = share(metrics["cpu_us"], healthz["cpu_us"])
        row("metrics-scrape", metrics, healthz["rps"], "GET /healthz, same run", cpu_ratio,
            ratio_text="%.1f× the CPU/req" % cpu_ratio, goal="≤2× healthz's CPU/req",
            passed=cpu_ratio <= 2.0 and metrics["errors"] == 0,
            note="a flood of GET /metrics (64 connections, one address on this machine) against GET /healthz, "
            "alternated: the server's CPU per scrape %.0f µs, per healthz %.0f µs (the page is rendered at most "
            "once a second and served from memory in between)" % (metrics["cpu_us"], healthz["cpu_us"]))
