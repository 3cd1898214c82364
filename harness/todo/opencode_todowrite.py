"""opencode-todowrite: OpenCode's todowrite. The model sends the whole list of
`{content, status, priority}` with no ids, and it replaces the stored list; the product answers
with the list it stored, as JSON.

OpenCode takes any status string (its schema names pending, in_progress, completed and
cancelled). The design takes those four: a `cancelled` item is one the model took off the work,
so it leaves the list the harness holds (the product keeps showing it) and the detectors read
it as a removal — sanctioned where the user cancelled that subtask, a dropped item where not.
Any other status is refused here though the product took it: in a CLI episode that is an
episode error (`RecordMismatch`), never a silent difference."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pydantic import BaseModel

from harness.products.shipped.opencode import TODOWRITE
from harness.todo.base import STATUSES, TodoItem, TodoRejected, TodoStore
from harness.todo.cc_todowrite import field
from harness.todo.identity import assign_ids
from harness.todo.specs import ToolSpec

#: OpenCode's fourth status: the item stays in the product's list, off the work
CANCELLED = "cancelled"


class OpenCodeTodo(BaseModel):
    """One item as todowrite takes it."""

    content: str
    status: str
    priority: str


async def _todowrite(todos: list[OpenCodeTodo]) -> str:
    raise NotImplementedError


class OpenCodeTodoWriteStore(TodoStore):
    """No ids, no cap, no check against the stored list: the new list simply replaces it."""

    name: ClassVar[str] = "opencode-todowrite"
    PRODUCT: ClassVar[str] = "OpenCode todowrite"
    CAPPED: ClassVar[bool] = False  # the product has no cap

    @classmethod
    def tool_specs(cls) -> list[ToolSpec]:
        return [
            ToolSpec(
                TODOWRITE.tool,
                "Write your todo list for this session: send the complete list every time, each "
                "item with `content` (what to do), `status` (pending, in_progress or completed) "
                "and `priority` (high, medium or low). Keep one item in_progress while you work "
                "and mark an item completed as soon as it is done.",
                {"todos": "The complete, updated list."},
                _todowrite,
                lambda store, a: store.write_todos(a["todos"]),
                "rewrite",
            )
        ]

    def write_todos(self, raw: Any) -> str:
        if not isinstance(raw, list):
            raise TodoRejected("`todos` must be a list of {content, status, priority}.")
        rows = [
            (field(e, "content"), field(e, "status").lower(), field(e, "priority")) for e in raw
        ]
        for position, (content, status, _) in enumerate(rows, start=1):
            if not content:
                raise TodoRejected(f"Item {position}: content is required.")
            if status not in STATUSES and status != CANCELLED:
                raise TodoRejected(
                    f"Item {position}: status must be pending, in_progress, completed or cancelled."
                )
        work = [(content, status) for content, status, _ in rows if status != CANCELLED]
        ids, self._next_id = assign_ids(self.items, [c for c, _ in work], self._next_id)
        self.items = [
            TodoItem.model_validate({"id": i, "text": content, "status": status})
            for i, (content, status) in zip(ids, work, strict=True)
        ]
        # the product's answer: the list it stored
        stored = [{"content": c, "status": s, "priority": p} for c, s, p in rows]
        return json.dumps(stored, indent=2, ensure_ascii=False)
