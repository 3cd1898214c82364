"""L1 and L2 on a product's full-list todo tool (`PreToolUse` on Claude Code's TodoWrite, Codex
CLI's update_plan or Gemini CLI's write_todos): the seed's text lock and id whitelist, judged by the
seed's own stores against the last accepted list.

The items carry no ids, so both lists get ids by the identity rule of the id-less product
designs (`harness/todo/identity.py`, through the product's design): an item keeps its id while
its text is the same or reworded. A reworded item is then a changed text (L1 refuses it); a
dropped item is a missing id (L2 refuses it). The todo tool is the product's only way to add an
item, so under L2 an item with a new text is an addition, not an unknown id; and it has no
rename or delete, so the refusal's hints say what the agent can do instead.
"""

from __future__ import annotations

from functools import cache
from typing import ClassVar

from harness.hooks.hosts import Host
from harness.hooks.state import HookState, apply_list
from harness.todo.base import TodoRejected
from harness.todo.textlock import TextLockStore
from harness.todo.whitelist import WhitelistStore

#: what the whitelist's refusal says to do instead of removing an item
_EDIT_HINT = "keep every stored item and mark finished ones completed; new items may be added"


def _keep_text(tool: str) -> str:
    return f"{tool} cannot rename an item: keep each stored item's text exactly"


@cache
def stores(tool: str) -> tuple[type[TextLockStore], type[WhitelistStore]]:
    """L1 and L2 (L1 included, as in the seed) with refusals that name no tool the product
    lacks: the seed's stores, their hints in the product's terms."""
    keep = _keep_text(tool)

    class Lock(TextLockStore):
        RENAME_HINT: ClassVar[str] = keep

    class Whitelist(WhitelistStore):
        RENAME_HINT: ClassVar[str] = keep
        EDIT_HINT: ClassVar[str] = _EDIT_HINT

    return Lock, Whitelist


def refusal(state: HookState, fixes: tuple[str, ...], host: Host, entries: object) -> str | None:
    """The seed's refusal of this todo call's list, or None to let it run."""
    if not state.items:  # the first plan defines the list
        return None
    proposed = state.model_copy(deep=True)
    try:
        apply_list(proposed, host, entries)
    except TodoRejected:  # malformed: the product's own validation answers it
        return None
    lock, whitelist = stores(host.tool)
    store = (whitelist if "whitelist" in fixes else lock)(None)
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
