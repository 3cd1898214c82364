"""The designs that reproduce the products' full-list todo tools (Claude Code's TodoWrite, Codex
CLI's update_plan, OpenCode's todowrite, Gemini CLI's write_todos, ...), one per `ListBackend` a
product's module declares (`harness/products/list_backend.py`): the model sends the whole list,
items without ids, and the product's backend decides what it keeps and answers, or refuses in its
own words. Ids are the harness's, kept by text identity across rewrites
(`harness/todo/identity.py`), so the detectors can tell a dropped or reworded item. No cap."""

from __future__ import annotations

from typing import Any, ClassVar

from harness.products.catalog import LIST_BACKENDS
from harness.products.list_backend import ListBackend, Refused
from harness.todo.base import TodoItem, TodoRejected, TodoStore
from harness.todo.identity import assign_ids
from harness.todo.specs import ToolSpec


class FullListStore(TodoStore):
    """A product's full-list tool: its backend takes the list, which replaces the stored one."""

    BACKEND: ClassVar[ListBackend]
    CAPPED: ClassVar[bool] = False  # the products have no cap

    @classmethod
    def tool_specs(cls) -> list[ToolSpec]:
        backend = cls.BACKEND
        return [
            ToolSpec(
                backend.tool,
                backend.description,
                backend.params,
                backend.signature,
                lambda store, a: store.write_list(a),
                "rewrite",
            )
        ]

    def write_list(self, params: dict[str, Any]) -> str:
        """One call, its arguments as the product takes them; TodoRejected in its words."""
        try:
            rows, answer = self.BACKEND.take(params)
        except Refused as refused:
            raise TodoRejected(str(refused)) from None
        ids, self._next_id = assign_ids(self.items, [text for text, _ in rows], self._next_id)
        self.items = [
            TodoItem.model_validate({"id": i, "text": text, "status": status})
            for i, (text, status) in zip(ids, rows, strict=True)
        ]
        return answer


def _store(backend: ListBackend) -> type[FullListStore]:
    words = backend.design.replace("_", "-").split("-")
    attributes = {
        "name": backend.design,
        "PRODUCT": backend.product,
        "BACKEND": backend,
        "__module__": __name__,
        "__doc__": f"{backend.product}, as the product's backend takes a list.",
    }
    return type("".join(w.capitalize() for w in words) + "Store", (FullListStore,), attributes)


#: every product's full-list design, by name
STORES: dict[str, type[FullListStore]] = {
    name: _store(backend) for name, backend in LIST_BACKENDS.items()
}
