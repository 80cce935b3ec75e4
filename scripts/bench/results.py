"""The results table of `make bench`: its rows and notes (kept as the workloads run), and the table
printed on the terminal and written into BENCHMARKS.md.

Python 3 standard library only.
"""

from settings import FLAG_NOTES, SECONDS

ROWS = []
NOTES = list(FLAG_NOTES)
PROFILE_TEXT = []


def ceiling_errors(result):
    """A note when the ceiling itself answered wrongly (its figure is then no ceiling)."""
    if result.get("errors"):
        return "the ceiling had %d errors in its median round: its figure is not valid" % result["errors"]
    return None


def row(name, target=None, ceiling=None, ceiling_name="", ratio=None, ratio_text=None, goal="", passed=None,
        rss=None, note=None):
    target = target or {}
    answered = bool(target.get("requests"))
    ROWS.append({
        "workload": name,
        "rps": target.get("rps"),
        "p50_ms": target["p50_us"] / 1000 if answered else None,
        "p99_ms": target["p99_us"] / 1000 if answered else None,
        "p999_ms": target["p999_us"] / 1000 if answered else None,
        "errors": target.get("errors"),
        "rss_mib": rss if rss is not None else target.get("rss_mib"),
        "cpu_us": target.get("cpu_us") if answered else None,
        "ceiling": ceiling_name,
        "ceiling_rps": ceiling,
        "ratio": ratio_text if ratio_text is not None else ("%.2f×" % ratio if ratio is not None else ""),
        "target": goal,
        "result": "" if passed is None else ("PASS" if passed else "FAIL"),
    })
    if note:
        NOTES.append("%s: %s" % (name, note))
    if target and not answered:
        NOTES.append("%s: no request was answered within a %d s round (about %d still waiting at its end, "
                     "counted as errors)" % (name, SECONDS, target.get("unanswered", 0)))


COLUMNS = [
    ("workload", "workload"), ("rps", "req/s"), ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"),
    ("p999_ms", "p99.9 ms"), ("errors", "errors"), ("rss_mib", "RSS MiB"), ("cpu_us", "CPU µs/req"),
    ("ceiling", "ceiling"), ("ceiling_rps", "ceiling req/s"), ("ratio", "ratio"), ("target", "target"),
    ("result", "result"),
]


def cell(key, value):
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if key in ("rps", "ceiling_rps"):
        return "{:,.0f}".format(value)
    if key == "errors":
        return "{:,}".format(int(value))
    if key == "cpu_us":
        return "%.0f" % value
    if key == "rss_mib":
        return "%.1f" % value
    return "%.2f" % value


def table_lines(markdown):
    header = [title for _, title in COLUMNS]
    body = [[cell(key, entry[key]) for key, _ in COLUMNS] for entry in ROWS]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        return lines + ["| " + " | ".join(cells) + " |" for cells in body]
    widths = [max(len(cells[i]) for cells in [header] + body) for i in range(len(header))]
    def fmt(cells):
        return "  ".join(c.ljust(w) if i in (0, 8, 11) else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    return [fmt(header), fmt(["-" * w for w in widths])] + [fmt(cells) for cells in body]

