"""L2-whitelist: a rewrite must carry exactly the stored id set; add/delete are explicit tools."""

from typing import ClassVar

from harness.todo.base import TodoItem, TodoRejected
from harness.todo.textlock import TextLockStore


class WhitelistStore(TextLockStore):
    """L1 plus: no missing id, no new id in a rewrite."""

    name: ClassVar[str] = "L2-whitelist"
    TOOLS: ClassVar[tuple[str, ...]] = ("todo", "rename_todo", "add_todo", "delete_todo")
    #: what the refusal says to do instead (a product without these tools says otherwise)
    EDIT_HINT: ClassVar[str] = "use add_todo / delete_todo to add or remove"

    def check_write(self, items: list[TodoItem]) -> None:
        stored = {item.id: item.text for item in self.items}
        sent = {item.id for item in items}
        # the very first plan defines the id set
        if stored:
            missing = [i for i in stored if i not in sent]
            unknown = [item.id for item in items if item.id not in stored]
            if missing or unknown:
                parts = []
                if missing:
                    parts.append(
                        "missing ids: " + ", ".join(f"#{i} '{stored[i]}'" for i in missing)
                    )
                if unknown:
                    parts.append("unknown ids: " + ", ".join(f"#{i}" for i in unknown))
                raise TodoRejected(
                    "Update rejected: the list must contain exactly the stored ids "
                    f"({self.EDIT_HINT}). " + "; ".join(parts) + ".\n" + self._current()
                )
        super().check_write(items)
