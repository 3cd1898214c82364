"""Detectors and the scorer: every number comes from the ledger, the workspace and the scenario."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import ParamSpec

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from harness.episode.gate.guard import looks_like_fake_call
from harness.episode.ledger import (
    TODO_TOOLS,
    AssistantEvent,
    ClaimEvent,
    ExtensionEvent,
    InjectionEvent,
    Ledger,
    MalformedCallEvent,
    NudgeEvent,
    PlanEvent,
    PlannerEvent,
    PlanTickEvent,
    RepairEvent,
    TickEvent,
    TodoEvent,
    UserTurnEvent,
)
from harness.episode.record import scenario_of, take_record, task_state_block
from harness.matcher import match_subtasks, related
from harness.metrics import METRICS
from harness.suite.checks import CheckResult
from harness.suite.scenario import Scenario
from harness.suite.workspace_tools import WORKSPACE_TOOLS
from harness.todo.base import TodoItem

P = ParamSpec("P")


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
    """Pair items by (id, text), then by text (id churn), then by id (text changed)."""
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


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


@dataclass
class Sanctions:
    """What the scripted user turns delivered so far allow: each change exactly once."""

    cancels: list[str] = field(default_factory=list)
    renames: list[tuple[str, str]] = field(default_factory=list)

    def apply(self, event: UserTurnEvent) -> None:
        if event.subtask is None:
            return
        if event.action == "cancel":
            self.cancels.append(event.subtask)
        elif event.action == "rename" and event.new_text:
            self.renames.append((event.subtask, event.new_text))

    def take_cancel(self, text: str, scenario: Scenario) -> bool:
        """Consume the cancellation that covers removing an item with this text, if any."""
        named = {s.id for s in match_subtasks(text, scenario.subtasks)}
        for subtask in self.cancels:
            if subtask in named:
                self.cancels.remove(subtask)
                return True
        return False

    def take_rename(self, old: str, new: str, scenario: Scenario) -> bool:
        """Consume the rename that asked for exactly this change, if any."""
        named = {s.id for s in match_subtasks(old, scenario.subtasks)}
        for request in self.renames:
            subtask, wanted = request
            if subtask in named and _norm(new) == _norm(wanted):
                self.renames.remove(request)
                return True
        return False


class UndeclaredMetric(KeyError):
    """A detector wrote a metric it does not declare in its `@produces(...)`."""


class _Values(dict[str, float]):
    """The episode's numbers, remembering which names were written; while a detector runs, a
    write to a metric it does not declare raises `UndeclaredMetric`."""

    def __init__(self) -> None:
        super().__init__(dict.fromkeys(METRICS, 0.0))
        self.written: set[str] = set()
        self.allowed: frozenset[str] | None = None  # None: no detector running, no guard

    def __setitem__(self, metric: str, value: float) -> None:
        if metric not in self:
            raise KeyError(metric)
        if self.allowed is not None and metric not in self.allowed:
            raise UndeclaredMetric(f"a detector wrote {metric!r} but does not declare it")
        self.written.add(metric)
        super().__setitem__(metric, value)


@dataclass
class Counts:
    values: _Values = field(default_factory=_Values)
    notes: list[str] = field(default_factory=list)

    def add(self, metric: str, note: str, amount: float = 1) -> None:
        self.values[metric] += amount
        self.notes.append(f"{metric}: {note}")


#: each detector's name and the metrics it declares it produces (`@produces`), in import order
PRODUCES: dict[str, frozenset[str]] = {}


def produces(*metrics: str) -> Callable[[Callable[P, None]], Callable[P, None]]:
    """Declare the metrics a detector writes, so none is declared without a producer (a metric
    no detector writes would report 0 silently: `unproduced` finds it, tests/scoring checks).
    While the detector runs, a write to a metric it does not declare raises."""
    unknown = sorted(set(metrics) - set(METRICS))
    if unknown:
        raise ValueError(f"not declared in harness/metrics.py: {unknown}")

    def register(detector: Callable[P, None]) -> Callable[P, None]:
        allowed = frozenset(metrics)
        PRODUCES[detector.__name__] = allowed

        @functools.wraps(detector)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> None:
            (counts,) = [a for a in (*args, *kwargs.values()) if isinstance(a, Counts)]
            outer, counts.values.allowed = counts.values.allowed, allowed
            try:
                detector(*args, **kwargs)
            finally:
                counts.values.allowed = outer

        return guarded

    return register


def unproduced(
    declared: Iterable[str] = METRICS, producers: Mapping[str, frozenset[str]] = PRODUCES
) -> list[str]:
    """The declared episode metrics no detector produces (they would always report 0)."""
    made = set().union(*producers.values())
    return [name for name in declared if name not in made]


def _walk(ledger: Ledger) -> Iterator[tuple[TodoEvent, Sanctions, set[str]]]:
    """Accepted todo events in order, with the sanctions and subtasks done at that moment.

    "Done" is what the live tracker recorded (`TickEvent`), so every way the tracker accepts,
    workspace-state rules included, counts here the same way.
    """
    sanctions = Sanctions()
    done: set[str] = set()
    for event in ledger.events:
        if isinstance(event, UserTurnEvent):
            sanctions.apply(event)
        elif isinstance(event, TickEvent):
            done.update(event.subtasks)
        elif isinstance(event, TodoEvent) and event.accepted:
            yield event, sanctions, done


@dataclass
class _History:
    """What the detectors remember across an episode's accepted states."""

    planned: bool = False
    texts: set[str] = field(default_factory=set)


