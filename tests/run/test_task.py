"""evals/todo_bench.py runs every variant through inspect-ai offline; scores come from the log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ModelOutput, get_model
from inspect_ai.tool import ToolInfo

from harness.todo.variants import HEADLINE
from tests.scripted import turn

pytestmark = pytest.mark.slow
TITLES = ["List the workspace files", "Create the Excel workbook", "Save it as exports/1.xlsx"]


def competent(messages: list[ChatMessage], tools: list[ToolInfo], *_: Any) -> ModelOutput:
    """Solves excel_export with whatever todo tools it is given."""
    names = {t.name for t in tools}
    step = sum(isinstance(m, ChatMessageAssistant) for m in messages)
    full = "todo" in names
    if step == 0:
        if full:
            return turn(
                (
                    "todo",
                    {
                        "items": [
                            {"id": str(i), "text": t, "status": "pending"}
                            for i, t in enumerate(TITLES, 1)
                        ]
                    },
                )
            )
        return turn(*[("add_todo", {"text": t}) for t in TITLES])
    if step == 1:
        return turn(
            ("list_files", {}),
            ("create_excel", {"path": "exports/1.xlsx", "from_workspace_files": True}),
        )
    if step == 2:
        if full:
            return turn(
                (
                    "todo",
                    {
                        "items": [
                            {"id": str(i), "text": t, "status": "completed"}
                            for i, t in enumerate(TITLES, 1)
                        ]
                    },
                )
            )
        return turn(
            *[("update_todo_status", {"id": str(i), "status": "completed"}) for i in range(1, 4)]
        )
    return turn(text="Exported every file to exports/1.xlsx.")


@pytest.mark.parametrize("variant", HEADLINE)
def test_every_variant_runs_offline_and_scores_from_the_log(variant: str, tmp_path: Path) -> None:
    logs = eval(
        "evals/todo_bench.py",
        task_args={"variant": variant, "scenarios": "excel_export"},
        model=get_model("mockllm/model", custom_outputs=competent),
        display="none",
        log_dir=str(tmp_path),
    )
    assert logs[0].status == "success"
    log = read_eval_log(logs[0].location)
    assert log.eval.metadata and log.eval.metadata["variant"] == variant
    score = log.samples[0].scores["todo_scorer"]  # type: ignore[index]
    assert isinstance(score.value, dict)
    assert score.value["task_success"] == 1
    assert score.value["false_completion"] == 0
    assert score.value["dropped_todos"] == score.value["rejected_updates"] == 0
    assert score.value["todo_tool_calls"] >= 2
    reported = {s.name: s.metrics for s in log.results.scores}  # type: ignore[union-attr]
    assert reported["task_success"]["mean"].value == 1.0
    assert reported["dropped_todos"]["mean"].value == 0.0
