"""The shapes of an audit: what a session log is read into, and what the audit reports."""

from __future__ import annotations

from pydantic import BaseModel, Field

#: transition categories, in report order
CATEGORIES = (
    "dropped",
    "reworded",
    "completed_removed",
    "status_regressions",
    "added",
)


class Change(BaseModel):
    """One finding in a transition between two consecutive lists."""

    category: str
    text: str
    detail: str = ""


class Transition(BaseModel):
    """Two consecutive todo calls of a session and what changed between them."""

    index: int
    call: int = 0  # the session's todo call (0-based, reads included) that made the list after
    #: the list before: its length and how many items were unfinished (rates' denominators)
    before_items: int = 0
    before_unfinished: int = 0
    changes: list[Change] = Field(default_factory=list)
    sanctioned: bool = False  # a user message came between the two calls
    reset: bool = False  # the user gave a new task and the list was replaced whole
    after_compaction: bool = False
    no_op: bool = False  # the same list sent again
    keyed: bool = False  # id-based lists (Task tools), else full-list rewrites


class SessionAudit(BaseModel):
    """One session's list integrity."""

    path: str
    format: str
    session: str
    todo_calls: int = 0
    #: todo calls per tool (a Task call the replay reports apart counts under its issue)
    calls_by_tool: dict[str, int] = Field(default_factory=dict)
    transitions: list[Transition] = Field(default_factory=list)
    #: per category "<category>_unsanctioned", "<category>_sanctioned" and "<category>_total",
    #: then the Task-tool issues ("task_not_found", "unknown_task")
    counts: dict[str, int] = Field(default_factory=dict)
    no_ops: int = 0
    after_compaction: int = 0
    #: what the reader left out (a cut-off last line, ...)
    notes: list[str] = Field(default_factory=list)
    error: str | None = None


class AuditReport(BaseModel):
    """Every session audited in one run, and the totals."""

    sessions: list[SessionAudit]
    totals: dict[str, int]