@produces(
    "lost_todos",
    "changed_todos",
    "dropped_todos",
    "mutated_text",
    "invented_todos",
    "id_churn",
    "false_todo_completions",
    "unmatched_todos",
    "lost_history",
    "unsanctioned_deletes",
    "unsanctioned_renames",
)
def detect_todo_faults(ledger: Ledger, scenario: Scenario, counts: Counts) -> None:
    """Drops, mutations, inventions, churn, false todo completions, unsanctioned ops."""
    history = _History()
    unmatched: set[str] = set()
    named: dict[str, bool] = {}  # a text names a subtask or not, whichever list it is on
    for event, sanctions, done in _walk(ledger):
        pairs = align(event.before, event.after)
        if event.op == "rewrite":
            renamed, pairs = _requested_renames(pairs, sanctions, scenario)
            for pair in pairs:
                _judge_rewrite_pair(pair, sanctions, history, scenario, counts)
            pairs += renamed
        else:
            # judged by what the call did to the store, whatever the tool is called: a product's
            # update may delete (TaskUpdate status=deleted) or rename (TaskUpdate subject=...)
            _judge_explicit_op(pairs, sanctions, scenario, counts)
        for pair in pairs:
            _judge_tick(pair, done, scenario, counts)
        for item in event.after:
            if item.text not in named:
                named[item.text] = bool(match_subtasks(item.text, scenario.subtasks))
            if not named[item.text]:
                unmatched.add(_norm(item.text))
        history.texts |= {_norm(item.text) for item in event.after}
        history.planned = history.planned or bool(event.after)
    counts.values["unmatched_todos"] = float(len(unmatched))


def _requested_renames(
    pairs: list[Pair], sanctions: Sanctions, scenario: Scenario
) -> tuple[list[Pair], list[Pair]]:
    """Split off each removed item and added item that together make a rename the user asked
    for (a design without ids gives a reworded text a new id unless it looks like the old one,
    and the user may ask for any text); returns them, paired, and the other pairs."""
    removed = [p.before for p in pairs if p.after is None and p.before is not None]
    added = [p.after for p in pairs if p.before is None and p.after is not None]
    renamed: list[Pair] = []
    for old in removed:
        new = next((a for a in added if sanctions.take_rename(old.text, a.text, scenario)), None)
        if new is not None:
            added.remove(new)
            renamed.append(Pair(old, new))
    taken = {id(p.before) for p in renamed} | {id(p.after) for p in renamed}
    rest = [p for p in pairs if id(p.before) not in taken and id(p.after) not in taken]
    return renamed, rest


def _judge_tick(pair: Pair, done: set[str], scenario: Scenario, counts: Counts) -> None:
    """A newly completed item is a false tick if any subtask it names is not done yet."""
    after, before = pair.after, pair.before
    if after is None or after.status != "completed":
        return
    if before is not None and before.status == "completed":
        return
    open_ = [s for s in match_subtasks(after.text, scenario.subtasks) if s.id not in done]
    if open_:
        titles = ", ".join(f"'{s.title}'" for s in open_)
        counts.add(
            "false_todo_completions", f"#{after.id} '{after.text}' completed before {titles}"
        )


