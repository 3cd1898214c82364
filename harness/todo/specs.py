"""How a todo design's tools look to the model: one `ToolSpec` per tool.

A design (a `TodoStore` subclass) lists its specs; the harness turns each into an inspect tool
that records every call in the ledger. `kind` tells the detectors what a call does to the list,
whatever the tool is called.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

#: what a call does: replace the whole list, add / update / rename / delete one item, or read
OpKind = Literal["rewrite", "add", "update", "rename", "delete", "read"]


@dataclass(frozen=True)
class ToolSpec:
    """One todo tool of a design."""

    name: str
    description: str
    #: argument name -> description, shown to the model
    params: dict[str, str]
    #: a typed stub whose signature inspect reads to build the tool's JSON schema
    signature: Callable[..., Awaitable[str]]
    #: runs the call on the design's store (typed loosely: each design adds its own methods);
    #: raises TodoRejected to refuse it
    run: Callable[[Any, dict[str, Any]], str]
    kind: OpKind


class TodoInput(TypedDict, total=False):
    """One item of a full `todo` rewrite."""

    id: str
    text: str
    status: str


async def _todo(items: list[TodoInput]) -> str:
    raise NotImplementedError


async def _add_todo(text: str) -> str:
    raise NotImplementedError


async def _update_todo_status(id: str, status: str) -> str:
    raise NotImplementedError


async def _rename_todo(id: str, new_text: str) -> str:
    raise NotImplementedError


async def _delete_todo(id: str) -> str:
    raise NotImplementedError


async def _list_todos() -> str:
    raise NotImplementedError


#: the seed's tools (levels L0-L4), by name
CLASSIC: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            "todo",
            "Replace the whole todo list. Send every item as {id, text, status}; status is "
            "pending, in_progress or completed; at most 20 items, at most one in_progress.",
            {"items": "The complete list: every item with id, text and status."},
            _todo,
            lambda store, a: store.write(a["items"]),
            "rewrite",
        ),
        ToolSpec(
            "add_todo",
            "Add a todo item; the system assigns its id.",
            {"text": "Text of the new todo."},
            _add_todo,
            lambda store, a: store.add(a["text"]),
            "add",
        ),
        ToolSpec(
            "update_todo_status",
            "Set the status (pending, in_progress, completed) of one todo by id.",
            {"id": "Todo id.", "status": "pending, in_progress or completed."},
            _update_todo_status,
            lambda store, a: store.update_status(a["id"], a["status"]),
            "update",
        ),
        ToolSpec(
            "rename_todo",
            "Change the text of one todo by id.",
            {"id": "Todo id.", "new_text": "The new text."},
            _rename_todo,
            lambda store, a: store.rename(a["id"], a["new_text"]),
            "rename",
        ),
        ToolSpec(
            "delete_todo",
            "Delete one todo by id.",
            {"id": "Todo id."},
            _delete_todo,
            lambda store, a: store.delete(a["id"]),
            "delete",
        ),
        ToolSpec(
            "list_todos",
            "Show the current todo list.",
            {},
            _list_todos,
            lambda store, a: store.show(),
            "read",
        ),
    )
}
#: the seed's tool names, and those that only read the list (declared once, above)
CLASSIC_NAMES = frozenset(CLASSIC)
CLASSIC_READS = frozenset(name for name, spec in CLASSIC.items() if spec.kind == "read")
