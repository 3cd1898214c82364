"""cc-todowrite: Claude Code's TodoWrite. The model sends the whole list of
`{content, status, activeForm}` with no ids, and it replaces the stored list."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel

from harness.products.shipped.claude_code import TODOWRITE
from harness.todo.base import STATUSES, TodoItem, TodoRejected, TodoStore
from harness.todo.identity import assign_ids
from harness.todo.specs import ToolSpec


class ClaudeTodo(BaseModel):
    """One item as TodoWrite takes it."""

    content: str
    status: Literal["pending", "in_progress", "completed"]
    activeForm: str  # noqa: N815 - the product's own field name


async def _todo_write(todos: list[ClaudeTodo]) -> str:
    raise NotImplementedError


def field(entry: Any, name: str) -> str:
    """A field of a list entry, whether inspect passed a model or a dict."""
    value = entry.get(name) if isinstance(entry, dict) else getattr(entry, name, None)
    return "" if value is None else str(value).strip()


class ClaudeTodoWriteStore(TodoStore):
    """No ids, no cap, no check against the stored list: the new list simply replaces it."""

    name: ClassVar[str] = "cc-todowrite"
    PRODUCT: ClassVar[str] = "Claude Code TodoWrite"
    CAPPED: ClassVar[bool] = False  # the product has no cap

    @classmethod
    def tool_specs(cls) -> list[ToolSpec]:
        return [
            ToolSpec(
                TODOWRITE.tool,
                "Write your task list for this session: send the complete list every time, each "
                "item with `content` (what to do), `status` (pending, in_progress or completed) "
                "and `activeForm` (the same step phrased as ongoing work). Keep exactly one item "
                "in_progress while you work, and mark an item completed as soon as it is done.",
                {"todos": "The complete, updated list."},
                _todo_write,
                lambda store, a: store.write_todos(a["todos"]),
                "rewrite",
            )
        ]

    def write_todos(self, raw: Any) -> str:
        if not isinstance(raw, list):
            raise TodoRejected("`todos` must be a list of {content, status, activeForm}.")
        texts, statuses = [], []
        for position, entry in enumerate(raw, start=1):
            content, status = field(entry, "content"), field(entry, "status").lower()
            if not content or not field(entry, "activeForm"):
                raise TodoRejected(f"Item {position}: content and activeForm are required.")
            if status not in STATUSES:
                raise TodoRejected(
                    f"Item {position}: status must be pending, in_progress or completed."
                )
            texts.append(content)
            statuses.append(status)
        ids, self._next_id = assign_ids(self.items, texts, self._next_id)
        self.items = [
            TodoItem.model_validate({"id": i, "text": t, "status": s})
            for i, t, s in zip(ids, texts, statuses, strict=True)
        ]
        return "Todo list updated. Keep it current and carry on with the task in progress."
