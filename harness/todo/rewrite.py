"""L0-rewrite: the classic TodoWrite demo; a valid list blindly replaces the old one."""

from typing import ClassVar

from harness.todo.base import TodoStore


class RewriteStore(TodoStore):
    """Accepts any list that passes the demo's format rules."""

    name: ClassVar[str] = "L0-rewrite"
    TOOLS: ClassVar[tuple[str, ...]] = ("todo",)
