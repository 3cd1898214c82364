"""keep-done: L1's full-list rewrites with locked texts, and a rewrite may not leave out an item
that is completed, so an agent cannot lose the record of what it finished. The design that the
example repository gates with todo-bench (see README.md)."""

from __future__ import annotations

from typing import ClassVar

from harness.todo.base import TodoItem, TodoRejected
from harness.todo.textlock import TextLockStore


class KeepDoneStore(TextLockStore):
    """L1's tools and checks, plus: every completed item stays in the list."""

    name: ClassVar[str] = "keep-done"

    def check_write(self, items: list[TodoItem]) -> None:
        super().check_write(items)
        kept = {item.id for item in items}
        left_out = [i for i in self.items if i.status == "completed" and i.id not in kept]
        if left_out:
            named = ", ".join(f"#{item.id} '{item.text}'" for item in left_out)
            raise TodoRejected(
                f"Update rejected: completed items stay in the list; keep {named}.\n"
                + self._current()
            )
