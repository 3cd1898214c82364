"""Calibration reads fault rates back from a run's ledgers."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval

from harness.audit.calibrate import calibrate, write_profile
from harness.models.sim.profiles import load_profile
from harness.run.task import build_task

pytestmark = pytest.mark.slow


def run(model: str, out: Path) -> Path:
    tasks = [
        build_task(v, scenarios="long_list,rename_chain") for v in ("L0-rewrite", "L3-granular")
    ]
    logs = eval(tasks, model=model, epochs=2, display="none", log_dir=str(out))
    assert all(log.status == "success" for log in logs)
    return out


def test_oracle_calibrates_to_no_faults(tmp_path: Path) -> None:
    profile, counts, model = calibrate(run("sim/oracle", tmp_path))
    assert model == "sim/oracle" and counts["rewrite_items"] > 0
    assert (profile.drop, profile.mutate, profile.prose_call, profile.premature_done) == (
        0,
        0,
        0,
        0,
    )


def test_chaotic_calibrates_to_faults_and_round_trips(tmp_path: Path) -> None:
    profile, counts, model = calibrate(run("sim/chaotic", tmp_path / "logs"))
    assert profile.drop > 0 and profile.mutate > 0 and profile.wrong_id > 0
    path = tmp_path / "profile.yaml"
    write_profile(profile, counts, model, path)
    loaded = load_profile(f"file:{path}")
    assert loaded.drop == profile.drop and loaded.name == profile.name


def test_a_run_without_ledgers_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no scored episodes"):
        calibrate(tmp_path)
