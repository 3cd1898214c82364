"""inspect-todo_write: inspect-ai's own `todo_write` tool, exactly as the library ships it (its
name, description and schema), as a framework user gets it by default. The library keeps no
state; the harness stores what was written, by text identity, so the detectors can see it."""

from __future__ import annotations

from typing import Any, ClassVar

from inspect_ai.tool import ToolDef, todo_write

from harness.products.list_backend import entry_field
from harness.products.product import ListDialect
from harness.todo.base import STATUSES, TodoItem, TodoRejected, TodoStore
from harness.todo.identity import assign_ids
from harness.todo.specs import ToolSpec

_SHIPPED = ToolDef(todo_write())
#: its dialect, as the simulated agent writes it
DIALECT = ListDialect(tool=_SHIPPED.name, key="todos", text="content")


class InspectTodoWriteStore(TodoStore):
    """Whatever list arrives replaces the last one; the tool answers as the library does."""

    name: ClassVar[str] = "inspect-todo_write"
    PRODUCT: ClassVar[str] = "inspect-ai todo_write"
    CAPPED: ClassVar[bool] = False  # the product has no cap

    @classmethod
    def tool_specs(cls) -> list[ToolSpec]:
        params = {
            name: str(schema.description or "")
            for name, schema in _SHIPPED.parameters.properties.items()
        }
        return [
            ToolSpec(
                _SHIPPED.name,
                _SHIPPED.description,
                params,
                _SHIPPED.tool,  # the library's own function: its signature is the schema
                lambda store, a: store.write_steps(a["todos"]),
                "rewrite",
            )
        ]

    def write_steps(self, raw: Any) -> str:
        if not isinstance(raw, list):
            raise TodoRejected("`todos` must be a list of {content, status}.")
        steps = [(entry_field(e, "content"), entry_field(e, "status").lower()) for e in raw]
        if any(status not in STATUSES for _, status in steps):
            raise TodoRejected("status must be one of: pending, in_progress, completed.")
        ids, self._next_id = assign_ids(self.items, [c for c, _ in steps], self._next_id)
        self.items = [
            TodoItem.model_validate({"id": i, "text": content, "status": status})
            for i, (content, status) in zip(ids, steps, strict=True)
        ]
        return "Todo list updated"  # the library's own answer
