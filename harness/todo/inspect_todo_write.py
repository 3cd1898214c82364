"""inspect-todo_write: inspect-ai's own `todo_write` tool, exactly as the library ships it (its
name, description and schema), as a framework user gets it by default. The library keeps no
state; the harness stores what was written, by text identity, so the detectors can see it."""

from __future__ import annotations

from typing import Any, ClassVar

from inspect_ai.tool import ToolDef, todo_write

from harness.products.list_backend import ListBackend, Refused, Taken, entry_field
from harness.products.product import ListDialect
from harness.todo.base import STATUSES
from harness.todo.full_list import FullListStore

_SHIPPED = ToolDef(todo_write())
#: its dialect, as the simulated agent writes it
DIALECT = ListDialect(tool=_SHIPPED.name, key="todos", text="content")


def _take(params: dict[str, Any]) -> Taken:
    raw = params[DIALECT.key]
    if not isinstance(raw, list):
        raise Refused("`todos` must be a list of {content, status}.")
    steps = [(entry_field(e, "content"), entry_field(e, "status").lower()) for e in raw]
    if any(status not in STATUSES for _, status in steps):
        raise Refused("status must be one of: pending, in_progress, completed.")
    return steps, "Todo list updated"  # the library's own answer


_BACKEND = ListBackend(
    design="inspect-todo_write",
    product="inspect-ai todo_write",
    tool=_SHIPPED.name,
    description=_SHIPPED.description,
    params={
        name: str(schema.description or "")
        for name, schema in _SHIPPED.parameters.properties.items()
    },
    signature=_SHIPPED.tool,  # the library's own function: its signature is the schema
    take=_take,
)


class InspectTodoWriteStore(FullListStore):
    """Whatever list arrives replaces the last one; the tool answers as the library does."""

    name: ClassVar[str] = _BACKEND.design
    PRODUCT: ClassVar[str] = _BACKEND.product
    BACKEND: ClassVar[ListBackend] = _BACKEND
