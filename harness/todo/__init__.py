"""Todo designs under test, one file per design on the `TodoStore` interface.

`DESIGNS` is the registry: the seed's levels, the designs real products ship, and any design a
user registers through the `todo_bench.designs` entry-point group or `--design module:factory`
(`harness.designs`).
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
#: the todo tools real coding agents ship
PRODUCTS: dict[str, type[TodoStore]] = {
    "cc-todowrite": ClaudeTodoWriteStore,
    "cc-tasks": ClaudeTasksStore,
    "codex-plan": CodexPlanStore,
    "inspect-todo_write": InspectTodoWriteStore,
}

__all__ = [
    "LEVELS",
    "PRODUCTS",
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
