"""codex-plan: Codex CLI's update_plan. The model sends `plan: [{step, status}]` (and an optional
explanation); at most one step may be in progress; the plan replaces the stored one."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from harness.products.shipped.codex import PLAN, PLAN_TAKEN
from harness.todo.base import STATUSES, TodoItem, TodoRejected, TodoStore
from harness.todo.cc_todowrite import field
from harness.todo.identity import assign_ids
from harness.todo.specs import ToolSpec


class PlanStep(BaseModel):
    """One step as update_plan takes it."""

    step: str
    status: str


async def _update_plan(plan: list[PlanStep], explanation: str | None = None) -> str:
    raise NotImplementedError


class CodexPlanStore(TodoStore):
    """A plan of steps with statuses; no ids, no cap."""

    name: ClassVar[str] = "codex-plan"
    PRODUCT: ClassVar[str] = "Codex CLI update_plan"
    CAPPED: ClassVar[bool] = False  # the product has no cap

    @classmethod
    def tool_specs(cls) -> list[ToolSpec]:
        return [
            ToolSpec(
                PLAN.tool,
                "Record your plan for the task as short steps, each with a status: pending, "
                "in_progress or completed. Send the whole plan each time it changes; at most one "
                "step may be in_progress. Add an explanation when the plan changes course.",
                {
                    "plan": "Every step, in order.",
                    "explanation": "Why the plan changed (optional).",
                },
                _update_plan,
                lambda store, a: store.update_plan(a["plan"]),
                "rewrite",
            )
        ]

    def update_plan(self, raw: Any) -> str:
        if not isinstance(raw, list):
            raise TodoRejected("`plan` must be a list of {step, status}.")
        steps = [(field(e, "step"), field(e, "status").lower()) for e in raw]
        for position, (step, status) in enumerate(steps, start=1):
            if not step:
                raise TodoRejected(f"Step {position}: text required.")
            if status not in STATUSES:
                raise TodoRejected(
                    f"Step {position}: status must be pending, in_progress or completed."
                )
        if sum(status == "in_progress" for _, status in steps) > 1:
            raise TodoRejected("At most one step can be in_progress.")
        ids, self._next_id = assign_ids(self.items, [s for s, _ in steps], self._next_id)
        self.items = [
            TodoItem.model_validate({"id": i, "text": step, "status": status})
            for i, (step, status) in zip(ids, steps, strict=True)
        ]
        return PLAN_TAKEN
