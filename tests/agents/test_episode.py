"""A CLI episode's ledger from the product's own record, cross-checked with the bridge's view
(harness/agents/episode.py), here for Codex CLI's update_plan without running the CLI."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.agents.episode import CliEpisode, TodoSlot
from harness.episode.ledger import Ledger, TodoEvent
from harness.products.catalog import PRODUCTS
from harness.products.codex import PLAN_TAKEN as CODEX_PLAN_TAKEN
from harness.products.record import CallRecord
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


@pytest.fixture
def episode(tmp_path: Path) -> Iterator[CliEpisode]:
    workspace = Workspace.create(SCENARIO)
    run = CliEpisode(PRODUCTS["cli/codex"], SCENARIO, workspace, tmp_path / "journal.jsonl")
    yield run
    workspace.cleanup()


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
