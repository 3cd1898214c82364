"""The agent loop under scripted models: injection, reminder, gate, guard, bad calls, traces."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalSample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageTool,
    ModelOutput,
)
from inspect_ai.tool import ToolInfo

from tests.scripted import run_episode, scores_of, turn, turns_so_far

pytestmark = pytest.mark.slow

Script = Callable[[list[ChatMessage], list[ToolInfo]], ModelOutput]
PLAN = [
    ("List the workspace files", "in_progress"),
    ("Create the Excel workbook", "pending"),
    ("Save it as exports/1.xlsx", "pending"),
]


def run(
    script: Script, tmp_path: Path, variant: str, scenarios: str = "excel_export"
) -> EvalSample:
    return run_episode(script, tmp_path, scenarios, variant)


def plan_call(tools: list[ToolInfo]) -> list[tuple[str, dict[str, Any]]]:
    if "todo" in {t.name for t in tools}:
        rows = [{"id": str(i), "text": t, "status": s} for i, (t, s) in enumerate(PLAN, 1)]
        return [("todo", {"items": rows})]
    return [("add_todo", {"text": t}) for t, _ in PLAN]


def scores(sample: EvalSample) -> dict[str, float]:
    return scores_of(sample)


def test_injection_reaches_every_model_call(tmp_path: Path) -> None:
    systems: list[str] = []
    ids: list[str | None] = []

    def script(messages: list[ChatMessage], tools: list[ToolInfo]) -> ModelOutput:
        system = next(m for m in messages if isinstance(m, ChatMessageSystem))
        systems.append(system.text)
        ids.append(system.id)
        step = turns_so_far(messages)
        if step == 0:
            return turn(*plan_call(tools))
        if step == 1:
            return turn(("update_todo_status", {"id": "1", "status": "completed"}))
        return turn(text="Done.")

    run(script, tmp_path, variant="L4-inject")
    assert len(systems) == 3
    assert "(0/0 completed)" in systems[0]
    assert "[>] #1: List" not in systems[0]
    assert "[ ] #1: List the workspace files\n[ ] #2: Create the Excel workbook" in systems[1]
    assert "[x] #1: List the workspace files" in systems[2]
    assert len(set(ids)) == 3  # a changed list is a new system message

    plain: list[str] = []

    def script_l3(messages: list[ChatMessage], tools: list[ToolInfo]) -> ModelOutput:
        plain.append(next(m.text for m in messages if isinstance(m, ChatMessageSystem)))
        return script(messages, tools)

    systems.clear()
    ids.clear()
    run(script_l3, tmp_path, variant="L3-granular")
    assert all("Current todo list" not in text for text in plain)
    # an unchanged prompt stays one message, as inspect's own loop keeps it
    assert len(ids) == 3 and len(set(ids)) == 1


def test_reminder_after_three_turns_without_todo_calls(tmp_path: Path) -> None:
    def script(messages: list[ChatMessage], tools: list[ToolInfo]) -> ModelOutput:
        step = turns_so_far(messages)
        if step == 0:
            return turn(*plan_call(tools))
        if step <= 4:
            return turn(("list_files", {}))
        return turn(text="Done.")

    sample = run(script, tmp_path, variant="L0-rewrite")
    kinds = [m.role if m.role != "user" else m.text[:10] for m in sample.messages]
    # after the third turn without a todo call, the reminder follows its tool result
    assert kinds.count("<reminder>") == 1
    position = kinds.index("<reminder>")
    assert kinds[position - 1] == "tool" and kinds[position - 2] == "assistant"
    assert sum(k == "assistant" for k in kinds[:position]) == 4
    assert all(not m.text.startswith("<reminder>") for m in sample.messages if m.role == "tool")


def test_malformed_and_unknown_tool_calls_become_tool_errors(tmp_path: Path) -> None:
    def script(messages: list[ChatMessage], tools: list[ToolInfo]) -> ModelOutput:
        step = turns_so_far(messages)
        if step == 0:
            return turn(
                ("todo", {"items": "not a list"}),
                ("teleport", {"to": "mars"}),
                ("write_file", {"path": "../../etc/x", "content": "x"}),
            )
        return turn(text="Done.")

    sample = run(script, tmp_path, variant="L0-rewrite")
    errors = [m.error for m in sample.messages if isinstance(m, ChatMessageTool)]
    assert all(error is not None for error in errors) and len(errors) == 3
    found = scores(sample)
    assert found["malformed_tool_calls"] >= 1
    assert found["false_completion"] == 1


ROWS = [["file"], ["README.md"], ["data/input.csv"], ["src/app.py"]]


def excel_story(messages: list[ChatMessage], tools: list[ToolInfo]) -> ModelOutput:
    """The seed's story: list files, claim done; then a wrong path; then the right one."""
    step = turns_so_far(messages)
    script = [
        turn(("list_files", {})),
        turn(text="Done! I listed the files."),
        turn(("create_excel", {"path": "exports/files.xlsx", "from_workspace_files": True})),
        turn(text="The Excel file is created."),
        turn(("create_excel", {"path": "exports/1.xlsx", "rows": ROWS})),
        turn(text="Saved as exports/1.xlsx."),
    ]
    return script[step] if step < len(script) else turn(text="Done.")


