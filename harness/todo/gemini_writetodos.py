"""gemini-writetodos: Gemini CLI's write_todos. The model sends the whole list of
`{description, status}` with no ids, and it replaces the stored list; the product answers with
the list it stored, numbered.

Its checks, as Gemini CLI 0.61.0 makes them (its schema, validated first, then its handler's
`validateToolParamValues`), each refused with the product's own words: `todos` an array of
objects with exactly `description` and `status` (no other field); a status one of pending,
in_progress, completed, cancelled, blocked, as written (no case folding); a description with
more than blanks; at most one item in_progress. No cap, no check against the stored list.

The harness's list holds pending, in_progress and completed items. A `cancelled` item is one the
model took off the work: it leaves the list the harness holds (the product keeps showing it),
and the detectors read a removal, sanctioned where the user cancelled that subtask, a dropped
item where not. A `blocked` item is still work to do: the harness holds it as pending."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from harness.products.shipped.gemini_cli import STATUSES, WRITE_TODOS
from harness.todo.base import TodoItem, TodoRejected, TodoStore
from harness.todo.identity import assign_ids
from harness.todo.specs import ToolSpec

#: the product's statuses the harness's list does not hold: off the work, and waiting
CANCELLED, BLOCKED = "cancelled", "blocked"
_FIELDS = (WRITE_TODOS.text, "status")


class GeminiTodo(BaseModel):
    """One item as write_todos takes it."""

    description: str
    status: str


async def _write_todos(todos: list[GeminiTodo]) -> str:
    raise NotImplementedError


def _entry(entry: Any) -> Any:
    """An entry as the product receives it: a JSON object (inspect may pass a model)."""
    return entry.model_dump() if isinstance(entry, BaseModel) else entry


def refusal(params: dict[str, Any]) -> str | None:
    """The product's reason for refusing a call's arguments, None if it takes them: its
    schema's first error (ajv's words, `params` the arguments), then its handler's checks."""
    if WRITE_TODOS.key not in params:
        return f"params must have required property '{WRITE_TODOS.key}'"
    if any(name != WRITE_TODOS.key for name in params):
        return "params must NOT have additional properties"
    raw = params[WRITE_TODOS.key]
    if not isinstance(raw, list):
        return "params/todos must be array"
    entries = [_entry(e) for e in raw]
    for position, entry in enumerate(entries):
        where = f"params/todos/{position}"
        if not isinstance(entry, dict):
            return f"{where} must be object"
        for name in _FIELDS:
            if name not in entry:
                return f"{where} must have required property '{name}'"
        if any(name not in _FIELDS for name in entry):
            return f"{where} must NOT have additional properties"
        for name in _FIELDS:
            if not isinstance(entry[name], str):
                return f"{where}/{name} must be string"
        if entry["status"] not in STATUSES:
            return f"{where}/status must be equal to one of the allowed values"
    for entry in entries:
        if not entry[WRITE_TODOS.text].strip():
            return "Each todo must have a non-empty description string"
    if sum(entry["status"] == "in_progress" for entry in entries) > 1:
        return 'Invalid parameters: Only one task can be "in_progress" at a time.'
    return None


def answer(entries: list[dict[str, str]]) -> str:
    """The product's answer to a list it took."""
    if not entries:
        return "Successfully cleared the todo list."
    listed = "\n".join(
        f"{n}. [{e['status']}] {e[WRITE_TODOS.text]}" for n, e in enumerate(entries, start=1)
    )
    return f"Successfully updated the todo list. The current list is now:\n{listed}"


class GeminiWriteTodosStore(TodoStore):
    """No ids, no cap, no check against the stored list: the new list simply replaces it."""

    name: ClassVar[str] = "gemini-writetodos"
    PRODUCT: ClassVar[str] = "Gemini CLI write_todos"
    CAPPED: ClassVar[bool] = False  # the product has no cap

    @classmethod
    def tool_specs(cls) -> list[ToolSpec]:
        return [
            ToolSpec(
                WRITE_TODOS.tool,
                "Write the subtasks of the user's request as your todo list: send the complete "
                "list every time, each item with `description` and `status` (pending, "
                "in_progress, completed, cancelled or blocked). At most one item may be "
                "in_progress; mark an item completed as soon as it is done.",
                {"todos": "The complete list; it replaces the existing one."},
                _write_todos,
                lambda store, a: store.write_todos(a),
                "rewrite",
            )
        ]

    def write_todos(self, params: dict[str, Any]) -> str:
        """One call, its arguments as the product takes them (`todos`, nothing else)."""
        reason = refusal(params)
        if reason is not None:
            raise TodoRejected(reason)
        entries = [_entry(e) for e in params[WRITE_TODOS.key]]
        work = [
            (e[WRITE_TODOS.text].strip(), "pending" if e["status"] == BLOCKED else e["status"])
            for e in entries
            if e["status"] != CANCELLED
        ]
        ids, self._next_id = assign_ids(self.items, [text for text, _ in work], self._next_id)
        self.items = [
            TodoItem.model_validate({"id": i, "text": text, "status": status})
            for i, (text, status) in zip(ids, work, strict=True)
        ]
        return answer(entries)
