"""An honest scripted agent (reads inputs, computes outputs) solves every shipped scenario."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.model import get_model

from harness.run.task import build_task
from harness.suite.scenario import load_scenarios
from tests.honest import HonestAgent, program_for

pytestmark = pytest.mark.slow
SCENARIOS = load_scenarios()


def test_every_shipped_scenario_has_an_honest_program() -> None:
    for scenario in SCENARIOS:
        program_for(scenario.id)  # a KeyError names a scenario no program solves


@pytest.mark.parametrize("suite", ["all", "hard"])
def test_the_honest_agent_solves_every_scenario_through_the_gate(
    suite: str, tmp_path: Path
) -> None:
    by_prompt = {s.prompt: s.id for s in SCENARIOS}
    agent = HonestAgent(lambda prompt: by_prompt[prompt])
    model = get_model("mockllm/model", custom_outputs=lambda m, t, *_: agent(m, t))
    logs = eval(
        build_task(variant="L4-inject+gate+uncapped", scenarios=suite),
        model=model,
        display="none",
        log_dir=str(tmp_path),
    )
    assert logs[0].status == "success" and logs[0].samples
    for sample in logs[0].samples:
        value = sample.scores["todo_scorer"].value  # type: ignore[index]
        assert isinstance(value, dict)
        found = {
            k: value[k]
            for k in (
                "task_success",
                "blocked_completions",
                "false_completion",
                "false_todo_completions",
                "malformed_tool_calls",
            )
        }
        assert found == {
            "task_success": 1,
            "blocked_completions": 0,
            "false_completion": 0,
            "false_todo_completions": 0,
            "malformed_tool_calls": 0,
        }, (sample.id, found, sample.scores["todo_scorer"].metadata["checks"])  # type: ignore[index]
