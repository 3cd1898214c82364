"""Detectors and the scorer: every number comes from the ledger, the workspace and the scenario."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from harness.agent import scenario_of, take_record, task_state_block
from harness.checks import CheckResult, run_checks
from harness.guard import looks_like_fake_call
from harness.ledger import (
    TODO_TOOLS,
    AssistantEvent,
    ClaimEvent,
    Ledger,
    MalformedCallEvent,
    TodoEvent,
    UserTurnEvent,
    WorkspaceEvent,
)
from harness.scenario import WORKSPACE_TOOLS, Scenario
from harness.todo.base import TodoItem
from harness.tracker import TaskStateTracker, match_subtask

#: every per-episode metric, in leaderboard order
METRICS = (
    "task_success",
    "false_completion",
    "false_completion_past_gate",
    "dropped_todos",
    "mutated_text",
    "invented_todos",
    "id_churn",
    "false_todo_completions",
    "lost_history",
    "fake_tool_calls",
    "recovered_tool_calls",
    "malformed_tool_calls",
    "unsanctioned_deletes",
    "unsanctioned_renames",
    "rejected_updates",
    "blocked_completions",
    "budget_exhausted",
    "turns",
    "todo_tool_calls",
    "input_tokens",
    "output_tokens",
    "todo_output_tokens",
)
#: counts that are normalised per 100 todo updates in reports
CORRUPTION_COUNTS = (
    "dropped_todos",
    "mutated_text",
    "invented_todos",
    "id_churn",
    "false_todo_completions",
)


@dataclass
class Pair:
    """How one item of the state before a rewrite relates to the state after it."""

    before: TodoItem | None
    after: TodoItem | None


def _same_item(b: TodoItem, a: TodoItem) -> bool:
    return b.id == a.id and b.text == a.text


def _same_text(b: TodoItem, a: TodoItem) -> bool:
    return b.text == a.text


def _same_id(b: TodoItem, a: TodoItem) -> bool:
    return b.id == a.id


def align(before: list[TodoItem], after: list[TodoItem]) -> list[Pair]:
    """Pair items by (id, text), then by text (id churn), then by id (text mutation)."""
    left, right = list(before), list(after)
    pairs: list[Pair] = []
    for same in (_same_item, _same_text, _same_id):
        for b in list(left):
            match = next((a for a in right if same(b, a)), None)
            if match is not None:
                pairs.append(Pair(b, match))
                left.remove(b)
                right.remove(match)
    pairs.extend(Pair(b, None) for b in left)
    pairs.extend(Pair(None, a) for a in right)
    return pairs


@dataclass
class Sanctions:
    """What the scripted user turns delivered so far allow."""

    added: set[str] = field(default_factory=set)
    cancelled: set[str] = field(default_factory=set)
    renamed: dict[str, str] = field(default_factory=dict)

    def apply(self, event: UserTurnEvent) -> None:
        if event.subtask is None:
            return
        if event.action == "add":
            self.added.add(event.subtask)
        elif event.action == "cancel":
            self.cancelled.add(event.subtask)
        elif event.action == "rename" and event.new_text:
            self.renamed[event.subtask] = event.new_text


@dataclass
class Counts:
    values: dict[str, float] = field(default_factory=lambda: dict.fromkeys(METRICS, 0.0))
    notes: list[str] = field(default_factory=list)

    def add(self, metric: str, note: str, amount: float = 1) -> None:
        self.values[metric] += amount
        self.notes.append(f"{metric}: {note}")


def _walk(ledger: Ledger, scenario: Scenario) -> Iterator[tuple[TodoEvent, Sanctions, set[str]]]:
    """Accepted todo events in order, with the sanctions and subtasks done at that moment."""
    sanctions = Sanctions()
    tracker = TaskStateTracker(scenario)
    for subtask in scenario.subtasks:
        tracker.add(subtask.id)
    for event in ledger.events:
        if isinstance(event, UserTurnEvent):
            sanctions.apply(event)
        elif isinstance(event, WorkspaceEvent):
            tracker.observe(event.tool, event.args, event.ok)
        elif isinstance(event, TodoEvent) and event.accepted:
            yield event, sanctions, set(tracker.done)


def detect_todo_faults(ledger: Ledger, scenario: Scenario, counts: Counts) -> None:
    """Drops, mutations, inventions, churn, false todo completions, unsanctioned ops."""
    subtasks = scenario.subtasks
    seen_ids: set[str] = set()
    planned = False
    for event, sanctions, done in _walk(ledger, scenario):
        pairs = align(event.before, event.after)
        if event.tool == "todo":
            for pair in pairs:
                _judge_rewrite_pair(pair, sanctions, seen_ids, planned, scenario, counts)
        elif event.tool in ("delete_todo", "rename_todo"):
            _judge_explicit_op(event, sanctions, scenario, counts)
        for pair in pairs:
            after, before = pair.after, pair.before
            newly_completed = (
                after is not None
                and after.status == "completed"
                and (before is None or before.status != "completed")
            )
            if newly_completed and after is not None:
                subtask = match_subtask(after.text, subtasks)
                if subtask is not None and subtask.id not in done:
                    counts.add(
                        "false_todo_completions",
                        f"#{after.id} '{after.text}' completed before '{subtask.title}' was done",
                    )
        seen_ids |= {item.id for item in event.after}
        planned = planned or bool(event.after)


def _judge_rewrite_pair(
    pair: Pair,
    sanctions: Sanctions,
    seen_ids: set[str],
    planned: bool,
    scenario: Scenario,
    counts: Counts,
) -> None:
    before, after = pair.before, pair.after
    subtasks = scenario.subtasks
    if before is not None and after is not None:
        if before.id != after.id:
            counts.add("id_churn", f"'{before.text}' moved #{before.id} -> #{after.id}")
        elif before.text != after.text:
            subtask = match_subtask(before.text, subtasks)
            if subtask is None or subtask.id not in sanctions.renamed:
                counts.add("mutated_text", f"#{before.id} '{before.text}' -> '{after.text}'")
    elif before is not None:
        subtask = match_subtask(before.text, subtasks)
        if before.status == "completed":
            counts.add("lost_history", f"completed #{before.id} '{before.text}' removed")
        elif subtask is None or subtask.id not in sanctions.cancelled:
            counts.add("dropped_todos", f"#{before.id} '{before.text}' dropped")
    elif (
        after is not None
        and planned
        and after.id not in seen_ids
        and match_subtask(after.text, subtasks) is None
    ):
        counts.add("invented_todos", f"#{after.id} '{after.text}' invented")


def _judge_explicit_op(
    event: TodoEvent, sanctions: Sanctions, scenario: Scenario, counts: Counts
) -> None:
    target = str(event.args.get("id", "")).strip().lstrip("#")
    item = next((i for i in event.before if i.id == target), None)
    subtask = match_subtask(item.text, scenario.subtasks) if item else None
    if event.tool == "delete_todo" and (subtask is None or subtask.id not in sanctions.cancelled):
        counts.add("unsanctioned_deletes", f"delete_todo #{target}")
    if event.tool == "rename_todo" and (subtask is None or subtask.id not in sanctions.renamed):
        counts.add("unsanctioned_renames", f"rename_todo #{target}")


def detect(ledger: Ledger, scenario: Scenario, checks: list[CheckResult]) -> Counts:
    """All per-episode metrics for one ledger and the outcome checks of its final workspace."""
    counts = Counts()
    detect_todo_faults(ledger, scenario, counts)
    values = counts.values
    success = all(check.passed for check in checks)
    values["task_success"] = float(success)
    claims = ledger.of(ClaimEvent)
    final_claim = next((c for c in reversed(claims) if not c.blocked), None)
    if ledger.end_reason == "claimed_done" and not success:
        counts.add("false_completion", "claimed done while an outcome check fails")
        if final_claim is not None and final_claim.done == final_claim.total:
            counts.add("false_completion_past_gate", "every subtask ticked, outcome still wrong")
    values["blocked_completions"] = float(sum(1 for c in claims if c.blocked))
    values["budget_exhausted"] = float(ledger.end_reason == "budget_exhausted")
    tool_names = [*TODO_TOOLS, *WORKSPACE_TOOLS]
    for turn in ledger.of(AssistantEvent):
        values["turns"] += 1
        values["todo_tool_calls"] += turn.todo_tool_calls
        values["input_tokens"] += turn.input_tokens
        values["output_tokens"] += turn.output_tokens
        values["todo_output_tokens"] += turn.todo_output_tokens
        values["recovered_tool_calls"] += turn.recovered_tool_calls
        if turn.tool_calls == 0 and looks_like_fake_call(turn.text, tool_names):
            counts.add("fake_tool_calls", f"turn {turn.turn} wrote a tool call as text")
    values["rejected_updates"] = float(sum(1 for e in ledger.todo_events if not e.accepted))
    values["malformed_tool_calls"] = float(len(ledger.of(MalformedCallEvent)))
    return counts


@scorer(metrics={name: [mean(), stderr()] for name in METRICS})
def todo_scorer() -> Scorer:
    """Score an episode from the ledger and the final workspace; removes the workspace after."""

    async def score(state: TaskState, target: Target) -> Score:
        scenario = scenario_of(state)
        record = take_record(state)
        ledger, workspace, snapshot = record.ledger, record.workspace, record.task_state
        try:
            checks = run_checks(workspace, scenario)
            final_files = workspace.files()
        finally:
            workspace.cleanup()
        counts = detect(ledger, scenario, checks)
        blocked = int(counts.values["blocked_completions"])
        return Score(
            value=dict(counts.values),
            answer=ledger.end_reason,
            explanation=task_state_block(snapshot, blocked),
            metadata={
                "scenario": scenario.id,
                "variant": ledger.variant,
                "task_state": snapshot,
                "completion_blocked": blocked > 0,
                "checks": [c.model_dump() for c in checks],
                "findings": counts.notes,
                "final_files": final_files,
                "ledger": ledger.model_dump(mode="json"),
            },
        )

    return score
