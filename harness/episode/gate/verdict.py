"""The completion gate: refuses a claim of "done" while subtasks are pending or a call was faked."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from harness.episode import prompts
from harness.episode.ending import Ending
from harness.episode.gate.guard import looks_like_fake_call


@dataclass(frozen=True)
class Refusal:
    """Why the gate refused a final message, and what the agent is told."""

    reason: str
    reply: str


class GateState(Protocol):
    """What the gate asks a tracker: the oracle's (TaskStateTracker) or the deployable one's
    (harness.episode.gate.heuristic.HeuristicTracker)."""

    @property
    def pending(self) -> Sequence[object]: ...

    def summary(self) -> str: ...


def review(
    text: str, ending: Ending, tracker: GateState | None, tool_names: list[str]
) -> Refusal | None:
    """The gate's verdict on a final message; None lets it through.

    Only a claim of completion is gated: an agent that admits failure or asks the user a
    question is not pretending anything, so the gate lets it hand back.
    """
    if looks_like_fake_call(text, tool_names):
        return Refusal("fake_tool_call", prompts.FAKE_CALL_BLOCKED)
    if ending != "claimed_done":
        return None
    if tracker is None:  # the deployable gate before the agent wrote any plan
        return Refusal("no_plan", prompts.NO_PLAN_BLOCKED)
    if tracker.pending:
        return Refusal("subtasks_pending", prompts.GATE_BLOCKED.format(state=tracker.summary()))
    return None
