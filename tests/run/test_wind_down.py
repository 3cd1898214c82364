"""An interrupted eval whose wind-down never ends is ended `WIND_DOWN` seconds after the Ctrl-C
(harness/run/runner.py), exit 130 with the resume line; one that winds down in time keeps its
own exit. The run's resume after a kill is tests/run/test_interrupt.py's and the kill tests'."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

CHILD = """
import sys, threading, time
from harness.run import runner
runner.WIND_DOWN = 0.5
import signal
signal.signal(signal.SIGINT, runner._raise_interrupt)
print("ready", flush=True)
try:
    time.sleep(60)
except KeyboardInterrupt:
    if sys.argv[1] == "hangs":
        threading.Event().wait()  # a wind-down waiting for something that never comes
    sys.exit(7)
"""


@pytest.mark.parametrize(("wind_down", "code", "said"), [("hangs", 130, True), ("ends", 7, False)])
def test_an_interrupted_wind_down_that_never_ends_is_ended(
    wind_down: str, code: int, said: bool
) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, wind_down],
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