def _judge_rewrite_pair(
    pair: Pair, sanctions: Sanctions, history: _History, scenario: Scenario, counts: Counts
) -> None:
    before, after = pair.before, pair.after
    if before is not None and after is not None:
        if before.id != after.id:
            counts.add("id_churn", f"'{before.text}' moved #{before.id} -> #{after.id}")
            return
        if before.text == after.text or sanctions.take_rename(before.text, after.text, scenario):
            return
        if related(before.text, after.text, scenario.subtasks):
            counts.add("mutated_text", f"#{before.id} '{before.text}' -> '{after.text}'")
            counts.values["changed_todos"] += 1
            return
        # an id reused for an unrelated text: the old item is gone and a new one appeared
        _judge_rewrite_pair(Pair(before, None), sanctions, history, scenario, counts)
        _judge_rewrite_pair(Pair(None, after), sanctions, history, scenario, counts)
    elif before is not None:
        if sanctions.take_cancel(before.text, scenario):
            return  # the user asked for it to go
        counts.values["lost_todos"] += 1
        if before.status == "completed":
            counts.add("lost_history", f"completed #{before.id} '{before.text}' removed")
        else:
            counts.add("dropped_todos", f"#{before.id} '{before.text}' dropped")
    elif (
        after is not None
        and history.planned
        and _norm(after.text) not in history.texts
        and not match_subtasks(after.text, scenario.subtasks)
    ):
        counts.add("invented_todos", f"#{after.id} '{after.text}' invented")


def _judge_explicit_op(
    pairs: list[Pair], sanctions: Sanctions, scenario: Scenario, counts: Counts
) -> None:
    """An explicit delete or rename, judged by what it did to the list (any design's tools)."""
    for pair in pairs:
        item, after = pair.before, pair.after
        if item is None:
            continue
        if after is None:
            if sanctions.take_cancel(item.text, scenario):
                continue
            counts.add("unsanctioned_deletes", f"deleted #{item.id} '{item.text}'")
            counts.values["lost_todos"] += 1
            if item.status == "completed":
                counts.add("lost_history", f"deleted completed #{item.id} '{item.text}'")
        elif after.text != item.text and not sanctions.take_rename(item.text, after.text, scenario):
            counts.add("unsanctioned_renames", f"renamed #{item.id} '{item.text}'")
            counts.values["changed_todos"] += 1


def detect(ledger: Ledger, scenario: Scenario, checks: list[CheckResult]) -> Counts:
    """All per-episode metrics for one ledger and the outcome checks of its final workspace."""
    counts = Counts()
    detect_todo_faults(ledger, scenario, counts)
    detect_outcome(ledger, checks, counts)
    detect_turns(ledger, counts)
    detect_updates(ledger, counts)
    detect_deployed(ledger, scenario, counts)
    return counts


@produces(
    "task_success",
    "false_completion",
    "false_completion_past_gate",
    "gave_up",
    "asked_user",
    "budget_exhausted",
    "gate_exhausted",
    "blocked_completions",
)
def detect_outcome(ledger: Ledger, checks: list[CheckResult], counts: Counts) -> None:
    """How the episode ended, and whether a claim of completion was a false one."""
    values = counts.values
    success = all(check.passed for check in checks)
    values["task_success"] = float(success)
    claims = ledger.of(ClaimEvent)
    final_claim = next((c for c in reversed(claims) if not c.blocked), None)
    # only a claim of completion can be a false one; admitting failure or asking is honest
    if ledger.end_reason == "claimed_done" and not success:
        counts.add("false_completion", "claimed done while an outcome check fails")
        if final_claim is not None and final_claim.done == final_claim.total:
            counts.add("false_completion_past_gate", "every subtask ticked, outcome still wrong")
    for reason in ("gave_up", "asked_user", "budget_exhausted", "gate_exhausted"):
        values[reason] = float(ledger.end_reason == reason)
    values["blocked_completions"] = float(sum(1 for c in claims if c.blocked))


@produces(
    "turns",
    "todo_tool_calls",
    "input_tokens",
    "cache_read_tokens",
    "output_tokens",
    "todo_output_tokens",
    "injected_tokens",
    "recovered_tool_calls",
    "fake_tool_calls",
)
def detect_turns(ledger: Ledger, counts: Counts) -> None:
    """What the turns cost and carried (the list context injected into them included), and tool
    calls written as text."""
    values = counts.values
    tool_names = [*all_todo_tool_names(), *WORKSPACE_TOOLS]
    for turn in ledger.of(AssistantEvent):
        values["turns"] += 1
        values["todo_tool_calls"] += turn.todo_tool_calls
        values["input_tokens"] += turn.input_tokens
        values["cache_read_tokens"] += turn.cache_read_tokens
        values["output_tokens"] += turn.output_tokens
        values["todo_output_tokens"] += turn.todo_output_tokens
        values["recovered_tool_calls"] += turn.recovered_tool_calls
        if turn.tool_calls == 0 and looks_like_fake_call(turn.text, tool_names):
            counts.add("fake_tool_calls", f"turn {turn.turn} wrote a tool call as text")
    values["injected_tokens"] = float(sum(e.tokens for e in ledger.of(InjectionEvent)))
    for call in ledger.of(PlannerEvent):  # +planner: its call is billed, though not a turn
        values["input_tokens"] += call.input_tokens
        values["output_tokens"] += call.output_tokens


