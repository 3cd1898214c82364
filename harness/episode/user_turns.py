"""Scripted user turns: delivered after their turn, or earlier when the agent yields to the user."""

from __future__ import annotations

from harness.episode.ledger import UserTurnEvent
from harness.suite.scenario import UserTurn
from harness.suite.tracker import TaskStateTracker


class UserScript:
    """The scripted user's pending messages, in the scenario's order; none is ever skipped."""

    def __init__(self, turns: list[UserTurn]) -> None:
        self.pending: list[UserTurn] = list(turns)

    def due(self, turn: int, done: set[str], called: set[str]) -> list[UserTurn]:
        """Turns whose moment has come after model turn `turn`, taken off the script.

        `done` holds the subtasks ticked so far, `called` the tools that have succeeded.
        """
        ready = [t for t in self.pending if _ready(t, turn, done, called)]
        self.pending = [t for t in self.pending if t not in ready]
        return ready

    def on_yield(self) -> list[UserTurn]:
        """The agent stopped and handed back to the user: the user speaks next, early if needed."""
        if not self.pending:
            return []
        return [self.pending.pop(0)]


def _ready(turn: UserTurn, now: int, done: set[str], called: set[str]) -> bool:
    if turn.after_turn is not None:
        return turn.after_turn <= now
    assert turn.when is not None
    if turn.when.subtask_done is not None:
        return turn.when.subtask_done in done
    return turn.when.tool_called in called


def apply(turn: UserTurn, at_turn: int, tracker: TaskStateTracker) -> UserTurnEvent:
    """What a delivered user turn changes in the tracker, and its ledger record."""
    if turn.action == "add" and turn.subtask:
        tracker.add(turn.subtask)
    elif turn.action == "cancel" and turn.subtask:
        tracker.cancel(turn.subtask, turn.undo)
    return UserTurnEvent(
        turn=at_turn, action=turn.action, subtask=turn.subtask, new_text=turn.new_text
    )
