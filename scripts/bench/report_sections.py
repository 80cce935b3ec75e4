"""Sections of BENCHMARKS.md that one benchmark script owns, so several can share the file.

A section sits between `<!-- section NAME: begin -->` and `<!-- section NAME: end -->` lines.
`make bench-sweep` (sweep.py) replaces its own section and leaves the rest of the file as it
is; `make bench` (bench.py) rewrites the file and carries every such section over unchanged.
Python 3 standard library only.
"""

import re
from pathlib import Path

_BLOCK = re.compile(r"^<!-- section ([\w-]+): begin -->\n.*?^<!-- section \1: end -->\n", re.M | re.S)


def begin(name):
    return "<!-- section %s: begin -->" % name


def end(name):
    return "<!-- section %s: end -->" % name


def sections(path):
    """The text of every owned section in `path` (none when the file does not exist)."""
    path = Path(path)
    if not path.exists():
        return []
    return [match.group(0) for match in _BLOCK.finditer(path.read_text())]


def replace(path, name, lines):
    """Writes `lines` as section `name` of `path`: in place of the old one, else at the end."""
    path = Path(path)
    block = "\n".join([begin(name)] + list(lines) + [end(name)]) + "\n"
    text = path.read_text() if path.exists() else ""
    pattern = re.compile(r"^%s\n.*?^%s\n" % (re.escape(begin(name)), re.escape(end(name))), re.M | re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text, count=1)
    else:
        text = text.rstrip("\n") + ("\n\n" if text.strip() else "") + block
    path.write_text(text)
