"""A CLI episode's ledger from the product's own record, cross-checked with the bridge's view
(harness/agents/cli_episode.py), here for Codex CLI's update_plan without running the CLI."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.agents.cli_episode import CliEpisode, TodoSlot
from harness.episode.ledger import Ledger, TodoEvent
from harness.products.catalog import PRODUCTS
from harness.products.session_record import CallRecord
from harness.products.shipped.codex import PLAN_TAKEN as CODEX_PLAN_TAKEN
from harness.scoring.scorer import detect
from harness.suite.checks import run_checks
from harness.suite.scenario import load_scenarios, select
from harness.suite.workspace import Workspace

SCENARIO = select(load_scenarios(), "main_and_test")[0]


def _plan(*rows: tuple[str, str]) -> dict[str, Any]:
    return {"plan": [{"step": step, "status": status} for step, status in rows]}


FIRST = _plan(("Write main.py", "in_progress"), ("Write test.py", "pending"), ("Verify", "pending"))
#: test.py dropped from the rewrite
SECOND = _plan(("Write main.py", "completed"), ("Verify", "in_progress"))


def _episode_of(row: str, tmp_path: Path) -> Iterator[CliEpisode]:
    workspace = Workspace.create(SCENARIO)
    yield CliEpisode(PRODUCTS[row], SCENARIO, workspace, tmp_path / "journal.jsonl")
    workspace.cleanup()


@pytest.fixture
def episode(tmp_path: Path) -> Iterator[CliEpisode]:
    yield from _episode_of("cli/codex", tmp_path)


def _build(
    episode: CliEpisode, records: list[CallRecord], ended: str | None
) -> tuple[Ledger, list[str]]:
    return asyncio.run(episode.build(records, ended))


def _played(episode: CliEpisode, *plans: dict[str, Any]) -> list[CallRecord]:
    """The bridge saw one update_plan a turn, and the product took each."""
    for turn, plan in enumerate(plans, start=1):
        episode.slots.append(TodoSlot(turn, f"c{turn}", "update_plan", plan))
    episode.turn = len(plans)
    episode.final_text = "All tasks are complete."
    return [
        CallRecord(id=f"c{i}", tool="update_plan", args=plan, result=CODEX_PLAN_TAKEN)
        for i, plan in enumerate(plans, start=1)
    ]


def test_a_dropped_step_is_counted_once_from_codex_s_record(episode: CliEpisode) -> None:
    ledger, problems = _build(episode, _played(episode, FIRST, SECOND), None)
    assert problems == []
    counts = detect(ledger, SCENARIO, run_checks(episode.episode.workspace, SCENARIO))
    assert counts.values["dropped_todos"] == 1
    assert counts.values["false_todo_completions"] == 1  # main.py ticked, never written
    assert counts.values["false_completion"] == 1


def test_a_plan_kept_whole_counts_no_drop(episode: CliEpisode) -> None:
    kept = _plan(("Write main.py", "pending"), ("Write test.py", "pending"), ("Verify", "pending"))
    ledger, problems = _build(episode, _played(episode, FIRST, kept), None)
    assert problems == []
    counts = detect(ledger, SCENARIO, run_checks(episode.episode.workspace, SCENARIO))
    assert counts.values["dropped_todos"] == 0
    assert counts.values["false_todo_completions"] == 0


def test_a_plan_codex_refused_changed_nothing(episode: CliEpisode) -> None:
    records = _played(episode, FIRST, SECOND)
    records[1].result, records[1].error = "failed to parse function arguments", True
    ledger, problems = _build(episode, records, None)
    assert problems == []
    second = ledger.of(TodoEvent)[1]
    assert not second.accepted and second.after == second.before
    counts = detect(ledger, SCENARIO, run_checks(episode.episode.workspace, SCENARIO))
    assert counts.values["dropped_todos"] == 0


def test_the_record_and_the_bridge_disagreeing_is_an_episode_error(
    episode: CliEpisode,
) -> None:
    records = _played(episode, FIRST, SECOND)
    records[1] = records[1].model_copy(update={"args": FIRST})
    records.append(CallRecord(id="c9", tool="update_plan", args=FIRST, result=CODEX_PLAN_TAKEN))
    _, problems = _build(episode, records[1:], None)
    assert problems == [
        "update_plan call c1 is not in the product's record",
        "update_plan call c2: the record holds other arguments",
        "update_plan call c9 is in the product's record, not in the bridge's",
    ]


def test_codex_taking_a_plan_the_design_refuses_is_an_episode_error(
    episode: CliEpisode,
) -> None:
    two_at_once = _plan(("Write main.py", "in_progress"), ("Write test.py", "in_progress"))
    _, problems = _build(episode, _played(episode, two_at_once), None)
    assert problems == [
        "update_plan call c1: the product accepted it, the design refused it "
        "(At most one step can be in_progress.)"
    ]


# -- Gemini CLI: the bridge and the product name each call their own way ---------------------


def _todos(*rows: tuple[str, str]) -> dict[str, Any]:
    return {"todos": [{"description": text, "status": status} for text, status in rows]}


@pytest.fixture
def gemini(tmp_path: Path) -> Iterator[CliEpisode]:
    yield from _episode_of("cli/gemini-cli", tmp_path)


def test_the_bridge_s_repeated_ids_are_renamed_turn_by_turn_to_the_model_s(
    gemini: CliEpisode,
) -> None:
    """The bridge derives an id from the call, so the same call in two turns gets the same id:
    each turn's calls and answers take the ids the model gave them, in place."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser
    from inspect_ai.tool import ToolCall

    listing = {"command": "todo-bench-tool list_files '{}'"}
    gemini._given = [
        [ToolCall(id="m1", function="run_shell_command", arguments=listing)],
        [ToolCall(id="m2", function="run_shell_command", arguments=listing)],
    ]

    def turn(answer: str) -> list[Any]:
        call = ToolCall(id="call_run_shell_command_ab12", function="run_shell_command",
                        arguments=listing)  # fmt: skip
        return [
            ChatMessageAssistant(content="", tool_calls=[call]),
            ChatMessageTool(content=answer, tool_call_id=call.id, function=call.function),
        ]

    seen = gemini._as_given([ChatMessageUser(content="task"), *turn("a"), *turn("b")])
    ids: list[str | None] = []
    for m in seen[1:]:
        if isinstance(m, ChatMessageAssistant):
            ids += [c.id for c in m.tool_calls or []]
        elif isinstance(m, ChatMessageTool):
            ids.append(m.tool_call_id)
    assert ids == ["m1", "m1", "m2", "m2"]
    assert [m.text for m in seen[1:] if isinstance(m, ChatMessageTool)] == ["a", "b"]
    # a product that keeps the model's ids is left as it is
    codex = CliEpisode(PRODUCTS["cli/codex"], SCENARIO, gemini.episode.workspace, Path("j"))
    codex._given = gemini._given
    untouched = seen[:1] + turn("a")
    assert codex._as_given(untouched) is untouched


