"""L3-granular: no full rewrite; single validated ops, an op log, and rollback."""

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from harness.todo.base import MAX_ITEMS, TodoItem, TodoRejected, TodoStore


class Op(BaseModel):
    """One accepted operation and the state it produced (never changed once logged)."""

    model_config = ConfigDict(frozen=True)
    op: str
    args: dict[str, Any]
    after: list[TodoItem]


class GranularStore(TodoStore):
    """The backend is the single source of truth; every accepted op is logged."""

    name: ClassVar[str] = "L3-granular"
    TOOLS: ClassVar[tuple[str, ...]] = (
        "add_todo",
        "update_todo_status",
        "rename_todo",
        "delete_todo",
        "list_todos",
    )

    def __init__(self, max_items: int | None = MAX_ITEMS) -> None:
        super().__init__(max_items)
        self.op_log: list[Op] = []

    def write(self, raw: Any) -> str:
        raise TodoRejected(
            "Full rewrites are not supported: use add_todo, update_todo_status, "
            "rename_todo or delete_todo."
        )

    def add(self, text: str) -> str:
        return self._logged("add_todo", {"text": text}, super().add(text))

    def update_status(self, item_id: str, status: str) -> str:
        result = super().update_status(item_id, status)
        return self._logged("update_todo_status", {"id": item_id, "status": status}, result)

    def rename(self, item_id: str, new_text: str) -> str:
        result = super().rename(item_id, new_text)
        return self._logged("rename_todo", {"id": item_id, "new_text": new_text}, result)

    def delete(self, item_id: str) -> str:
        return self._logged("delete_todo", {"id": item_id}, super().delete(item_id))

    def rollback(self, version: int) -> list[TodoItem]:
        """Restore the state after op number `version` (0 = the empty start)."""
        if not 0 <= version <= len(self.op_log):
            raise TodoRejected(f"No version {version}; valid versions are 0..{len(self.op_log)}.")
        state = self.op_log[version - 1].after if version else []
        self.op_log = self.op_log[:version]
        self.items = list(state)
        return self.items

    def _logged(self, op: str, args: dict[str, Any], result: str) -> str:
        self.op_log.append(Op(op=op, args=args, after=list(self.items)))
        return result
