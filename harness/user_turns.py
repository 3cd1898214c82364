"""Scripted user turns: delivered after their turn, or earlier when the agent yields to the user."""

from __future__ import annotations

from harness.ledger import UserTurnEvent
from harness.scenario import UserTurn
from harness.tracker import TaskStateTracker


class UserScript:
    """The scripted user's pending messages, in order; none is ever skipped."""

    def __init__(self, turns: list[UserTurn]) -> None:
        self.pending: list[UserTurn] = sorted(turns, key=lambda t: t.after_turn)

    def due(self, turn: int) -> list[UserTurn]:
        """Turns scheduled after model turn `turn` or earlier, taken off the script."""
        ready = [t for t in self.pending if t.after_turn <= turn]
        self.pending = self.pending[len(ready) :]
        return ready

    def on_yield(self) -> list[UserTurn]:
        """The agent stopped and handed back to the user: the user speaks next, early if needed."""
        if not self.pending:
            return []
        return [self.pending.pop(0)]


def apply(turn: UserTurn, at_turn: int, tracker: TaskStateTracker) -> UserTurnEvent:
    """What a delivered user turn changes in the tracker, and its ledger record."""
    if turn.action == "add" and turn.subtask:
        tracker.add(turn.subtask)
    elif turn.action == "cancel" and turn.subtask:
        tracker.cancel(turn.subtask)
    return UserTurnEvent(
        turn=at_turn, action=turn.action, subtask=turn.subtask, new_text=turn.new_text
    )
