"""The simulated agent's decision-making: what it remembers, what it does next, what it gets wrong.

Everything it knows comes from the messages and tools it receives (plus its own memory of
them); it is never told which todo design it is tested on. Each concern is one module:
`observing` (memory from messages), `planning` (todo calls), `faults` (slips), `work`
(workspace calls), over the shared `beliefs`; this one decides which of them a turn takes.
"""

from __future__ import annotations

from typing import Any

from harness.models.sim.memory import Decision, Fault, then
from harness.models.sim.observing import Observer
from harness.models.sim.planning import Planner
from harness.models.sim.work import Worker
from harness.suite.scenario import Subtask

__all__ = ["SimPolicy"]


class SimPolicy(Observer, Planner, Worker):
    """Turn an observed conversation into the next assistant turn."""

    def decide(self, tools: set[str]) -> Decision:
        m = self.m
        granular = "todo" not in tools
        if not m.planned:
            m.planned = True
            return self._plan(granular)
        if granular and m.lost and "list_todos" in tools and self.rng.random() < self.p.relist:
            return Decision(calls=[("list_todos", {})])
        if m.user_ops:
            return self._user_op(tools, granular)
        if m.undo_queue:
            step = self.s.reference[m.undo_queue.pop(0)]
            return Decision(calls=[(step.tool, dict(step.args))])
        work = self._next_work()
        update = Decision()
        if self._sync_due(work):
            update = self._sync(tools, work[0].id if work else None)
        if work is None:
            return update if update.calls else Decision(text="All tasks are complete.")
        if not update.calls and self.rng.random() < self._p(self.p.premature_done) and not m.nudged:
            return Decision(
                text="All tasks are complete.",
                faults=[Fault("premature_done", None, None, f"claimed done before {work[0].id}")],
            )
        subtask, confusion = work
        if (
            not update.calls
            and subtask.id not in m.early
            and self.rng.random() < self.p.early_complete
        ):
            m.early.add(subtask.id)
            update = self._sync(tools, subtask.id)
        # like most tool-calling LLMs, it updates the list and starts the next step in one turn
        return then(update, self._work(subtask, confusion))

    def _sync_due(self, work: tuple[Subtask, Any] | None) -> bool:
        m = self.m
        if m.repair_now or m.reminded or work is None:
            return True
        believed = self._believed()  # built once: it resolves every remembered item
        stale = [
            s.id
            for item, s, _ in believed
            if item is None and s.id in m.work_done and s.id not in m.omitted
        ] + [
            item.id
            for item, ids in self._items(believed)
            if all(i in m.work_done for i in ids) and item.status != "completed"
        ]
        if len(stale) >= self.p.update_every:
            return True
        # the item being worked on should be marked in progress (once)
        item = next((i for i, s, _ in believed if s.id == work[0].id), None)
        return item is not None and item.status == "pending" and not stale

    def _user_op(self, tools: set[str], granular: bool) -> Decision:
        action, subtask_id = self.m.user_ops[0]
        subtask = self.s.subtask(subtask_id)
        item = next((i for i, s, _ in self._believed_all() if s.id == subtask_id), None)
        explicit = {"add": "add_todo", "cancel": "delete_todo", "rename": "rename_todo"}
        tool = explicit.get(action)
        self.m.user_ops.pop(0)
        if tool in tools:
            if action == "add":
                if self._room() <= 0:  # a full list: the agent does the work without an item
                    self.m.omitted.add(subtask_id)
                    return self.decide(tools)
                return Decision(calls=[("add_todo", {"text": subtask.title})])
            if item is None:
                return self.decide(tools)
            if action == "cancel":
                return Decision(calls=[("delete_todo", {"id": item.id})])
            return Decision(
                calls=[("rename_todo", {"id": item.id, "new_text": self.m.renamed[subtask_id]})]
            )
        if granular:
            return self.decide(tools)
        # no explicit tool: express the change in a rewrite
        work = self._next_work()
        return self._sync(tools, work[0].id if work else None)
