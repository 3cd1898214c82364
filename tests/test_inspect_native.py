"""Inspect-native use: a log can be scored again from what it holds, and the simulated agent
needs nothing but the sample to know its scenario."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval, score

from harness.scoring import todo_scorer
from harness.task import TASK_VERSION, build_task

pytestmark = pytest.mark.slow


def values(log: object) -> dict[tuple[str, int], dict[str, float]]:
    return {
        (str(s.id), s.epoch): dict(s.scores["todo_scorer"].value)
        for s in log.samples or []  # type: ignore[attr-defined]
    }


def test_inspect_score_reproduces_a_logs_scores_exactly(tmp_path: Path) -> None:
    (log,) = eval(
        build_task("L2-whitelist+gate", scenarios="excel_export,user_cancels,compaction"),
        model="sim/chaotic",
        epochs=2,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success" and log.eval.task_version == TASK_VERSION
    rescored = score(log, scorers=[todo_scorer()], action="overwrite", display="none")
    assert values(rescored) == values(log)
    assert any(v["dropped_todos"] or v["rejected_updates"] for v in values(log).values())


def test_the_sim_reads_its_scenario_from_the_sample(tmp_path: Path) -> None:
    # a scenario the sim could never find by its prompt in the shipped folder
    folder = tmp_path / "mine"
    folder.mkdir()
    source = Path("scenarios/main_and_test.yaml").read_text(encoding="utf-8")
    (folder / "main_and_test.yaml").write_text(
        source.replace("Write main.py defining add", "Please write main.py defining add"),
        encoding="utf-8",
    )
    (log,) = eval(
        build_task("L3-granular", scenario_dir=str(folder)),
        model="sim/oracle",
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.samples and log.samples[0].scores
    value = log.samples[0].scores["todo_scorer"].value
    assert isinstance(value, dict) and value["task_success"] == 1
