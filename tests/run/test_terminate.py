"""A SIGTERM is a Ctrl-C to the run (harness/run/terminate.py): the processes it forwards
SIGINT to are the run's own, found below it, and none above or beside it. The whole path (a
run's workers and CLI episodes winding down) is tested heavy in tests/run/test_interrupt.py and
tests/agents/test_concurrent_episodes.py."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from harness.run.terminate import descendants

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads Linux's /proc")


def test_the_run_s_processes_are_found_below_it_and_nothing_else() -> None:
    shell = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30 & wait"])
    beside = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    below: list[int] = []
    try:
        deadline = time.monotonic() + 10
        while len(below) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
            below = descendants(shell.pid)
        assert len(below) == 2  # the two sleeps, and not the shell itself
        assert shell.pid in descendants(os.getpid()) and beside.pid in descendants(os.getpid())
        assert beside.pid not in below and os.getpid() not in descendants(shell.pid)
    finally:
        for pid in below:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for process in (shell, beside):
            process.kill()
            process.wait()
