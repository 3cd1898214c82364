"""In the command's own process, an interrupted eval whose wind-down never ends is ended
seconds after the Ctrl-C (harness/run/runner.py, armed by harness/commands `entry`), exit 130
with the resume line; one that winds down in time keeps its own exit; and a process that did not
arm it (a test's, a library caller's) is never ended by it. The run's resume after a kill is
tests/run/test_interrupt.py's and the kill tests'."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

CHILD = """
import sys, threading, time
from harness.run import runner
if sys.argv[2] == "armed":
    runner.end_interrupted_evals_after(0.5)
import signal
signal.signal(signal.SIGINT, runner._raise_interrupt)
try:  # the interrupt can come as soon as "ready" is out, before print returns
    print("ready", flush=True)
    time.sleep(60)
except KeyboardInterrupt:
    if sys.argv[1] == "hangs":
        threading.Event().wait()  # a wind-down waiting for something that never comes
    sys.exit(7)
"""


@pytest.mark.parametrize(
    ("wind_down", "armed", "code", "said"),
    [
        ("hangs", "armed", 130, True),
        ("ends", "armed", 7, False),
        ("ends", "unarmed", 7, False),
    ],
)
def test_an_interrupted_wind_down_that_never_ends_is_ended(
    wind_down: str, armed: str, code: int, said: bool
) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, wind_down, armed],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    pressed = time.monotonic()
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=20)
    assert child.returncode == code, err
    assert time.monotonic() - pressed < 10
    assert ("todo-bench: interrupted; rerun the same command to resume" in err) is said


def test_an_unarmed_process_is_not_ended_however_long_it_winds_down() -> None:
    """The case that ended pytest-xdist workers: the interrupt raised in a process that is not
    the command's, whose wind-down then takes longer than the limit."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.replace("threading.Event().wait()", "time.sleep(2)"),
         "hangs", "unarmed"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=20)
    assert child.returncode == 7, err
