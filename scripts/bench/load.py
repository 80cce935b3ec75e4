"""Load and how it is measured: wrk with the Lua scripts beside this file (and the files they
read), redis-benchmark, the server's CPU per request and RSS, and targets alternated with their
ceilings for BENCH_ROUNDS rounds, medians kept.

Python 3 standard library only.
"""

import json
import os
import re
import statistics
import subprocess

from children import proc_cpu_ticks, proc_rss_mib
from results import NOTES
from settings import CLK_TCK, CONNECTIONS, HERE, ROUNDS, WORK, log

def write_lines(name, lines):
    path = WORK / name
    path.write_text("".join("%s\n" % line for line in lines))
    return path


def redis_benchmark_rates(name, socket_path, commands, requests, options=()):
    """Requests/s redis-benchmark gives each command on `socket_path` with 64 clients; None (and a
    note for row `name`) when it gives no figure."""
    rates = []
    for command in commands:
        output = subprocess.run(
            ["redis-benchmark", "-s", str(socket_path), "-c", str(CONNECTIONS), "-n", str(requests), *options, "-q",
             *command], capture_output=True, text=True, timeout=300).stdout
        match = re.findall(r"([\d.]+) requests per second", output.replace("\r", "\n"))
        if not match:
            NOTES.append("%s: redis-benchmark gave no figure: %r" % (name, output[-200:]))
            return None
        rates.append(float(match[-1]))
    return rates


def monitor_words(line):
    """The command of a redis-cli MONITOR line (`<time> [<db> <client>] "WORD" "WORD" ...`), its
    words unescaped (MONITOR escapes quotes, backslashes, control and non-ASCII bytes)."""
    escapes = {"n": "\n", "r": "\r", "t": "\t", "a": "\a", "b": "\b", '"': '"', "\\": "\\"}
    words = []
    for quoted in re.findall(r'"((?:[^"\\]|\\.)*)"', line):
        words.append(re.sub(r"\\(x[0-9a-fA-F]{2}|.)", lambda m: chr(int(m.group(1)[1:], 16))
                            if m.group(1).startswith("x") else escapes.get(m.group(1), m.group(1)), quoted))
    return words


def wrk(url, script, seconds, connections=CONNECTIONS, env=None, timeout="10s"):
    command = [
        "wrk", "-t", "2", "-c", str(connections), "-d", "%ds" % seconds, "--timeout", timeout,
        "-s", str(HERE / script), url]
    environment = dict(os.environ, BENCH_LUA_DIR=str(HERE), **(env or {}))
    result = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=seconds + 120)
    for line in result.stdout.splitlines():
        if line.startswith("BENCH_RESULT "):
            data = json.loads(line[len("BENCH_RESULT "):])
            if data["requests"] == 0:
                # Nothing answered within the run: the requests still waiting are its errors.
                data["errors"] = max(data["errors"], data["unanswered"], 1)
            data["seconds"] = data["duration_us"] / 1e6
            data["rps"] = data["requests"] / data["seconds"]
            data["feed_rps"] = data["feeds"] / data["seconds"]
            return data
    raise RuntimeError("wrk gave no result (rc %d): %s %s" % (result.returncode, result.stdout, result.stderr))


def measured(pid, run):
    """Runs `run()` (a wrk call) and adds the server's CPU per request and RSS to its result."""
    before = proc_cpu_ticks(pid)
    result = run()
    used = proc_cpu_ticks(pid) - before
    result["cpu_us"] = used * 1e6 / CLK_TCK / max(result["requests"], 1)
    result["rss_mib"] = proc_rss_mib(pid)
    return result


def share(part, whole):
    """part / whole, 0 when nothing was measured (a run where no request finished)."""
    return part / whole if whole else 0.0


def medians(results):
    keys = [key for key, value in results[0].items() if isinstance(value, (int, float))]
    return {key: statistics.median(result[key] for result in results) for key in keys}


def alternate(runs):
    """runs: {label: function}. Runs each in turn, ROUNDS times, the order reversed every other
    round (A B, B A, ...) so a run's place in the round (after a warm peer, later in a noisy
    minute) favours no label; returns {label: medians}."""
    return {label: medians(results) for label, results in alternate_rounds(runs, ROUNDS).items()}


def paired_ratio(collected, part, whole, key="rps"):
    """The median over rounds of part's figure over whole's in the same round: the two ran back
    to back, so the machine's drift between rounds (other jobs, a noisy minute) cancels out,
    which the ratio of the two medians does not do."""
    return statistics.median(share(a[key], b[key]) for a, b in zip(collected[part], collected[whole]))


def alternate_rounds(runs, rounds):
    """`alternate`'s rounds, `rounds` of them: {label: [result of each round]}."""
    collected = {label: [] for label in runs}
    for round_number in range(rounds):
        order = list(runs.items())
        if round_number % 2 == 1:
            order.reverse()
        for label, run in order:
            result = run()
            collected[label].append(result)
            log("  round %d %-14s %9.0f rps  p99 %7.2f ms  errors %d" % (
                round_number + 1, label, result.get("rps", 0), result.get("p99_us", 0) / 1000,
                result.get("errors", 0)))
    return collected

