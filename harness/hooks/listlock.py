"""L1 and L2 on Claude Code's TodoWrite (`PreToolUse`): the seed's text lock and id whitelist,
judged by the seed's own stores against the last accepted list.

TodoWrite items carry no ids, so both lists get ids by the identity rule of the id-less product
designs (`harness/todo/identity.py`, through the `cc-todowrite` design): an item keeps its id
while its text is the same or reworded. A reworded item is then a changed text (L1 refuses it);
a dropped item is a missing id (L2 refuses it). TodoWrite is the product's only way to add an
item, so under L2 an item with a new text is an addition, not an unknown id; and it has no
rename or delete, so the refusal's hints say what the agent can do instead.
"""

from __future__ import annotations

from typing import ClassVar

from harness.hooks.state import HookState, apply_todo_write
from harness.todo.base import TodoRejected
from harness.todo.textlock import TextLockStore
from harness.todo.whitelist import WhitelistStore

_KEEP_TEXT = "TodoWrite cannot rename an item: keep each stored item's text exactly"


class TodoWriteTextLock(TextLockStore):
    """L1, with a refusal that names no tool Claude Code lacks."""

    RENAME_HINT: ClassVar[str] = _KEEP_TEXT


class TodoWriteWhitelist(WhitelistStore):
    """L2 (L1 included, as in the seed), with a refusal that names no tool Claude Code lacks."""

    RENAME_HINT: ClassVar[str] = _KEEP_TEXT
    EDIT_HINT: ClassVar[str] = (
        "keep every stored item and mark finished ones completed; new items may be added"
    )


def refusal(state: HookState, fixes: tuple[str, ...], todos: object) -> str | None:
    """The seed's refusal of this TodoWrite, or None to let it run."""
    if not state.items:  # the first plan defines the list
        return None
    proposed = state.model_copy(deep=True)
    try:
        apply_todo_write(proposed, todos)
    except TodoRejected:  # malformed: the product's own validation answers it
        return None
    store = (TodoWriteWhitelist if "whitelist" in fixes else TodoWriteTextLock)(None)
    store.items = list(state.items)
    items = proposed.items
    if "whitelist" in fixes:
        stored = {item.id for item in state.items}
        items = [item for item in items if item.id in stored]  # additions (see the docstring)
    try:
        store.check_write(items)
    except TodoRejected as refused:
        return str(refused)
    return None
