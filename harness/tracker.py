"""TaskStateTracker: subtask completion rules, the completion gate's state, trace events."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.scenario import ArgConstraint, Rule, Scenario, Subtask


def _constraint_holds(constraint: ArgConstraint, value: Any) -> bool:
    values = value if isinstance(value, list) else [value]
    for candidate in values:
        if constraint.equals is not None:
            if isinstance(constraint.equals, bool):
                if candidate is not constraint.equals:
                    continue
            elif str(candidate).strip() != constraint.equals:
                continue
        text = str(candidate).strip()
        if constraint.ends_with is not None and not text.endswith(constraint.ends_with):
            continue
        if constraint.contains is not None and constraint.contains not in text:
            continue
        return True
    return False


def rule_matches(rule: Rule, tool: str, args: dict[str, Any], done: set[str]) -> bool:
    """Does a *successful* call of `tool` with `args` satisfy `rule`, given subtasks done?"""
    if tool not in rule.tools:
        return False
    if rule.after is not None and rule.after not in done:
        return False
    return all(
        name in args and _constraint_holds(constraint, args[name])
        for name, constraint in rule.args.items()
    )


def match_subtask(text: str, subtasks: Sequence[Subtask]) -> Subtask | None:
    """The subtask a todo text refers to: all keywords present; the most specific wins."""
    lowered = text.lower()
    candidates = [s for s in subtasks if all(k.lower() in lowered for k in s.keywords)]
    if not candidates:
        return None
    return max(candidates, key=lambda s: sum(len(k) for k in s.keywords))


class TaskStateTracker:
    """Checkboxes that only successful, matching tool calls can tick."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.active: list[Subtask] = list(scenario.initial_subtasks())
        self.done: set[str] = set()

    def observe(self, tool: str, args: dict[str, Any], ok: bool) -> list[Subtask]:
        """Record a workspace call; return the subtasks it ticked."""
        if not ok:
            return []
        ticked = []
        for subtask in self.active:
            if subtask.id in self.done:
                continue
            if any(rule_matches(rule, tool, args, self.done) for rule in subtask.done_when):
                self.done.add(subtask.id)
                ticked.append(subtask)
        return ticked

    def add(self, subtask_id: str) -> None:
        if all(s.id != subtask_id for s in self.active):
            self.active.append(self.scenario.subtask(subtask_id))

    def cancel(self, subtask_id: str) -> None:
        self.active = [s for s in self.active if s.id != subtask_id]

    @property
    def pending(self) -> list[Subtask]:
        return [s for s in self.active if s.id not in self.done]

    def summary(self) -> str:
        """`2/3 done: [x] a [x] b [ ] c`: the line the gate shows the agent."""
        done = sum(1 for s in self.active if s.id in self.done)
        boxes = " ".join(f"[{'x' if s.id in self.done else ' '}] {s.title}" for s in self.active)
        return f"{done}/{len(self.active)} done: {boxes}"

    def snapshot(self) -> dict[str, Any]:
        return {
            "subtasks": [
                {"id": s.id, "title": s.title, "done": s.id in self.done} for s in self.active
            ],
            "done": sum(1 for s in self.active if s.id in self.done),
            "total": len(self.active),
        }
