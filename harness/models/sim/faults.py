"""The simulated agent's slips when it writes its list from memory: drops, mutated texts,
renumbering, invented items, wrong ids, and ticks its work does not back. Each is recorded as a
`Fault` naming the metric it should reach if the store accepts it."""

from __future__ import annotations

from harness.matcher import match_subtasks
from harness.models.sim.beliefs import Beliefs
from harness.models.sim.memory import Fault
from harness.models.sim.recall import INVENTED_TEXT, mutations, resolve
from harness.todo.base import TodoItem


class Faults(Beliefs):
    """Recall and bookkeeping faults, with rates from the profile grown by staleness."""

    def _wrong_id(self, true_id: str) -> str:
        numeric = int(true_id) if true_id.isdigit() else 0
        options = [str(numeric + 1), str(numeric - 1), str(self.m.max_id + 1)]
        options = [o for o in options if o != true_id and o != "0"]
        return self.rng.choice(options)

    def _unverified(self, text: str, call: int) -> Fault | None:
        """Bookkeeping: ticking a todo whose subtask's work has not really happened."""
        open_ = [s for s in match_subtasks(text, self.s.subtasks) if s.id not in self.m.verified]
        if not open_:
            return None
        early = any(s.id in self.m.early for s in open_)
        kind = "early_complete" if early else "unverified_complete"
        return Fault(kind, "false_todo_completions", call, f"'{text}'")

    def _stale_texts(
        self,
        rows: list[TodoItem],
        protected: set[str],
        held: dict[str, TodoItem],
        mutated: set[str],
    ) -> list[Fault]:
        """Bookkeeping: a text written from a memory older than the store (compaction hid the
        write that changed it) changes the item's text all the same (`mutated`: the texts this
        write's own mutation faults produced, already recorded)."""
        held_texts = {i.text for i in held.values()}
        return [
            Fault(
                "stale_text", "mutated_text", 0, f"#{row.id} '{held[row.id].text}' -> '{row.text}'"
            )
            for row in rows
            if row.id in held
            and row.id not in protected
            and row.text != held[row.id].text
            and row.text not in held_texts
            and row.text not in mutated
        ]

    def _loss_fault(self, kind: str, item: TodoItem) -> Fault:
        metric = "lost_history" if item.status == "completed" else "dropped_todos"
        return Fault(kind, metric, 0, f"#{item.id} '{item.text}'")

    def _recall_faults(
        self,
        rows: list[TodoItem],
        protected: set[str],
        shown_items: dict[str, TodoItem],
        held: dict[str, TodoItem],
    ) -> tuple[list[TodoItem], list[Fault], set[str]]:
        """The rows after recall faults, the faults, and the texts its mutations produced."""
        faults: list[Fault] = []
        mutated: set[str] = set()
        shown = set(shown_items)
        candidates = [r for r in rows if r.id in shown and r.id not in protected]
        dropped = {r.id for r in candidates if self.rng.random() < self._p(self.p.drop)}
        if len(dropped) == len(rows):
            dropped = set()
        # the scorer judges a loss by the status the store held, not the one being written
        faults.extend(
            self._loss_fault("drop", held[r.id]) for r in rows if r.id in dropped & held.keys()
        )
        kept = [r for r in rows if r.id not in dropped]
        if dropped and self.rng.random() < self.p.renumber:
            # close the gaps: remembered items take the ids in order; new items keep theirs
            old_ids = iter([r.id for r in rows if r.id in shown])
            renumbered = []
            for row in kept:
                new_id = next(old_ids) if row.id in shown else row.id
                if row.id != new_id:
                    faults.append(Fault("renumber", "id_churn", 0, f"#{row.id} -> #{new_id}"))
                renumbered.append(row.model_copy(update={"id": new_id}))
            kept = renumbered
        else:
            texts = {r.text for r in rows}
            for i, row in enumerate(kept):
                if row.id not in shown or row.id in protected:
                    continue
                if self.rng.random() >= self._p(self.p.mutate):
                    continue
                resolved = resolve(row.text, self.s, self.m.renamed)
                if resolved is None or resolved[1] is not None or row.text != resolved[0].title:
                    continue
                options = [
                    t
                    for t, _ in mutations(resolved[0], self.s)
                    if t not in texts
                    and {s.id for s in match_subtasks(t, self.s.subtasks)} <= {resolved[0].id}
                ]
                if not options:
                    continue
                new_text = options[0]
                texts.add(new_text)
                mutated.add(new_text)
                kept[i] = row.model_copy(update={"text": new_text})
                faults.append(Fault("mutate", "mutated_text", 0, f"'{row.text}' -> '{new_text}'"))
        if (
            self.rng.random() < self._p(self.p.invent)
            and len(kept) < 20
            and all(r.text != INVENTED_TEXT for r in kept)
            and not match_subtasks(INVENTED_TEXT, self.s.subtasks)
        ):
            self.m.max_id += 1
            kept.append(TodoItem(id=str(self.m.max_id), text=INVENTED_TEXT))
            faults.append(Fault("invent", "invented_todos", 0, f"#{self.m.max_id}"))
        in_progress = [r for r in kept if r.status == "in_progress"]
        for extra in in_progress[1:]:
            kept[kept.index(extra)] = extra.model_copy(update={"status": "pending"})
        return kept, faults, mutated
