"""L1-textlock: an existing id must keep its exact text; renames go through rename_todo."""

from typing import ClassVar

from harness.todo.base import TodoItem, TodoRejected
from harness.todo.rewrite import RewriteStore


class TextLockStore(RewriteStore):
    """L0 plus: the text of a known id is locked."""

    name: ClassVar[str] = "L1-textlock"
    TOOLS: ClassVar[tuple[str, ...]] = ("todo", "rename_todo")
    #: what the refusal says to do instead (a product without `rename_todo` says otherwise)
    RENAME_HINT: ClassVar[str] = "use rename_todo to rename"

    def check_write(self, items: list[TodoItem]) -> None:
        super().check_write(items)
        stored = {item.id: item.text for item in self.items}
        changed = [item for item in items if item.id in stored and stored[item.id] != item.text]
        if changed:
            lines = [f"#{item.id} must keep its text '{stored[item.id]}'" for item in changed]
            raise TodoRejected(
                "Update rejected: todo text cannot change in a rewrite "
                f"({self.RENAME_HINT}). " + "; ".join(lines) + ".\n" + self._current()
            )