def test_gate_blocks_the_excel_story_until_every_subtask_is_ticked(tmp_path: Path) -> None:
    sample = run(excel_story, tmp_path, variant="L4-inject+gate")
    blocks = [
        m.text for m in sample.messages if m.role == "user" and "Completion blocked" in m.text
    ]
    assert len(blocks) == 2
    assert "1/3 done: [x] List the workspace files [ ] Create the Excel workbook" in blocks[0]
    assert "2/3 done:" in blocks[1] and "[ ] Save it as exports/1.xlsx" in blocks[1]
    found = scores(sample)
    assert (found["task_success"], found["false_completion"], found["blocked_completions"]) == (
        1,
        0,
        2,
    )
    score = sample.scores["todo_scorer"]  # type: ignore[index]
    assert score.explanation and "- [x] Save it as exports/1.xlsx" in score.explanation
    assert "3/3 done; completion blocked 2x" in score.explanation
    events = [
        e.data.get("event") for e in sample.events if e.event == "info" and isinstance(e.data, dict)
    ]
    assert events[0] == "task_state_init"
    assert events.count("task_completion_blocked") == 2
    assert events.count("task_state_updated") == 3  # list, excel, then save


def test_without_the_gate_the_same_script_is_a_false_completion(tmp_path: Path) -> None:
    found = scores(run(excel_story, tmp_path, variant="L4-inject"))
    assert (found["false_completion"], found["task_success"], found["blocked_completions"]) == (
        1,
        0,
        0,
    )


def test_budget_spent_while_blocked_is_gate_exhausted_not_a_false_completion(
    tmp_path: Path,
) -> None:
    def script(messages: list[ChatMessage], tools: list[ToolInfo]) -> ModelOutput:
        return turn(text="All done.")

    found = scores(run(script, tmp_path, variant="L0-rewrite+gate"))
    assert found["false_completion"] == 0
    assert (found["gate_exhausted"], found["budget_exhausted"]) == (1, 0)
    assert found["blocked_completions"] == 20  # every turn of the scenario's budget


def test_fake_tool_call_is_answered_with_the_gate_and_ends_the_episode_without(
    tmp_path: Path,
) -> None:
    fake = '```json\n{"name": "create_excel", "arguments": {"path": "exports/1.xlsx"}}\n```'

    def script(messages: list[ChatMessage], tools: list[ToolInfo]) -> ModelOutput:
        step = turns_so_far(messages)
        if step == 0:
            return turn(text=fake)
        if step == 1:
            return turn(
                ("list_files", {}),
                ("create_excel", {"path": "exports/1.xlsx", "from_workspace_files": True}),
            )
        return turn(text="Done.")

    gated = run(script, tmp_path, variant="L2-whitelist+gate")
    nudges = [m.text for m in gated.messages if m.role == "user" and "for real" in m.text]
    assert len(nudges) == 1
    assert (scores(gated)["fake_tool_calls"], scores(gated)["task_success"]) == (1, 1)
    ungated = scores(run(script, tmp_path, variant="L2-whitelist"))
    assert (ungated["fake_tool_calls"], ungated["false_completion"]) == (1, 1)


def test_scripted_user_turns_and_compaction(tmp_path: Path) -> None:
    seen: list[list[str]] = []

    def script(messages: list[ChatMessage], tools: list[ToolInfo]) -> ModelOutput:
        seen.append([m.text[:40] for m in messages])
        return turn(("list_files", {})) if len(seen) < 6 else turn(text="Done.")

    sample = run(script, tmp_path, scenarios="compaction", variant="L3-granular")
    after = seen[4]  # compaction runs after turn 4
    assert any("compacted" in text for text in after)
    assert len(after) == 1 + 1 + 1 + 2  # system, prompt, note, the last 2 kept
    seen.clear()
    cancel = run(script, tmp_path, scenarios="user_cancels", variant="L3-granular")
    assert any("Skip the README" in m.text for m in cancel.messages if m.role == "user")
    assert sample.scores


def test_the_log_keeps_the_tool_schemas_once_per_sample(tmp_path: Path) -> None:
    seen: list[list[str]] = []

    def script(messages: list[ChatMessage], tools: list[ToolInfo]) -> ModelOutput:
        seen.append([t.name for t in tools])  # what the model is offered: every turn, in full
        step = turns_so_far(messages)
        if step == 0:
            return turn(*plan_call(tools))
        if step == 1:
            return turn(("list_files", {}))
        return turn(text="Done.")

    sample = run(script, tmp_path, variant="L3-granular")
    logged = [e.tools for e in sample.events if isinstance(e, ModelEvent)]
    assert len(logged) == len(seen) == 3 and all(names == seen[0] for names in seen)
    assert [t.name for t in logged[0]] == seen[0] and len(seen[0]) == 12
    assert logged[1:] == [[], []]
    assert all(type(t) is ToolInfo for t in logged[0])  # mockllm: inspect copies as ever


def test_only_a_provider_that_only_reads_schemas_gets_them_uncopied() -> None:
    from harness._inspect_private import SharedToolInfo
    from harness.models.sim.provider import SimModel

    assert SimModel.READS_TOOLS_ONLY
    info = SharedToolInfo(name="t", description="d")
    assert info.model_copy(deep=True) is info
    plain = ToolInfo(name="t", description="d")
    assert plain.model_copy(deep=True) is not plain
