"""Todo designs under test, one file per level on the `TodoStore` interface."""

from harness.todo.base import TodoItem, TodoRejected, TodoStore, render
from harness.todo.granular import GranularStore
from harness.todo.rewrite import RewriteStore
from harness.todo.textlock import TextLockStore
from harness.todo.whitelist import WhitelistStore

LEVELS: dict[str, type[TodoStore]] = {
    "L0": RewriteStore,
    "L1": TextLockStore,
    "L2": WhitelistStore,
    "L3": GranularStore,
}

__all__ = [
    "LEVELS",
    "GranularStore",
    "RewriteStore",
    "TextLockStore",
    "TodoItem",
    "TodoRejected",
    "TodoStore",
    "WhitelistStore",
    "render",
]
