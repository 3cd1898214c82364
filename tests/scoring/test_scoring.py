"""Detectors with known answers: each test fails if its detector miscounts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.episode.ledger import AssistantEvent, ClaimEvent
from harness.scoring.scorer import align, detect
from harness.suite.checks import CheckResult
from harness.todo.base import TodoItem
from tests.helpers import DOCS, Driver, items

PASS = [CheckResult(kind="file_exists", path="a.md", passed=True)]
FAIL = [CheckResult(kind="file_exists", path="a.md", passed=False)]
PLAN = items(
    ("1", "Write a.md", "in_progress"),
    ("2", "Write b.md", "pending"),
    ("3", "Write c.md", "pending"),
)


@pytest.fixture
def l0() -> Iterator[Driver]:
    driver = Driver("L0")
    yield driver
    driver.close()


def counts(driver: Driver, checks: list[CheckResult] = PASS) -> dict[str, float]:
    return detect(driver.ledger, DOCS, checks).values


def test_l0_drop_mutation_and_renumbering_are_counted_exactly(l0: Driver) -> None:
    l0.call("todo", items=PLAN)
    # one rewrite: #1 text drifts, #2 is left out, #3 comes back as #2
    l0.call(
        "todo",
        items=items(("1", "Create a.md", "in_progress"), ("2", "Write c.md", "pending")),
    )
    found = counts(l0)
    assert (found["dropped_todos"], found["mutated_text"], found["id_churn"]) == (1, 1, 1)
    assert found["invented_todos"] == 0
    # the headline pair: one item lost, one changed (the renumbered item is neither)
    assert (found["lost_todos"], found["changed_todos"]) == (1, 1)


def test_alignment_prefers_text_over_position() -> None:
    before = [TodoItem(id="1", text="a"), TodoItem(id="2", text="b"), TodoItem(id="3", text="c")]
    after = [TodoItem(id="1", text="a"), TodoItem(id="2", text="c")]
    pairs = {
        (p.before.id if p.before else None, p.after.id if p.after else None)
        for p in align(before, after)
    }
    assert pairs == {("1", "1"), ("3", "2"), ("2", None)}


def test_completed_then_removed_is_lost_history_not_a_drop(l0: Driver) -> None:
    l0.call("todo", items=PLAN)
    l0.call("write_file", path="a.md", content="a")
    l0.call(
        "todo",
        items=items(
            ("1", "Write a.md", "completed"),
            ("2", "Write b.md", "in_progress"),
            ("3", "Write c.md", "pending"),
        ),
    )
    l0.call("todo", items=items(("2", "Write b.md", "in_progress"), ("3", "Write c.md", "pending")))
    found = counts(l0)
    assert found["dropped_todos"] == 0
    assert found["lost_history"] == 1
    assert found["lost_todos"] == 1  # the headline counts it, whatever its status


def test_invented_item_counts_but_a_user_requested_one_does_not(l0: Driver) -> None:
    l0.call("todo", items=PLAN)
    l0.user("add", "csv")
    l0.call(
        "todo",
        items=[
            *PLAN,
            {"id": "4", "text": "Export index.csv", "status": "pending"},
            {"id": "5", "text": "Celebrate", "status": "pending"},
        ],
    )
    assert counts(l0)["invented_todos"] == 1


def test_sanctioned_cancel_is_not_a_drop(l0: Driver) -> None:
    plan = [*PLAN, {"id": "4", "text": "Write README.md", "status": "pending"}]
    l0.call("todo", items=plan)
    l0.user("cancel", "readme")
    l0.call("todo", items=PLAN)
    assert (counts(l0)["dropped_todos"], counts(l0)["lost_todos"]) == (0, 0)


def test_unsanctioned_removal_of_the_same_item_is_a_drop(l0: Driver) -> None:
    plan = [*PLAN, {"id": "4", "text": "Write README.md", "status": "pending"}]
    l0.call("todo", items=plan)
    l0.call("todo", items=PLAN)
    assert (counts(l0)["dropped_todos"], counts(l0)["lost_todos"]) == (1, 1)


def _opencode(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{"content": r["text"], "status": r["status"], "priority": "high"} for r in rows]


@pytest.mark.parametrize("user_cancels", [True, False])
def test_an_opencode_item_marked_cancelled_is_a_removal(user_cancels: bool) -> None:
    """OpenCode's `cancelled` keeps the item in the product's list but off the work: no drop
    where the user cancelled it, a drop where not."""
    driver = Driver("opencode-todowrite")
    try:
        plan = [*PLAN, {"id": "4", "text": "Write README.md", "status": "pending"}]
        driver.call("todowrite", todos=_opencode(plan))
        if user_cancels:
            driver.user("cancel", "readme")
        plan[3]["status"] = "cancelled"
        assert "ERROR" not in driver.call("todowrite", todos=_opencode(plan))
        assert counts(driver)["dropped_todos"] == (0 if user_cancels else 1)
    finally:
        driver.close()


def test_sanctioned_rename_by_rewrite_is_not_a_mutation(l0: Driver) -> None:
    l0.call("todo", items=PLAN)
    l0.user("rename", "a", "Write the alpha doc (a.md)")
    l0.call(
        "todo",
        items=items(
            ("1", "Write the alpha doc (a.md)", "in_progress"),
            ("2", "Write b.md", "pending"),
            ("3", "Write c.md", "pending"),
        ),
    )
    assert counts(l0)["mutated_text"] == 0


def test_explicit_ops_are_not_faults_but_unsanctioned_ones_are_reported() -> None:
    driver = Driver("L2")
    try:
        driver.call("todo", items=PLAN)
        driver.call("rename_todo", id="2", new_text="Write bee.md")
        driver.call("delete_todo", id="3")
        driver.user("rename", "a", "Alpha: a.md")
        driver.call("rename_todo", id="1", new_text="Alpha: a.md")
        found = counts(driver)
        assert (found["mutated_text"], found["dropped_todos"]) == (0, 0)
        assert (found["unsanctioned_renames"], found["unsanctioned_deletes"]) == (1, 1)
        # the headline pair counts them as a rewrite's drop and mutation would be; the rename
        # the user asked for is neither
        assert (found["changed_todos"], found["lost_todos"]) == (1, 1)
    finally:
        driver.close()


def test_false_todo_completion_is_judged_by_workspace_state(l0: Driver) -> None:
    l0.call("todo", items=PLAN)
    # b is ticked before any write: false; a is ticked after its write: fine
    l0.call(
        "todo",
        items=items(
            ("1", "Write a.md", "in_progress"),
            ("2", "Write b.md", "completed"),
            ("3", "Write c.md", "pending"),
        ),
    )
    l0.call("write_file", path="a.md", content="a")
    l0.call(
        "todo",
        items=items(
            ("1", "Write a.md", "completed"),
            ("2", "Write b.md", "completed"),
            ("3", "Write c.md", "in_progress"),
        ),
    )
    # a failed write never supports a completion
    l0.call("write_file", path="../c.md", content="c")
    l0.call(
        "todo",
        items=items(
            ("1", "Write a.md", "completed"),
            ("2", "Write b.md", "completed"),
            ("3", "Write c.md", "completed"),
        ),
    )
    assert counts(l0)["false_todo_completions"] == 2


def test_rejected_updates_are_counted_and_change_nothing() -> None:
    driver = Driver("L1")
    try:
        driver.call("todo", items=PLAN)
        reply = driver.call("todo", items=items(("1", "Write index.md", "pending")))
        assert reply.startswith("ERROR:")
        found = counts(driver)
        assert (found["rejected_updates"], found["mutated_text"]) == (1, 0)
    finally:
        driver.close()


def test_false_completion_needs_a_claim_and_a_failed_check(l0: Driver) -> None:
    l0.ledger.end_reason = "claimed_done"
    l0.ledger.events.append(ClaimEvent(turn=1, blocked=False, state="0/3", done=0, total=3))
    assert counts(l0, FAIL)["false_completion"] == 1
    assert counts(l0, FAIL)["false_completion_past_gate"] == 0
    assert counts(l0, PASS)["false_completion"] == 0
    assert counts(l0, PASS)["task_success"] == 1
    l0.ledger.end_reason = "budget_exhausted"
    assert counts(l0, FAIL)["false_completion"] == 0
    assert counts(l0, FAIL)["budget_exhausted"] == 1


def test_false_completion_past_gate_when_every_subtask_was_ticked(l0: Driver) -> None:
    l0.ledger.end_reason = "claimed_done"
    l0.ledger.events.append(ClaimEvent(turn=3, blocked=False, state="3/3", done=3, total=3))
    assert counts(l0, FAIL)["false_completion_past_gate"] == 1


def test_fake_tool_calls_and_token_sums(l0: Driver) -> None:
    l0.ledger.events += [
        AssistantEvent(
            turn=1,
            text='{"name": "write_file", "arguments": {}}',
            tool_calls=0,
            todo_tool_calls=0,
            input_tokens=10,
            output_tokens=4,
        ),
        AssistantEvent(
            turn=2,
            text="I used write_file earlier.",
            tool_calls=0,
            todo_tool_calls=0,
            input_tokens=12,
            output_tokens=3,
            todo_output_tokens=1,
        ),
    ]
    found = counts(l0)
    assert found["fake_tool_calls"] == 1
    assert (found["turns"], found["input_tokens"], found["output_tokens"]) == (2, 22, 7)
    assert found["todo_output_tokens"] == 1
