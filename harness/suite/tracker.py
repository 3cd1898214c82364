"""TaskStateTracker: subtask completion rules and the completion gate's state."""

from __future__ import annotations

from typing import Any

from harness.suite.checks import run_check
from harness.suite.scenario import ArgConstraint, Rule, Scenario, Subtask
from harness.suite.workspace import Workspace, WorkspaceError

#: tool arguments that name workspace paths; rules compare them as normalised paths
PATH_ARGS = frozenset({"path", "src", "dst"})


def _path(value: Any) -> str:
    try:
        return Workspace.normalise(value)
    except WorkspaceError:
        return str(value).strip()


def _constraint_holds(constraint: ArgConstraint, value: Any, is_path: bool) -> bool:
    values = value if isinstance(value, list) else [value]
    for candidate in values:
        if isinstance(constraint.equals, bool) and candidate is not constraint.equals:
            continue
        text = _path(candidate) if is_path else str(candidate).strip()
        if isinstance(constraint.equals, str):
            wanted = _path(constraint.equals) if is_path else constraint.equals
            if text != wanted:
                continue
        if constraint.ends_with is not None:
            suffix = _path(constraint.ends_with) if is_path else constraint.ends_with
            # a path ends with whole components: `1.xlsx` matches `exports/1.xlsx`, not `11.xlsx`
            ok = (
                (text == suffix or text.endswith("/" + suffix))
                if is_path
                else text.endswith(suffix)
            )
            if not ok:
                continue
        if constraint.contains is not None and constraint.contains not in text:
            continue
        return True
    return False


def rule_matches(rule: Rule, tool: str, args: dict[str, Any], done: set[str]) -> bool:
    """Does a *successful* call of `tool` with `args` satisfy a tool rule, given subtasks done?"""
    if tool not in rule.tools:
        return False
    if rule.after is not None and rule.after not in done:
        return False
    return all(
        name in args and _constraint_holds(constraint, args[name], name in PATH_ARGS)
        for name, constraint in rule.args.items()
    )


class TaskStateTracker:
    """Checkboxes that only successful tool calls (or the workspace state they leave) can tick.

    Every subtask of the scenario is tracked, so one added later by the user may already be
    done; the gate and the summary show only the active ones.
    """

    def __init__(self, scenario: Scenario, workspace: Workspace | None = None) -> None:
        self.scenario = scenario
        self.workspace = workspace
        self.active: list[Subtask] = list(scenario.initial_subtasks())
        self.done: set[str] = set()
        #: parts of `all_of` rules met so far: (subtask id, rule index, part index)
        self.met: set[tuple[str, int, int]] = set()
        #: open "undo" boxes of cancelled work: box id -> the checks that must hold
        self.undo: dict[str, list[str]] = {}

    def observe(self, tool: str, args: dict[str, Any], ok: bool) -> list[Subtask]:
        """Record a workspace call; return the subtasks (and undo boxes) it ticked."""
        if not ok:
            return []
        for subtask in self.scenario.subtasks:
            for r, rule in enumerate(subtask.done_when):
                for p, part in enumerate(rule.all_of or []):
                    if rule_matches(part, tool, args, self.done):
                        self.met.add((subtask.id, r, p))
        ticked: list[Subtask] = []
        progress = True
        while progress:  # a tick can satisfy another rule's `after` within the same call
            progress = False
            for subtask in self.scenario.subtasks:
                if subtask.id in self.done:
                    continue
                if any(self._holds(subtask, r, tool, args) for r in range(len(subtask.done_when))):
                    self.done.add(subtask.id)
                    ticked.append(subtask)
                    progress = True
        ticked.extend(self._check_undo())
        return ticked

    def _holds(self, subtask: Subtask, index: int, tool: str, args: dict[str, Any]) -> bool:
        rule = subtask.done_when[index]
        if rule.after is not None and rule.after not in self.done:
            return False
        if rule.all_of is not None:
            return all((subtask.id, index, p) in self.met for p in range(len(rule.all_of)))
        if rule.check is None:
            return rule_matches(rule, tool, args, self.done)
        return self._check_holds(rule.check)

    def _check_holds(self, check_id: str) -> bool:
        if self.workspace is None:
            return False
        return run_check(self.workspace, self.scenario.check(check_id)).passed

    def _check_undo(self) -> list[Subtask]:
        closed = [
            box for box, checks in self.undo.items() if all(self._check_holds(c) for c in checks)
        ]
        boxes = [s for s in self.active if s.id in closed]
        for box in closed:
            del self.undo[box]
            self.done.add(box)
        return boxes

    def add(self, subtask_id: str) -> None:
        if all(s.id != subtask_id for s in self.active):
            self.active.append(self.scenario.subtask(subtask_id))

    def cancel(self, subtask_id: str, undo: list[str] | None = None) -> None:
        """Drop a subtask the user cancelled; if its work was done and the scenario says how to
        undo it, an "Undo: ..." box stays open until the `undo` checks hold."""
        cancelled = next((s for s in self.active if s.id == subtask_id), None)
        self.active = [s for s in self.active if s.id != subtask_id]
        if cancelled is None or subtask_id not in self.done or not undo:
            return
        box = f"undo:{subtask_id}"
        self.active.append(
            cancelled.model_copy(update={"id": box, "title": f"Undo: {cancelled.title}"})
        )
        self.undo[box] = list(undo)
        self._check_undo()

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
