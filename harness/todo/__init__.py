"""Todo designs under test, one file per design on the `TodoStore` interface.

A design author imports from here: `TodoStore`, `TodoItem`, `TodoRejected`, `ToolSpec`,
`render`. The registry of designs by name is `designs()` (`harness/todo/registry.py`): the seed's
levels and the designs real products ship (the stores this package's modules define, found
there), and any design a user registers through the `todo_bench.designs` entry points or with
`--design module:Class`. The built-in design classes load on first use.
"""

from typing import TYPE_CHECKING

from harness._face import lazy
from harness.todo.base import CapExceeded, TodoItem, TodoRejected, TodoStore, render
from harness.todo.specs import TodoInput, ToolSpec

if TYPE_CHECKING:
    from harness.todo.cc_tasks import ClaudeTasksStore
    from harness.todo.full_list import FullListStore
    from harness.todo.granular import GranularStore
    from harness.todo.inspect_todo_write import InspectTodoWriteStore
    from harness.todo.registry import LEVELS, designs
    from harness.todo.rewrite import RewriteStore
    from harness.todo.textlock import TextLockStore
    from harness.todo.whitelist import WhitelistStore

__getattr__ = lazy(
    __name__,
    {
        "ClaudeTasksStore": "harness.todo.cc_tasks",
        "FullListStore": "harness.todo.full_list",
        "GranularStore": "harness.todo.granular",
        "InspectTodoWriteStore": "harness.todo.inspect_todo_write",
        "LEVELS": "harness.todo.registry",
        "designs": "harness.todo.registry",
        "RewriteStore": "harness.todo.rewrite",
        "TextLockStore": "harness.todo.textlock",
        "WhitelistStore": "harness.todo.whitelist",
    },
)

__all__ = [
    "LEVELS",
    "CapExceeded",
    "ClaudeTasksStore",
    "FullListStore",
    "GranularStore",
    "InspectTodoWriteStore",
    "RewriteStore",
    "TextLockStore",
    "TodoInput",
    "TodoItem",
    "TodoRejected",
    "TodoStore",
    "ToolSpec",
    "WhitelistStore",
    "designs",
    "render",
]
