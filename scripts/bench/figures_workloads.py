"""The figures workloads of `make bench`: what counting preview figures costs, against a server
that counts nothing (`serve --no-stats`), in the same run and alternated round by round.

figures-feed: the feed-mixed load (2% likes and seen marks, each counted for the streamer)
on the default server against the same load on the --no-stats peer; req/s are feed answers.
figures-likes: likes and unlikes only (every other one changes the viewer's state, and those
count a like in the version's figures) against the peer.

Python 3 standard library only.
"""

from load import alternate, share
from results import row
from services import Server


class FiguresWorkloads:
    """Mixed into bench.Bench, on top of fixtures.Fixtures."""

    def no_stats(self):
        """The peer: the main server's flags and seeded state, with --no-stats."""
        if "no-stats" not in self.servers:
            self.main()  # the tokens files the workloads read
            server = self.servers["no-stats"] = Server("no-stats", self.tokens, ["--no-stats"])
            self.seed_feed(server)
        return self.servers["no-stats"]

    def run_figures(self):
        counting, peer = self.main(), self.no_stats()
        env = {"BENCH_TOKENS": str(self.viewer_tokens), "BENCH_STREAMS": str(self.live_streams)}
        for name, mix, key, goal_note in [
            ("figures-feed", dict(env, BENCH_MIX_PERCENT="2"), "feed_rps",
             "the feed-mixed load (2% POST like/seen); req/s counts feed answers"),
            ("figures-likes", dict(env, BENCH_MIX_PERCENT="100", BENCH_MIX_ACTIONS="like,unlike"), "rps",
             "only POST and DELETE /api/streams/{id}/like by 1,000 viewers on the 200 live streams"),
        ]:
            self.warm(counting, env=mix)
            self.warm(peer, env=mix)
            result = alternate({
                "counting": lambda: self.feed_run(counting, mix),
                "--no-stats": lambda: self.feed_run(peer, mix),
            })
            on, off = result["counting"], result["--no-stats"]
            ratio = share(on[key], off[key])
            row(name, dict(on, rps=on[key]), off[key], "same load, serve --no-stats", ratio, goal="≥0.95×",
                passed=ratio >= 0.95 and on["errors"] == 0,
                note="%s; CPU %.0f against %.0f µs/req, p99 %.2f against %.2f ms" % (
                    goal_note, on["cpu_us"], off["cpu_us"], on["p99_us"] / 1000, off["p99_us"] / 1000))
        self.release("no-stats")
