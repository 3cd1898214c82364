"""A SIGTERM to the `todo-bench` process (a CI job's timeout, `kill PID`, a cluster's
pre-emption) is a Ctrl-C to its run: the run's processes get SIGINT as a terminal would send it
to them, and the process itself winds down as after a Ctrl-C (its CLI episodes' servers
stopped, its workers closing their logs, exit 130 with the resume line). Without it the
process ended at once, and what its episodes had started outside its tree (inspect's
sandbox-tools servers, the CLIs hanging from them) stayed behind."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from types import FrameType

_PROC = Path("/proc")


def descendants(pid: int) -> list[int]:
    """The live processes below `pid` (Linux's /proc; elsewhere none)."""
    parents: dict[int, list[int]] = {}
    try:
        entries = list(_PROC.iterdir())
    except OSError:
        return []
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found, frontier = [], [pid]
    while frontier:
        below = parents.get(frontier.pop(), [])
        found += below
        frontier += below
    return found


def _as_ctrl_c(signum: int, frame: FrameType | None) -> None:
    own = os.getpid()
    if os.getpgrp() == own:
        # the group this process leads is the run's, as a terminal's foreground group is
        os.killpg(own, signal.SIGINT)
        return
    # a group led by another (make, a CI script's shell): only the run's own processes
    for pid in descendants(own):
        try:
            os.kill(pid, signal.SIGINT)
        except OSError:
            continue
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)


def as_ctrl_c() -> None:
    """From now on a SIGTERM to this process is a Ctrl-C to its run (main thread only)."""
    signal.signal(signal.SIGTERM, _as_ctrl_c)
