"""What the simulated agent believes: which subtasks its remembered items stand for, what is
done, what comes next. Shared by every concern of the policy; it decides nothing itself."""

from __future__ import annotations

import random

from harness.matcher import match_subtasks
from harness.models.sim.memory import Memory
from harness.models.sim.profiles import Profile
from harness.models.sim.recall import resolve
from harness.suite.scenario import Subtask
from harness.todo.base import TodoItem


class Beliefs:
    """The agent's state (profile, memory, scenario, random source) and what it reads off it."""

    def __init__(self, profile: Profile, memory: Memory, rng: random.Random) -> None:
        self.p = profile
        self.m = memory
        self.s = memory.scenario
        self.rng = rng

    def _step_ids(self, subtask_id: str) -> list[int]:
        return [
            i
            for i, step in enumerate(self.s.reference)
            if step.subtask == subtask_id and not step.undo
        ]

    def _would_tick(self, subtask_id: str) -> bool:
        """Bookkeeping: whether the subtask's work really completes it. Its steps ran exactly
        and without error, and some rule of it holds: a state check fails on a wrong result
        (a tool rule does not), and a rule that comes `after` another needs that one done."""
        m = self.m
        steps = self._step_ids(subtask_id)
        if not all(i in m.verified_steps for i in steps):
            return False
        corrupted = any(i in m.corrupted_steps for i in steps)
        return any(
            (rule.check is None or not corrupted)
            and (rule.after is None or rule.after in m.verified)
            for rule in self.s.subtask(subtask_id).done_when
        )

    def memory_list(self) -> list[TodoItem]:
        """The list as the agent recalls it now (compaction may have cost it items)."""
        return [i for i in self.m.seen or [] if i.id not in self.m.forgotten]

    def _resolve(self, text: str) -> list[tuple[Subtask, tuple[str, str] | None]]:
        """The subtasks the agent means by a todo text: its own plan's words first."""
        own = self.m.covers.get(text)
        if own:
            return [(self.s.subtask(i), None) for i in own]
        resolved = resolve(text, self.s, self.m.renamed)
        return [resolved] if resolved else []

    def _understand(self, text: str) -> list[Subtask]:
        """What a line someone else worded (a planner's, a refusal's) asks for: as its own words
        if it can place them, else by what the line names (the agent reads like a person)."""
        return [s for s, _ in self._resolve(text)] or match_subtasks(text, self.s.subtasks)

    def _believed(self) -> list[tuple[TodoItem | None, Subtask, tuple[str, str] | None]]:
        """Subtasks the agent believes are in the task, with their item and any confusion."""
        out: list[tuple[TodoItem | None, Subtask, tuple[str, str] | None]] = []
        seen_ids: set[str] = set()
        for item, subtask, confusion in self._believed_all():
            if subtask.id not in seen_ids:
                out.append((item, subtask, confusion))
                seen_ids.add(subtask.id)
        extra = [*self.m.added, *sorted(self.m.forced)]
        for subtask_id in extra:
            if subtask_id not in seen_ids:
                out.append((None, self.s.subtask(subtask_id), None))
                seen_ids.add(subtask_id)
        order = [s.id for s in self.s.subtasks]
        for subtask_id in sorted(self.m.omitted - seen_ids, key=order.index):
            # left off the list but still part of the job: done in the task's order
            at = order.index(subtask_id)
            before = [j for j, e in enumerate(out) if order.index(e[1].id) < at]
            out.insert(before[-1] + 1 if before else 0, (None, self.s.subtask(subtask_id), None))
            seen_ids.add(subtask_id)
        return [entry for entry in out if entry[1].id not in self.m.cancelled]

    def _believed_all(self) -> list[tuple[TodoItem, Subtask, tuple[str, str] | None]]:
        """Every remembered item that the agent can tie to a subtask, duplicates included."""
        out = []
        for item in self.memory_list():
            for subtask, confusion in self._resolve(item.text):
                out.append((item, subtask, confusion))
        return out

    def _item_status(self, subtask_ids: list[str], current: str | None) -> str:
        """An item that stands for several subtasks is done when all of them are."""
        wants = {self._desired_status(i, current) for i in subtask_ids}
        if wants == {"completed"}:
            return "completed"
        return "in_progress" if "in_progress" in wants else "pending"

    def _items(
        self, believed: list[tuple[TodoItem | None, Subtask, tuple[str, str] | None]] | None = None
    ) -> list[tuple[TodoItem, list[str]]]:
        """Each remembered item the agent ties to subtasks, with those subtasks."""
        grouped: dict[str, tuple[TodoItem, list[str]]] = {}
        for item, subtask, _ in self._believed() if believed is None else believed:
            if item is not None:
                grouped.setdefault(item.id, (item, []))[1].append(subtask.id)
        return list(grouped.values())

    def _next_work(self) -> tuple[Subtask, tuple[str, str] | None] | None:
        for _, subtask, confusion in self._believed():
            if subtask.id in self.m.work_done:
                continue
            if subtask.id in self.m.exact_args:
                confusion = None
            return subtask, confusion
        return None

    def _desired_status(self, subtask_id: str, current: str | None) -> str:
        if subtask_id in self.m.work_done or subtask_id in self.m.early:
            return "completed"
        return "in_progress" if subtask_id == current else "pending"

    def _p(self, rate: float) -> float:
        return min(0.9, rate * (1 + self.p.staleness_growth * self.m.staleness))

    def _store(self) -> list[TodoItem]:
        """Bookkeeping: the store as the agent's own calls left it (else the list it saw)."""
        return list(self.m.store if self.m.store is not None else self.m.seen or [])
