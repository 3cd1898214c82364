"""What a product's own session record is read into.

- For the audit: its todo lists, the user's messages, the compactions and the task tools'
  troubles, in order (`Event`). Each product's parser produces these; the audit, the field fit
  and the replay read them.
- For a benchmark episode: its tool calls, call by call, with the product's answers
  (`CallRecord`). The agents' runner replays the todo calls through the harness's design and
  cross-checks them against what the bridge saw.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel


class Item(BaseModel):
    """One todo as a session's tool call stated it. `key` is the product's id where it has one."""

    key: str | None = None
    text: str
    status: str


class TodoState(BaseModel):
    """The whole list after one todo call (formats with single-item ops are replayed into it)."""

    kind: Literal["state"] = "state"
    items: list[Item]
    tool: str
    keyed: bool = False  # items are identified by `key`, not by text
    calls: int = 1  # todo calls this state stands for (a burst of creates is one update)


#: Task-tool calls the replay reports apart: an id the product said does not exist, an update to
#: a task this log never created (made before it, or by a teammate), a call the product answered
#: with another error (it changed nothing), and a call whose answer is not in the log
TASK_ISSUES = ("task_not_found", "unknown_task", "call_failed", "no_result")
TaskIssueKind = Literal["task_not_found", "unknown_task", "call_failed", "no_result"]


class TaskIssue(BaseModel):
    """A Task-tool call the replay could not apply as made, counted apart from the categories."""

    kind: Literal["task_issue"] = "task_issue"
    issue: TaskIssueKind
    key: str
    calls: int = 1  # todo calls it stands for (0: the call is counted with its state)


class UserMessage(BaseModel):
    kind: Literal["user"] = "user"
    text: str


class Compaction(BaseModel):
    kind: Literal["compaction"] = "compaction"


class Note(BaseModel):
    """Something the reader left out or could not read, reported with the session."""

    kind: Literal["note"] = "note"
    text: str


Event = TodoState | UserMessage | Compaction | TaskIssue | Note


class CallRecord(BaseModel):
    """One tool call as the product recorded it."""

    id: str
    tool: str
    args: dict[str, Any]
    #: the product's answer; None if the record holds no answer (the call never returned)
    result: str | None = None
    #: the product marked the answer as an error
    error: bool = False
    #: the product refused the call in an answer it does not mark as an error (Claude Code's
    #: Task tools' plain "Task not found")
    refused_unmarked: bool = False

    @property
    def refused(self) -> bool:
        """The product refused the call: it changed nothing."""
        return self.error or self.refused_unmarked
