"""BENCH_PROFILE=1: `perf record -g` on the server during one more run of a workload, with the CPU
per request of the server and of its embedded Redis, summarised for BENCHMARKS.md's Profile.

Python 3 standard library only.
"""

import re
import shutil
import subprocess

from children import proc_cpu_ticks, spawn, stop
from load import wrk
from results import NOTES, PROFILE_TEXT
from settings import CLK_TCK, SECONDS, WORK, log


class Profiling:
    """Mixed into bench.Bench."""

    def profile(self, server, name, url, script, env):
        """perf record -g on the server during one more run of `name`; also the CPU per request of
        the server and of its embedded Redis over that run."""
        if shutil.which("perf") is None:
            NOTES.append("profile: perf is not installed (Debian linux-perf)")
            return
        data = WORK / ("perf-%s.data" % name)
        log("profiling %s with perf record -g for %d s" % (name, SECONDS))
        redis = subprocess.run(["pgrep", "-P", str(server.pid), "redis-server"], capture_output=True,
                               text=True).stdout.split()
        before = [proc_cpu_ticks(server.pid)] + [proc_cpu_ticks(int(pid)) for pid in redis[:1]]
        recorder = spawn(
            ["perf", "record", "-g", "-p", str(server.pid), "-o", data, "--", "sleep", str(SECONDS)],
            stdout=subprocess.DEVNULL, stderr=open(WORK / "perf.stderr.log", "w"))
        result = wrk(url, script, SECONDS, env=env)
        after = [proc_cpu_ticks(server.pid)] + [proc_cpu_ticks(int(pid)) for pid in redis[:1]]
        recorder.wait(timeout=SECONDS + 60)
        stop(recorder)
        per_request = [(b - a) * 1e6 / CLK_TCK / max(result["requests"], 1) for a, b in zip(before, after)]
        split = "server %.0f µs of CPU a request" % per_request[0]
        if len(per_request) > 1:
            split += ", its embedded Redis %.0f µs" % per_request[1]
        flat = self.perf_report(data, ["--percent-limit", "0.7", "-g", "none", "--sort", "dso,symbol"])
        # Frames perf could not name (addresses only) say nothing: left out.
        inclusive = [line for line in self.perf_report(
            data, ["--percent-limit", "4", "-g", "none", "--sort", "symbol"], children=True)
            if not re.search(r"\] (0x)?[0-9a-f]+$", line)]
        PROFILE_TEXT.append((name, "%.0f requests/s while recorded; %s" % (result["rps"], split), flat[:40],
                             inclusive[:45]))

    @staticmethod
    def perf_report(data, options, children=False):
        report = subprocess.run(
            ["perf", "report", "--children" if children else "--no-children", "--stdio", "-i", str(data), *options],
            capture_output=True, text=True, timeout=600).stdout
        swift = shutil.which("swift")
        if swift:
            report = subprocess.run(
                [swift, "demangle", "--simplified", "--compact"], input=report, capture_output=True, text=True,
                timeout=300).stdout or report
        return [re.sub(r"(\s+-)+\s*$", "", line.rstrip())[:160] for line in report.splitlines()
                if line.strip() and not line.startswith("#") and line.strip() != "|"]
