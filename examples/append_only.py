"""append-only: granular tools (as L3) over a list that keeps its history. A completed item can
be neither deleted nor reopened, so an agent cannot lose the record of what it finished.

Run it without touching `harness/`:
    todo-bench run --design examples.append_only:AppendOnlyStore --variants append-only,L3-granular
"""

from __future__ import annotations

from typing import ClassVar

from harness.todo.base import TodoRejected
from harness.todo.granular import GranularStore


class AppendOnlyStore(GranularStore):
    """L3's tools and checks, plus: what is completed stays completed and stays listed."""

    name: ClassVar[str] = "append-only"

    def update_status(self, item_id: str, status: str) -> str:
        item = self.items[self._index(item_id)]
        if item.status == "completed" and str(status).strip().lower() != "completed":
            raise TodoRejected(f"#{item.id} is completed; completed items cannot be reopened.")
        return super().update_status(item_id, status)

    def delete(self, item_id: str) -> str:
        item = self.items[self._index(item_id)]
        if item.status == "completed":
            raise TodoRejected(f"#{item.id} is completed; completed items stay in the list.")
        return super().delete(item_id)
