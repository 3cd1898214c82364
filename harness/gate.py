"""The completion gate: refuses a claim of "done" while subtasks are pending or a call was faked."""

from __future__ import annotations

from dataclasses import dataclass

from harness import prompts
from harness.ending import Ending
from harness.guard import looks_like_fake_call
from harness.tracker import TaskStateTracker


@dataclass(frozen=True)
class Refusal:
    """Why the gate refused a final message, and what the agent is told."""

    reason: str
    reply: str


def review(
    text: str, ending: Ending, tracker: TaskStateTracker, tool_names: list[str]
) -> Refusal | None:
    """The gate's verdict on a final message; None lets it through.

    Only a claim of completion is gated: an agent that admits failure or asks the user a
    question is not pretending anything, so the gate lets it hand back.
    """
    if looks_like_fake_call(text, tool_names):
        return Refusal("fake_tool_call", prompts.FAKE_CALL_BLOCKED)
    if ending == "claimed_done" and tracker.pending:
        return Refusal("subtasks_pending", prompts.GATE_BLOCKED.format(state=tracker.summary()))
    return None
