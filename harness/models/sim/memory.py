"""What the simulated agent carries through an episode and what one of its turns decides."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.models.sim.billing import PromptMeter
from harness.suite.scenario import Scenario
from harness.todo.base import TodoItem

Call = tuple[str, dict[str, Any]]


@dataclass
class Fault:
    """One injected fault and the metric it should show up in if it reaches the store."""

    kind: str
    metric: str | None
    call: int | None  # index of the tool call in the message; None for text-only turns
    detail: str

    def dump(self) -> dict[str, Any]:
        return {"kind": self.kind, "metric": self.metric, "call": self.call, "detail": self.detail}


@dataclass
class Decision:
    text: str = ""
    calls: list[Call] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    step: int | None = None  # reference step the workspace call performs
    step_call: int | None = None  # index of that call in `calls` (None: the first)


@dataclass
class Memory:
    """What one simulated agent carries through one episode."""

    scenario: Scenario
    calls: int = 0
    planned: bool = False
    seen: list[TodoItem] | None = None  # the last list it saw
    #: bookkeeping only (the fault record, never a decision): the store as the agent's own
    #: calls left it, kept even when compaction hides their results, and what a refused call
    #: would undo
    store: list[TodoItem] | None = None
    undo: dict[str, list[TodoItem] | TodoItem] = field(default_factory=dict)
    corrupted_steps: set[int] = field(default_factory=set)  # bookkeeping: wrong results
    #: bookkeeping: a write with faults (which a design may refuse) whose result the agent has
    #: not seen yet; when compaction hides that result, the store view above is a guess
    unconfirmed: bool = False
    staleness: int = 0
    lost: bool = False  # compaction removed the list from view
    forgotten: set[str] = field(default_factory=set)  # item ids lost to compaction
    steps_done: set[int] = field(default_factory=set)
    work_done: set[str] = field(default_factory=set)
    verified: set[str] = field(default_factory=set)  # bookkeeping only: steps ran exactly and ok
    verified_steps: set[int] = field(default_factory=set)
    exact_steps: set[int] = field(default_factory=set)
    history_seen: int = 0  # length of the history at the last turn
    early: set[str] = field(default_factory=set)
    forced: set[str] = field(default_factory=set)
    exact_args: set[str] = field(default_factory=set)
    added: list[str] = field(default_factory=list)
    cancelled: set[str] = field(default_factory=set)
    renamed: dict[str, str] = field(default_factory=dict)
    user_ops: list[tuple[str, str]] = field(default_factory=list)
    undo_queue: list[int] = field(default_factory=list)  # reference steps reverting cancelled work
    sent: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)  # product calls
    inflight: dict[str, int] = field(default_factory=dict)  # call id -> reference step
    #: the ids of the calls of its last turn, whose answers it has not seen yet
    awaiting: set[str] = field(default_factory=set)
    reminded: bool = False
    repair_now: bool = False
    #: the repair answers a refusal that showed the current list: it copies that list
    careful: bool = False
    nudged: bool = False
    max_id: int = 0
    intended: dict[str, str] = field(default_factory=dict)  # id sent -> id meant (wrong-id slips)
    covers: dict[str, list[str]] = field(default_factory=dict)  # own plan text -> subtask ids
    omitted: set[str] = field(default_factory=set)  # subtasks done without a todo item
    cap: int | None = None  # the list's item limit, once a refusal has named it
    #: a rewrite's new item was refused with "use add_todo": new items go through that tool
    adds_by_tool: bool = False
    #: bookkeeping only: what billing this conversation has measured already
    meter: PromptMeter = field(default_factory=PromptMeter)


def then(first: Decision, second: Decision) -> Decision:
    """Both decisions' calls in one assistant turn (a text-only turn stands alone)."""
    if not first.calls:
        return second
    if not second.calls:
        return first
    offset = len(first.calls)
    shifted = [
        Fault(f.kind, f.metric, None if f.call is None else f.call + offset, f.detail)
        for f in second.faults
    ]
    return Decision(
        calls=[*first.calls, *second.calls],
        faults=[*first.faults, *shifted],
        step=second.step,
        step_call=(second.step_call or 0) + offset,
    )
