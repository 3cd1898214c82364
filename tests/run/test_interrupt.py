"""Interrupted runs lose nothing and leave nothing behind: SIGKILL the parent alone, or the
whole process group, at several points; the workers end, and rerunning the same command gives
a summary byte-identical to an uninterrupted run. Determinism across worker counts and
`--max-samples` too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy

ARGS = [
    "--variants",
    "L0-rewrite,L3-granular,L4-inject",
    "--scenarios",
    "main_and_test,rename_chain",
]
ARGS += ["--epochs", "2", "--seed", "3", "--display", "none"]


def command(out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "harness.commands", "run", *ARGS, "--out", str(out), *extra]


def run(out: Path, *extra: str) -> None:
    done = subprocess.run(command(out, *extra), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]


def members(group: int) -> list[int]:
    """Live processes of a process group (zombies excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[2]) == group:
                found.append(int(entry.name))
    return found


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    out = tmp_path_factory.mktemp("clean") / "run"
    run(out, "--workers", "1")
    return (out / "summary.json").read_bytes()


@pytest.mark.parametrize("whole_group", [False, True], ids=["parent", "group"])
@pytest.mark.parametrize("after", [3.0, 7.0])
def test_killed_runs_resume_to_the_same_summary(
    reference: bytes, tmp_path: Path, whole_group: bool, after: float
) -> None:
    out = tmp_path / "run"
    process = subprocess.Popen(
        command(out, "--workers", "2"),
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(after)
    if whole_group:
        os.killpg(process.pid, signal.SIGKILL)
    else:
        process.kill()
    process.wait()
    deadline = time.monotonic() + 15
    while members(process.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert members(process.pid) == [], "worker processes outlived their parent"
    run(out, "--workers", "2")
    assert (out / "summary.json").read_bytes() == reference


def test_worker_count_and_max_samples_do_not_change_the_summary(
    reference: bytes, tmp_path: Path
) -> None:
    run(tmp_path / "a", "--workers", "2", "--max-samples", "1")
    assert (tmp_path / "a" / "summary.json").read_bytes() == reference


#: long enough to be interrupted mid-run (72 episodes)
LONG = ["--variants", "L0-rewrite,L3-granular,L4-inject", "--epochs", "2", "--seed", "5"]
LONG += ["--display", "none"]


def long_command(out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "harness.commands", "run", *LONG, "--out", str(out), *extra]


@pytest.fixture(scope="module")
def long_reference(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    out = tmp_path_factory.mktemp("long") / "run"
    done = subprocess.run(long_command(out), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return (out / "summary.json").read_bytes()


@pytest.mark.parametrize(
    ("workers", "stop"),
    [(w, s) for s in ("one-ctrl-c", "two-ctrl-c") for w in ("1", "2")] + [("2", "sigterm")],
)
def test_ctrl_c_ends_the_run_within_seconds_and_it_resumes(
    long_reference: bytes, tmp_path: Path, workers: str, stop: str
) -> None:
    """A terminal's Ctrl-C reaches the whole process group; once or twice (a second press one
    second later, as an impatient user does), the run ends in 5 s with exit 130, prints no
    traceback, leaves no process behind, and the rerun gives the uninterrupted summary. A
    SIGTERM to the command's process alone (a CI job's timeout) does the same (in a group
    another process leads, with CLI episodes running: tests/agents/test_concurrent_episodes.py)."""
    out = tmp_path / "run"
    process = subprocess.Popen(
        long_command(out, "--workers", workers),
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not (out / "logs" / "L0-rewrite").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)  # episodes under way
    assert process.poll() is None, "the run ended before it could be interrupted"
    pressed = time.monotonic()
    if stop == "sigterm":
        process.send_signal(signal.SIGTERM)
    else:
        os.killpg(process.pid, signal.SIGINT)
    if stop == "two-ctrl-c":
        time.sleep(1.0)
        os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=30)
    took = time.monotonic() - pressed
    assert process.returncode == 130, err[-2000:]
    assert took <= 5.0, f"{took:.1f} s to stop"
    assert "Traceback" not in err, err[-3000:]
    assert "rerun the same command to resume" in err
    deadline = time.monotonic() + 5
    while members(process.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert members(process.pid) == [], "worker processes outlived the run"
    resumed = subprocess.run(
        long_command(out, "--workers", workers), capture_output=True, text=True, timeout=600
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert (out / "summary.json").read_bytes() == long_reference