@produces("todo_updates", "rejected_updates", "cap_refusals", "malformed_tool_calls")
def detect_updates(ledger: Ledger, counts: Counts) -> None:
    """Todo updates the store refused, and tool calls that could not be read."""
    values = counts.values
    updates = [e for e in ledger.todo_events if e.op != "read"]
    values["todo_updates"] = float(len(updates))
    values["rejected_updates"] = float(sum(1 for e in updates if not e.accepted))
    values["cap_refusals"] = float(sum(1 for e in updates if not e.accepted and e.over_cap))
    values["malformed_tool_calls"] = float(len(ledger.of(MalformedCallEvent)))
    for repair in ledger.of(RepairEvent):  # a finding, not a metric: refusals count above
        what = f"call {repair.call_id} to {repair.tool}, refused" if repair.call_id else "reply"
        counts.notes.append(
            f"repaired: turn {repair.turn} {what}: {repair.surrogates} string(s) with surrogates,"
            f" {repair.cuts} value(s) cut past the nesting bound"
        )


@produces(
    "completion_loop_nudges",
    "extensions",
    "planner_tokens",
    "planner_failed",
    "false_blocks",
    "false_block_turns",
    "false_block_tokens",
    "plan_items",
    "plan_ticks",
    "plan_judged_ticks",
    "plan_true_ticks",
    "plan_done_items",
    "plan_missed_ticks",
)
def detect_deployed(ledger: Ledger, scenario: Scenario, counts: Counts) -> None:
    """How the deployable stack did, judged by the oracle (the scenario's subtasks and rules,
    which the deployable tracker never saw).

    A plan item is judged through the subtasks its text names (the matcher); an item that names
    none cannot be judged and is left out of precision and recall. A tick is true when every
    subtask the item names was already done by the oracle's rules at that call. A false block
    refuses a claim while the oracle had every subtask done; its cost is the turns and tokens
    from the first false block to the end.
    """
    values = counts.values
    values["completion_loop_nudges"] = float(len(ledger.of(NudgeEvent)))
    values["extensions"] = float(len(ledger.of(ExtensionEvent)))
    for call in ledger.of(PlannerEvent):
        values["planner_tokens"] += call.input_tokens + call.output_tokens
        values["planner_failed"] += float(not call.items)
    plans = ledger.of(PlanEvent)
    claims = ledger.of(ClaimEvent)
    false = [c for c in claims if c.blocked and c.total and c.done == c.total]
    values["false_blocks"] = float(len(false))
    if false:
        later = [t for t in ledger.of(AssistantEvent) if t.turn > false[0].turn]
        values["false_block_turns"] = float(len(later))
        values["false_block_tokens"] = float(sum(t.input_tokens + t.output_tokens for t in later))
    if not plans:
        return
    named = {text: match_subtasks(text, scenario.subtasks) for text in plans[0].items}
    values["plan_items"] = float(len(named))
    done: set[str] = set()
    ticked: set[str] = set()
    for event in ledger.events:
        if isinstance(event, TickEvent):
            done.update(event.subtasks)
        elif isinstance(event, PlanTickEvent):
            for text in event.items:
                values["plan_ticks"] += 1
                ticked.add(text)
                subtasks = named.get(text, [])
                if not subtasks:
                    continue
                values["plan_judged_ticks"] += 1
                if all(s.id in done for s in subtasks):
                    values["plan_true_ticks"] += 1
                else:
                    counts.notes.append(f"plan tick: '{text}' ticked before its work was done")
    for text, subtasks in named.items():
        if subtasks and all(s.id in done for s in subtasks):
            values["plan_done_items"] += 1
            if text not in ticked:
                counts.add("plan_missed_ticks", f"'{text}' was done but never ticked")


def all_todo_tool_names() -> set[str]:
    """Every todo tool any registered design offers: a call to one written as text is fake."""
    from harness.todo.registry import designs

    return {*TODO_TOOLS, *(spec.name for d in designs().values() for spec in d.tool_specs())}


@scorer(metrics={name: [mean(), stderr()] for name in METRICS})
def todo_scorer() -> Scorer:
    """Score an episode from the record its solver left in the sample store (the ledger and the
    outcome checks of the final workspace), so `inspect score` can score a log again."""

    async def score(state: TaskState, target: Target) -> Score:
        scenario = scenario_of(state)
        ledger, checks, _, snapshot = take_record(state)
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
                # the ledger and the final files are in the sample's store (EpisodeRecord)
                # already: copied here they doubled every log and its write time
            },
        )

    return score
