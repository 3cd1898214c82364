"""How the simulated agent writes its todo list: the first plan, then updates as single ops by
id (granular tools) or as a whole-list rewrite from memory (TodoWrite-style)."""

from __future__ import annotations

import sys

from harness.models.sim.faults import Faults
from harness.models.sim.memory import Call, Decision, Fault
from harness.models.sim.wording import word_plan
from harness.todo.base import TodoItem


class Planner(Faults):
    """The todo calls of a turn, with the faults they carry."""

    def _plan(self, granular: bool) -> Decision:
        plan = word_plan(self.s, self.p, self.rng)
        self.m.covers, self.m.omitted = plan.covers, set(plan.omitted)
        titles = plan.texts
        if self.m.cap is not None:  # a plan the limit refused: list what fits, do the rest
            for text in titles[self.m.cap :]:
                self.m.omitted.update(plan.covers[text])
            titles = titles[: self.m.cap]
        if granular:
            return Decision(calls=[("add_todo", {"text": t}) for t in titles])
        items = [
            {"id": str(i), "text": t, "status": "in_progress" if i == 1 else "pending"}
            for i, t in enumerate(titles, start=1)
        ]
        self.m.max_id = max(self.m.max_id, len(items))
        return Decision(calls=[("todo", {"items": items})])

    def _sync(self, tools: set[str], current: str | None) -> Decision:
        m = self.m
        m.repair_now = False
        m.reminded = False
        careful, m.careful = m.careful, False
        if "todo" not in tools:
            return self._sync_granular(current, careful)
        # new items go through add_todo once a refusal asked for that and the tool is offered
        return self._rewrite(current, careful, m.adds_by_tool and "add_todo" in tools)

    def _sync_granular(self, current: str | None, careful: bool = False) -> Decision:
        """Single ops by id: demote, then complete, then start the current item (`careful`: a
        repair reading the list it was just shown, so no wrong ids)."""
        m = self.m
        calls: list[Call] = []
        faults: list[Fault] = []
        existing = {i.id: i for i in self._store()}
        m.undo = {}
        wanted: list[tuple[TodoItem, str]] = []
        room = self._room()
        for item, subtask, _ in self._believed():
            if item is None and (subtask.id not in m.omitted or subtask.id in m.forced):
                if room <= 0:  # the list is full: the work is done without an item
                    m.omitted.add(subtask.id)
                    continue
                room -= 1
                calls.append(("add_todo", {"text": subtask.title}))
        for item, ids in self._items():
            want = self._item_status(ids, current)
            if want != item.status:
                wanted.append((item, want))
        order = {"pending": 0, "completed": 1, "in_progress": 2}
        for item, want in sorted(wanted, key=lambda pair: order[pair[1]]):
            target = item.id
            if not careful and self.rng.random() < self._p(self.p.wrong_id):
                target = self._wrong_id(item.id)
                m.intended[target] = item.id
                faults.append(Fault("wrong_id", None, len(calls), f"#{item.id} -> #{target}"))
            else:
                m.intended.pop(target, None)
            victim = existing.get(target)
            if want == "completed" and victim is not None and victim.status != "completed":
                fault = self._unverified(victim.text, len(calls))
                if fault:
                    faults.append(fault)
            if victim is not None:
                # a later op of this turn on the same id sees this one's effect, so a second
                # completion of an item already ticked is no new fault
                m.undo.setdefault(target, victim)
                existing[target] = victim.model_copy(update={"status": want})
            calls.append(("update_todo_status", {"id": target, "status": want}))
        m.store = [existing.get(i.id, i) for i in self._store()]
        m.unconfirmed = bool(calls and faults)
        return Decision(calls=calls, faults=faults)

    def _room(self) -> int:
        """How many more items the list takes, as far as the agent knows its limit."""
        if self.m.cap is None:
            return sys.maxsize
        return self.m.cap - len(self.memory_list())

    def _rewrite(
        self, current: str | None, careful: bool = False, by_tool: bool = False
    ) -> Decision:
        """Rewrite the whole list from memory, with recall faults that grow with staleness
        (`careful`: a repair copying the list it was just shown, so none)."""
        m = self.m
        faults: list[Fault] = []
        shown = {i.id: i for i in m.seen or []}
        held = {i.id: i for i in self._store()}
        for item_id in sorted(m.forgotten):
            item = shown[item_id]
            meant = self._resolve(item.text)
            # an item its own earlier write already removed is no new loss
            if item_id in held and (not meant or meant[0][0].id not in m.cancelled):
                faults.append(self._loss_fault("forget", held[item_id]))
        rows: list[TodoItem] = []
        protected: set[str] = set()
        for item in self.memory_list():
            parts = [s for s, _ in self._resolve(item.text)]
            subtask = parts[0] if parts else None
            if subtask is not None and subtask.id in m.cancelled:
                continue  # sanctioned removal
            text = item.text
            if subtask is not None and subtask.id in m.renamed:
                text = m.renamed[subtask.id]
                protected.add(item.id)
            if subtask is not None:
                status = self._item_status([s.id for s in parts], current)
            else:
                status = "completed" if current is None else item.status
                status = "pending" if status == "in_progress" else status
            rows.append(TodoItem.model_validate({"id": item.id, "text": text, "status": status}))
        believed_ids = {s.id for _, s, _ in self._believed_all()}
        adds: list[Call] = []  # new items sent with add_todo (`by_tool`)
        for subtask_id in [*m.added, *sorted(m.forced)]:
            if subtask_id not in believed_ids and subtask_id not in m.cancelled:
                if m.cap is not None and len(rows) + len(adds) >= m.cap:
                    m.omitted.add(subtask_id)  # the list is full: done without an item
                    continue
                if by_tool:
                    adds.append(("add_todo", {"text": self.s.subtask(subtask_id).title}))
                    believed_ids.add(subtask_id)
                    continue
                m.max_id += 1
                status = self._desired_status(subtask_id, current)
                rows.append(
                    TodoItem(id=str(m.max_id), text=self.s.subtask(subtask_id).title, status=status)
                )
                protected.add(str(m.max_id))
                believed_ids.add(subtask_id)
        if not m.forgotten and [r.model_dump() for r in rows] == [
            i.model_dump() for i in self.memory_list()
        ]:
            return Decision(calls=adds)  # nothing to change in the list itself
        more: list[Fault] = []
        mutated: set[str] = set()
        if not careful:
            rows, more, mutated = self._recall_faults(rows, protected, shown, held)
        faults.extend(more)
        faults.extend(self._stale_texts(rows, protected, held, mutated))
        by_text = {i.text: i for i in held.values()}
        for row in rows:
            before = by_text.get(row.text) or held.get(row.id)
            if row.status == "completed" and (before is None or before.status != "completed"):
                fault = self._unverified(row.text, 0)
                if fault:
                    faults.append(fault)
        payload = [{"id": r.id, "text": r.text, "status": r.status} for r in rows]
        m.undo = {"todo": list(held.values())}
        m.store = list(rows)
        m.unconfirmed = bool(faults)
        return Decision(calls=[("todo", {"items": payload}), *adds], faults=faults)
