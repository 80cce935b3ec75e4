"""BENCHMARKS.md as `make bench` writes it (the table, the notes, the profile; sections other
benchmarks own carried over), and the machine and commit it names (also used by sweep.py).

Python 3 standard library only.
"""

import os
import platform
import subprocess
from pathlib import Path

import report_sections
from results import NOTES, PROFILE_TEXT, table_lines
from settings import ONLY, ROOT, ROUNDS, SECONDS, WORK

def machine():
    model = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    load = Path("/proc/loadavg").read_text().split()[:3]
    return "%d cores (nproc), %s, Linux %s; load average at start %s" % (
        os.cpu_count() or 0, model, platform.release(), " ".join(load))


KNOBS = ("BENCH_SECONDS", "BENCH_ROUNDS", "BENCH_ONLY", "BENCH_SOAK_SECONDS", "BENCH_PROFILE",
         "BENCH_STALL_SECONDS", "BENCH_SLOW_COMMITTERS")


def run_header(title, written_by, started, finished, host, knobs, target):
    """The lines that open a report: its title, what wrote it, when, where, with which knobs, at which commit."""
    command = " ".join(["%s=%s" % (name, os.environ[name]) for name in knobs if os.environ.get(name)] + [target])
    return [
        title,
        "",
        written_by,
        "",
        "- date: %s (%.0f min)" % (started.strftime("%Y-%m-%d %H:%M UTC"), (finished - started).total_seconds() / 60),
        "- machine: %s" % host,
        "- command: `%s`" % command,
        "- commit: %s" % git_head(),
    ]


def write_report(started, finished, host):
    target = ROOT / "BENCHMARKS.md" if not ONLY else WORK / "BENCHMARKS.md"
    lines = run_header(
        "# Benchmarks", "Written by `make bench` (scripts/bench/bench.py); rerun it to refresh this file.",
        started, finished, host, KNOBS, "make bench") + [
        "- each row: the median of %d rounds of %d s, targets alternated with their ceilings within the run; "
        "wrk -t2, 64 connections unless said otherwise, on the same cores as the server" % (ROUNDS, SECONDS),
        "- what counts are the ratios to ceilings measured in the same run: absolute figures move with the "
        "machine and with whatever else loads its cores (see the load average)",
        "",
    ] + table_lines(markdown=True) + ["", "Notes:", ""] + ["- " + note for note in NOTES] + [
        "",
        "## Profile",
        "",
    ]
    if PROFILE_TEXT:
        lines += [
            "`perf record -g` on the server during one more run of %d s of each workload below (after its" % SECONDS,
            "rounds). First where the time is spent, callees included (`perf report --children --sort symbol",
            "-g none`, entries above 4%), then by function alone (`--no-children --sort dso,symbol`, above 0.7%);",
            "demangled.",
        ]
        for name, summary, flat, inclusive in PROFILE_TEXT:
            lines += ["", "### %s" % name, "", summary + ".", "", "```"] + inclusive + ["```", "", "```"] + flat + [
                "```"]
    else:
        lines += ["Not profiled in this run (BENCH_PROFILE=1 records one during `feed` and `upload-local`)."]
    # Sections other benchmarks own (make bench-sweep's "Sweeper") stay as they are.
    kept = report_sections.sections(target)
    target.write_text("\n".join(lines) + "\n" + "".join("\n" + section for section in kept))
    return target


def git_head():
    try:
        return subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
            timeout=30).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"

