"""Inspect-native use: a log can be scored again from what it holds, and the simulated agent
needs nothing but the sample to know its scenario."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval, score
from inspect_ai.log import read_eval_log

from harness.run.task import build_task
from harness.scoring.scorer import todo_scorer
from harness.versions import TASK_VERSION

pytestmark = pytest.mark.slow


def values(log: object) -> dict[tuple[str, int], dict[str, float]]:
    return {
        (str(s.id), s.epoch): dict(s.scores["todo_scorer"].value)
        for s in log.samples or []  # type: ignore[attr-defined]
        if s.scores
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


FLAKY = """
import sys
from inspect_ai import eval, eval_retry
from inspect_ai.model import ChatMessageUser, ModelAPI, modelapi
from harness.models.sim.provider import SimModel

FAILING = {"excel_export"}


class FlakySim(SimModel):
    # the simulated agent, failing hard on the scenarios in FAILING (a provider outage)
    async def generate(self, input, tools, tool_choice, config):
        prompt = next((m.text for m in input if isinstance(m, ChatMessageUser)), "")
        if self.scenarios[prompt.strip()].id in FAILING:
            raise RuntimeError("provider outage")
        return await super().generate(input, tools, tool_choice, config)


@modelapi(name="flaky_sim")
def flaky_sim():
    return FlakySim


args = {"variant": "L1-textlock", "scenarios": "excel_export,rename_chain"}
run = dict(display="none", log_dir=sys.argv[1], log_format="json")
eval("todo_bench/todo_bench", task_args=args, model="sim/sloppy", **run)
(broken,) = eval("todo_bench/todo_bench", task_args=args, model="flaky_sim/sloppy", **run)
assert broken.status == "error", broken.status
FAILING.clear()
eval_retry(broken, **run)
"""


def test_eval_retry_resumes_a_failed_log_to_the_scores_of_an_unbroken_run(tmp_path: Path) -> None:
    # run from a neutral folder: from the checkout, the editable install's in-tree egg-info
    # hides the `todo_bench` package name from inspect's registry (a setuptools artefact)
    (tmp_path / "flaky.py").write_text(FLAKY)
    logs = tmp_path / "logs"
    done = subprocess.run(
        [sys.executable, "flaky.py", str(logs)], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    clean, broken, retried = (read_eval_log(str(p)) for p in sorted(logs.glob("*.json")))
    assert broken.status == "error" and len(values(broken)) < len(values(clean))
    assert retried.status == "success"
    assert retried.eval.task_registry_name == "todo_bench/todo_bench"
    assert values(retried) == values(clean)
