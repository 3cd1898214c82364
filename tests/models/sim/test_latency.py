"""`-M latency=...`: the simulated agent waits as a hosted model does, and decides the same."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from harness.commands import main
from harness.models.sim import latency
from harness.models.sim.profiles import ProfileError


def test_a_fixed_delay_or_a_range_is_read_and_anything_else_refused_in_one_line() -> None:
    assert latency.parse("0.5") == (0.5, 0.5)
    assert latency.parse(0) == (0.0, 0.0)
    assert latency.parse("0.2-1.5") == (0.2, 1.5)
    for bad in ("fast", "-1", "2-1", "1000", ""):
        with pytest.raises(ProfileError, match=r"^sim: -M latency=.*: give seconds per request"):
            latency.parse(bad)


def test_a_drawn_delay_is_in_its_range_and_the_same_for_the_same_request() -> None:
    drawn = [latency.delay((0.2, 1.5), 0, f"excel_export|1|{n}") for n in range(50)]
    assert all(0.2 <= d <= 1.5 for d in drawn) and len(set(drawn)) == 50
    assert latency.delay((0.2, 1.5), 0, "excel_export|1|7") == drawn[7]
    assert latency.delay((0.3, 0.3), 0, "any") == 0.3


def _run(out: Path, *args: str) -> float:
    started = time.monotonic()
    command = ["run", "--model", "sim/sloppy", "--variants", "L0", "--scenarios"]
    command += ["excel_export", "--epochs", "1", "--out", str(out), "--display", "none", *args]
    assert main(command) == 0
    return time.monotonic() - started


def test_a_run_with_latency_takes_its_time_and_gives_the_same_summary_bytes(
    tmp_path: Path,
) -> None:
    _run(tmp_path / "quick")
    waited = _run(tmp_path / "slow", "-M", "latency=0.3")
    assert (tmp_path / "quick/summary.json").read_bytes() == (
        tmp_path / "slow/summary.json"
    ).read_bytes()
    record = json.loads((tmp_path / "slow/run.json").read_text())
    assert record["model_args"]["latency"] == 0.3
    summary = json.loads((tmp_path / "slow/summary.json").read_text())
    turns = summary["variants"][0]["metrics"]["turns"]
    # every turn is a request; each waited 0.3 s (one sample: nothing overlaps)
    assert waited >= 0.3 * float(turns["mean"])


def test_a_bad_latency_stops_the_run_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = ["run", "--model", "sim/sloppy", "-M", "latency=soon", "--variants", "L0"]
    assert main([*command, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "latency=soon" in err and "Traceback" not in err
    assert not (tmp_path / "run" / "logs").exists()
