"""The shared todo-store interface: items, rendering, validation and the granular ops."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from harness.todo.specs import CLASSIC, ToolSpec

Status = Literal["pending", "in_progress", "completed"]
STATUSES: tuple[Status, ...] = ("pending", "in_progress", "completed")
MAX_ITEMS = 20
#: bounds every design's store keeps (checked after each call, whatever the design does)
MAX_ID_CHARS = 64
MAX_TEXT_CHARS = 2000
_MARKS: dict[str, str] = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}


class TodoItem(BaseModel):
    """One todo as the backend stores it."""

    model_config = ConfigDict(frozen=True)

    id: str
    text: str
    status: Status = "pending"


class TodoRejected(Exception):
    """An update the backend refused; the message tells the model what to fix."""


class CapExceeded(TodoRejected):
    """Refused because the list would be longer than the design's cap (the cap's price, which
    the `cap_refusals` metric counts apart from other refusals)."""


def render(items: Sequence[TodoItem]) -> str:
    """Render a list the way tool results and injection show it."""
    if not items:
        return "No todos.\n(0/0 completed)"
    lines = [f"{_MARKS[item.status]} #{item.id}: {item.text}" for item in items]
    done = sum(1 for item in items if item.status == "completed")
    lines.append(f"({done}/{len(items)} completed)")
    return "\n".join(lines)


def parse_items(raw: Any, max_items: int | None = MAX_ITEMS) -> list[TodoItem]:
    """Apply the classic demo's rules to a full list sent by the model."""
    if not isinstance(raw, list):
        raise TodoRejected("`items` must be a list of {id, text, status} objects.")
    if max_items is not None and len(raw) > max_items:
        raise CapExceeded(f"Max {max_items} todos allowed, got {len(raw)}.")
    items: list[TodoItem] = []
    for position, entry in enumerate(raw, start=1):
        if not isinstance(entry, dict):
            raise TodoRejected(f"Item {position}: expected an object with id, text, status.")
        item_id = str(entry.get("id") or position).strip().lstrip("#")
        text = str(entry.get("text", "")).strip()
        status = str(entry.get("status", "pending")).strip().lower()
        if not text:
            raise TodoRejected(f"Item #{item_id}: text required.")
        if status not in STATUSES:
            raise TodoRejected(
                f"Item #{item_id}: invalid status '{status}' (use pending, in_progress, completed)."
            )
        items.append(TodoItem.model_validate({"id": item_id, "text": text, "status": status}))
    ids = [item.id for item in items]
    duplicated = sorted({i for i in ids if ids.count(i) > 1})
    if duplicated:
        raise TodoRejected(f"Duplicate ids: {', '.join('#' + i for i in duplicated)}.")
    check_one_in_progress(items)
    return items


def check_one_in_progress(items: Sequence[TodoItem]) -> None:
    """Refuse more than one in_progress item."""
    active = [item.id for item in items if item.status == "in_progress"]
    if len(active) > 1:
        raise TodoRejected(
            "Only one task can be in_progress at a time "
            f"(got {', '.join('#' + i for i in active)})."
        )


