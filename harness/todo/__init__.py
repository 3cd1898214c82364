"""Todo designs under test, one file per design on the `TodoStore` interface.

The registry of designs by name is `harness.designs.designs()`: the seed's levels and the designs
real products ship (both registered through the `todo_bench.designs` entry points in
`pyproject.toml`), and any design a user registers the same way or with `--design module:Class`.
"""

from harness.todo.base import TodoItem, TodoRejected, TodoStore, render
from harness.todo.cc_tasks import ClaudeTasksStore
from harness.todo.cc_todowrite import ClaudeTodoWriteStore
from harness.todo.codex_plan import CodexPlanStore
from harness.todo.granular import GranularStore
from harness.todo.inspect_todo_write import InspectTodoWriteStore
from harness.todo.rewrite import RewriteStore
from harness.todo.textlock import TextLockStore
from harness.todo.whitelist import WhitelistStore

#: the seed's levels (L4 is L3 with injection)
LEVELS: dict[str, type[TodoStore]] = {
    "L0": RewriteStore,
    "L1": TextLockStore,
    "L2": WhitelistStore,
    "L3": GranularStore,
}

__all__ = [
    "LEVELS",
    "ClaudeTasksStore",
    "ClaudeTodoWriteStore",
    "CodexPlanStore",
    "GranularStore",
    "InspectTodoWriteStore",
    "RewriteStore",
    "TextLockStore",
    "TodoItem",
    "TodoRejected",
    "TodoStore",
    "WhitelistStore",
    "render",
]