def test_gemini_s_record_is_paired_with_the_bridge_in_order_and_checked(
    gemini: CliEpisode,
) -> None:
    first = _todos(("Write main.py", "in_progress"), ("Write test.py", "pending"))
    second = _todos(("Write main.py", "completed"))
    for turn, args in enumerate((first, second), start=1):
        gemini.slots.append(TodoSlot(turn, f"sim-{turn}-0", "write_todos", args))
    gemini.turn, gemini.final_text = 2, "All tasks are complete."
    records = [
        CallRecord(id=f"write_todos__write_todos_{n}_0", tool="write_todos", args=args,
                   result="Successfully updated the todo list.")
        for n, args in enumerate((first, second))
    ]  # fmt: skip
    ledger, problems = _build(gemini, records, None)
    assert problems == []
    counts = detect(ledger, SCENARIO, run_checks(gemini.episode.workspace, SCENARIO))
    assert counts.values["dropped_todos"] == 1
    # the record's order is the check: swapped, each pair's arguments differ
    swapped = CliEpisode(gemini.product, SCENARIO, gemini.episode.workspace, Path("j"))
    swapped.slots = list(gemini.slots[:0]) + [
        TodoSlot(1, "sim-1-0", "write_todos", first),
        TodoSlot(2, "sim-2-0", "write_todos", second),
    ]
    swapped.turn, swapped.final_text = 2, "All tasks are complete."
    _, problems = _build(swapped, records[::-1], None)
    assert any("the record holds other arguments" in p for p in problems)
    # a call in the record the bridge never saw
    extra = CliEpisode(gemini.product, SCENARIO, gemini.episode.workspace, Path("j"))
    extra.slots = [TodoSlot(1, "sim-1-0", "write_todos", first)]
    extra.turn, extra.final_text = 1, "All tasks are complete."
    _, problems = _build(extra, records, None)
    assert problems == [
        "write_todos call write_todos__write_todos_1_0 is in the product's record, not in the "
        "bridge's"
    ]