class TodoStore:
    """Base store: holds the list, accepts granular ops; levels decide what `write` accepts.

    Subclasses set TOOLS (the todo tools the model is offered) and override
    `check_write` to add their rule on top of the demo's.
    """

    name: ClassVar[str] = "base"
    TOOLS: ClassVar[tuple[str, ...]] = ()
    #: whether the seed's item cap applies (the products real agents ship have none)
    CAPPED: ClassVar[bool] = True
    #: the shipping tool this design reproduces, if any (`--variants products` runs them all)
    PRODUCT: ClassVar[str] = ""

    @classmethod
    def tool_specs(cls) -> list[ToolSpec]:
        """The tools the model is offered; a design with tools of its own overrides this."""
        return [CLASSIC[name] for name in cls.TOOLS]

    def __init__(self, max_items: int | None = MAX_ITEMS) -> None:
        self.items: list[TodoItem] = []
        self._next_id = 1
        #: the demo's cap on list length; None lifts it (the `+uncapped` study variants, and
        #: designs without a cap)
        self.max_items = max_items if self.CAPPED else None

    # -- full rewrite (L0-L2) ------------------------------------------------
    def write(self, raw: Any) -> str:
        items = parse_items(raw, self.max_items)
        self.check_write(items)
        self._replace(items)
        return render(self.items)

    def check_write(self, items: list[TodoItem]) -> None:
        """Level-specific acceptance rule for a full rewrite; the base accepts anything."""

    # -- granular ops (offered per level); they confirm the op, only list() shows the list --
    def add(self, text: str) -> str:
        text = str(text).strip()
        if not text:
            raise TodoRejected("text required.")
        if self.max_items is not None and len(self.items) >= self.max_items:
            raise CapExceeded(f"Max {self.max_items} todos allowed.")
        item = TodoItem(id=str(self._next_id), text=text)
        self._replace([*self.items, item])
        return f"Added #{item.id}: {item.text}"

    def update_status(self, item_id: str, status: str) -> str:
        index = self._index(item_id)
        # the same normalisation as a rewrite, so rejected_updates compare across designs
        status = str(status).strip().lower()
        if status not in STATUSES:
            raise TodoRejected(f"invalid status '{status}' (use pending, in_progress, completed).")
        items = list(self.items)
        items[index] = items[index].model_copy(update={"status": status})
        check_one_in_progress(items)
        self._replace(items)
        return f"#{items[index].id} is now {status}."

    def rename(self, item_id: str, new_text: str) -> str:
        index = self._index(item_id)
        new_text = str(new_text).strip()
        if not new_text:
            raise TodoRejected("new_text required.")
        items = list(self.items)
        items[index] = items[index].model_copy(update={"text": new_text})
        self._replace(items)
        return f"#{items[index].id} renamed to '{new_text}'."

    def delete(self, item_id: str) -> str:
        index = self._index(item_id)
        removed = self.items[index]
        self._replace([item for i, item in enumerate(self.items) if i != index])
        return f"Deleted #{removed.id}."

    def show(self) -> str:
        return render(self.items)

    # -- transactions: a refused or failed call leaves the store exactly as it was ----------
    def snapshot(self) -> dict[str, Any]:
        """Everything the store holds, designs' own state included. Frozen records in its
        lists (items, an op log's entries) are shared rather than copied: copying a growing
        op log on every call made long episodes quadratic."""
        shared = {
            id(entry): entry
            for value in self.__dict__.values()
            if isinstance(value, list)
            for entry in value
            if isinstance(entry, BaseModel) and entry.model_config.get("frozen")
        }
        return copy.deepcopy(self.__dict__, shared)

    def restore(self, snapshot: dict[str, Any]) -> None:
        self.__dict__ = snapshot

    def problems(self) -> str | None:
        """Why the store's state is illegal, or None: the invariants every design keeps."""
        seen: set[str] = set()
        for item in self.items:
            if not item.id or item.id == "None" or len(item.id) > MAX_ID_CHARS:
                return f"invalid id {item.id[:MAX_ID_CHARS]!r} (ids are 1-{MAX_ID_CHARS} chars)."
            if not item.id.isprintable() or any(c.isspace() for c in item.id):
                return f"invalid id {item.id!r}: use letters and digits."
            if item.id in seen:
                return f"duplicate id #{item.id}."
            seen.add(item.id)
            if not item.text.strip() or len(item.text) > MAX_TEXT_CHARS:
                return f"#{item.id}: text must be 1-{MAX_TEXT_CHARS} characters."
            if "\x00" in item.text:
                return f"#{item.id}: text contains a NUL character."
            if item.status not in STATUSES:
                return f"#{item.id}: invalid status {item.status!r}."
        if self.max_items is not None and len(self.items) > self.max_items:
            return f"Max {self.max_items} todos allowed."
        return None

    # -- internals -------------------------------------------------------------
    def _replace(self, items: list[TodoItem]) -> None:
        self.items = list(items)
        # ASCII digits only ('²'.isdigit() is true) and bounded, so int() cannot fail
        numeric = [
            int(item.id)
            for item in items
            if item.id.isascii() and item.id.isdigit() and len(item.id) <= 9
        ]
        # backend-assigned ids never reuse an id the model has already seen
        self._next_id = max([self._next_id - 1, *numeric]) + 1

    def _index(self, item_id: str) -> int:
        key = str(item_id).strip().lstrip("#")
        for i, item in enumerate(self.items):
            if item.id == key:
                return i
        known = ", ".join("#" + item.id for item in self.items) or "none"
        raise TodoRejected(
            f"No todo with id #{key} (existing ids: {known}; list_todos shows them)."
        )

    def _current(self) -> str:
        return f"Current list:\n{render(self.items)}"
