"""Every shipped scenario admits at least two different valid solutions through the gate.

The reference, and a variant spelled differently (`./` paths, a CSV written with `write_file`,
an Excel listing without a separate `list_files`), both solve every scenario through the real
loop with the gate on, with zero blocked completions and no false ticks.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    ModelOutput,
    get_model,
)
from inspect_ai.tool import ToolInfo

from harness.run.task import build_task
from harness.suite.scenario import Scenario, Step, load_scenarios, select
from tests.scripted import turn

pytestmark = pytest.mark.slow
SCENARIOS = {s.id: s for s in select(load_scenarios(), "all")}
Call = tuple[str, dict[str, Any]]


def reference(steps: list[Step]) -> list[Call]:
    return [(s.tool, dict(s.args)) for s in steps]


def respelled(steps: list[Step]) -> list[Call]:
    """The same work by other valid means."""
    calls: list[Call] = []
    for step in steps:
        args = {k: f"./{v}" if k in ("path", "src", "dst") else v for k, v in step.args.items()}
        if step.tool == "list_files" and any(s.args.get("from_workspace_files") for s in steps):
            continue  # create_excel(from_workspace_files=true) lists the workspace itself
        if step.tool == "write_csv":
            buffer = io.StringIO()
            csv.writer(buffer, lineterminator="\n").writerows(args["rows"])
            calls.append(("write_file", {"path": args["path"], "content": buffer.getvalue()}))
            continue
        calls.append((step.tool, args))
    return calls


def follower(
    solve: Callable[[list[Step]], list[Call]],
) -> Callable[[list[ChatMessage], list[ToolInfo]], ModelOutput]:
    """A scripted agent that does one reference step per turn, following the user's requests."""

    def script(messages: list[ChatMessage], tools: list[ToolInfo]) -> ModelOutput:
        prompt = next(m.text for m in messages if isinstance(m, ChatMessageUser))
        scenario = next(s for s in SCENARIOS.values() if s.prompt == prompt)
        said = " ".join(m.text for m in messages if isinstance(m, ChatMessageUser))
        made = [
            (c.function, c.arguments)
            for m in messages
            if isinstance(m, ChatMessageAssistant)
            for c in m.tool_calls or []
        ]
        steps = [
            s
            for s in scenario.reference
            if _wanted(scenario, s, said, started=_started(scenario, s.subtask, made, solve))
        ]
        unclaimed = list(made)
        for call in solve(steps):  # the first planned call not yet made (repeats count)
            if call in unclaimed:
                unclaimed.remove(call)
            else:
                return turn(call)
        return turn(text="Done.")

    return script


def _started(
    scenario: Scenario, subtask: str, made: list[Call], solve: Callable[[list[Step]], list[Call]]
) -> bool:
    work = [s for s in scenario.reference if s.subtask == subtask and not s.undo]
    return any(call in made for call in solve(work))


def _wanted(scenario: Scenario, step: Step, said: str, started: bool) -> bool:
    for user_turn in scenario.user_turns:
        if user_turn.subtask != step.subtask:
            continue
        if user_turn.action == "add" and user_turn.message not in said:
            return False
        if user_turn.action == "cancel" and user_turn.message in said:
            # cancelled: leave its work undone, or undo it if it was already done
            return step.undo and started
    return not step.undo


@pytest.mark.parametrize("solve", [reference, respelled], ids=["reference", "respelled"])
def test_every_scenario_passes_the_gate_with_both_solutions(
    solve: Callable[[list[Step]], list[Call]], tmp_path: Path
) -> None:
    outputs = follower(solve)
    model = get_model(
        "mockllm/model", custom_outputs=lambda messages, tools, *_: outputs(messages, tools)
    )
    logs = eval(
        build_task(variant="L4-inject+gate"), model=model, display="none", log_dir=str(tmp_path)
    )
    assert logs[0].status == "success" and logs[0].samples
    assert len(logs[0].samples) == len(SCENARIOS)
    for sample in logs[0].samples:
        value = sample.scores["todo_scorer"].value  # type: ignore[index]
        assert isinstance(value, dict)
        result = (value["task_success"], value["blocked_completions"], value["false_completion"])
        assert result == (1, 0, 0), (sample.id, result)
