"""Child processes of the benchmarks: each one is recorded when started and stopped by its PID
(also when the driver dies), its "listening on" line read, its CPU time and RSS read from /proc.

Python 3 standard library only.
"""

import ctypes
import os
import queue
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

from settings import WORK, log

STARTED = []


def _die_with_parent():
    # PR_SET_PDEATHSIG: the child gets SIGTERM if this driver dies without cleaning up.
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
    except OSError:
        pass


def spawn(command, **kwargs):
    process = subprocess.Popen([str(part) for part in command], preexec_fn=_die_with_parent, **kwargs)
    STARTED.append(process)
    return process


def stop(process, grace=10.0):
    if process.poll() is None:
        try:
            os.kill(process.pid, signal.SIGTERM)
            process.wait(timeout=grace)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=grace)
    if process in STARTED:
        STARTED.remove(process)


def stop_all():
    for process in list(reversed(STARTED)):
        try:
            stop(process)
        except Exception as error:  # keep stopping the others
            log("could not stop pid %d: %s" % (process.pid, error))


def read_listening_line(process, name, timeout=120):
    """Waits for 'listening on http://HOST:PORT' on the child's stdout; the rest goes to a log."""
    lines = queue.Queue()
    sink = open(WORK / ("%s.stdout.log" % name), "w")

    def pump():
        for raw in process.stdout:
            text = raw.decode(errors="replace")
            sink.write(text)
            sink.flush()
            lines.put(text)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        if line is None:
            break
        match = re.search(r"listening on (http://[\w.:\[\]]+)", line)
        if match:
            return match.group(1)
    raise RuntimeError("%s did not start (see %s)" % (name, WORK / ("%s.*.log" % name)))


def proc_cpu_ticks(pid):
    fields = Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)


def proc_rss_mib(pid):
    for line in Path("/proc/%d/status" % pid).read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return 0.0

