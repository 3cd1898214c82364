"""The simulated agent's decision-making: what it remembers, what it does next, what it gets wrong.

Everything it knows comes from the messages and tools it receives (plus its own memory of
them); it is never told which todo design it is tested on.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool, ChatMessageUser

from harness.matcher import match_subtasks
from harness.models.sim.profiles import Profile
from harness.models.sim.recall import INVENTED_TEXT, mutations, parse_rendered, resolve
from harness.models.sim.wording import word_plan
from harness.suite.scenario import Scenario, Step, Subtask
from harness.todo.base import TodoItem

Call = tuple[str, dict[str, Any]]
#: memory after compaction counts as this many turns stale at least
LOST_STALENESS = 8


@dataclass
class Fault:
    """One injected fault and the metric it should show up in if it reaches the store."""

    kind: str
    metric: str | None
    call: int | None  # index of the tool call in the message; None for text-only turns
    detail: str

    def dump(self) -> dict[str, Any]:
        return {"kind": self.kind, "metric": self.metric, "call": self.call, "detail": self.detail}


@dataclass
class Decision:
    text: str = ""
    calls: list[Call] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    step: int | None = None  # reference step the workspace call performs
    step_call: int | None = None  # index of that call in `calls` (None: the first)


@dataclass
class Memory:
    """What one simulated agent carries through one episode."""

    scenario: Scenario
    calls: int = 0
    planned: bool = False
    seen: list[TodoItem] | None = None  # the last list it saw
    #: bookkeeping only (the fault record, never a decision): the store as the agent's own
    #: calls left it, kept even when compaction hides their results, and what a refused call
    #: would undo
    store: list[TodoItem] | None = None
    undo: dict[str, list[TodoItem] | TodoItem] = field(default_factory=dict)
    corrupted_steps: set[int] = field(default_factory=set)  # bookkeeping: wrong results
    #: bookkeeping: a write with faults (which a design may refuse) whose result the agent has
    #: not seen yet; when compaction hides that result, the store view above is a guess
    unconfirmed: bool = False
    staleness: int = 0
    lost: bool = False  # compaction removed the list from view
    forgotten: set[str] = field(default_factory=set)  # item ids lost to compaction
    steps_done: set[int] = field(default_factory=set)
    work_done: set[str] = field(default_factory=set)
    verified: set[str] = field(default_factory=set)  # bookkeeping only: steps ran exactly and ok
    verified_steps: set[int] = field(default_factory=set)
    exact_steps: set[int] = field(default_factory=set)
    history_seen: int = 0  # length of the history at the last turn
    early: set[str] = field(default_factory=set)
    forced: set[str] = field(default_factory=set)
    exact_args: set[str] = field(default_factory=set)
    added: list[str] = field(default_factory=list)
    cancelled: set[str] = field(default_factory=set)
    renamed: dict[str, str] = field(default_factory=dict)
    user_ops: list[tuple[str, str]] = field(default_factory=list)
    undo_queue: list[int] = field(default_factory=list)  # reference steps reverting cancelled work
    sent: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)  # product calls
    inflight: dict[str, int] = field(default_factory=dict)  # call id -> reference step
    reminded: bool = False
    repair_now: bool = False
    nudged: bool = False
    max_id: int = 0
    intended: dict[str, str] = field(default_factory=dict)  # id sent -> id meant (wrong-id slips)
    covers: dict[str, list[str]] = field(default_factory=dict)  # own plan text -> subtask ids
    omitted: set[str] = field(default_factory=set)  # subtasks done without a todo item


class SimPolicy:
    """Turn an observed conversation into the next assistant turn."""

    def __init__(self, profile: Profile, memory: Memory, rng: random.Random) -> None:
        self.p = profile
        self.m = memory
        self.s = memory.scenario
        self.rng = rng

    # -- observing ---------------------------------------------------------------
    def observe(self, messages: list[ChatMessage], system_text: str, tools: set[str]) -> None:
        m = self.m
        m.staleness += 1
        injected = parse_rendered(system_text)
        last = max(
            (i for i, msg in enumerate(messages) if isinstance(msg, ChatMessageAssistant)),
            default=-1,
        )
        calls = {}
        if last >= 0:
            assistant = messages[last]
            assert isinstance(assistant, ChatMessageAssistant)
            calls = {c.id: c for c in assistant.tool_calls or []}
        for message in messages[last + 1 :]:
            if isinstance(message, ChatMessageTool):
                self._observe_tool(message, calls.get(message.tool_call_id or ""))
            elif isinstance(message, ChatMessageUser) and last >= 0:
                self._observe_user(message.text)
        # a history shorter than the last one seen was compacted (each compaction once)
        if len(messages) < m.history_seen:
            self._compacted()
        m.history_seen = len(messages)
        if injected is not None:
            self._see(injected)

    def _compacted(self) -> None:
        m = self.m
        m.lost = True
        m.staleness = max(m.staleness, LOST_STALENESS)
        m.forgotten = {item.id for item in m.seen or [] if self.rng.random() < self.p.forget}

    def _see(self, items: list[TodoItem]) -> None:
        self.m.seen = list(items)
        self.m.store = list(items)
        self.m.unconfirmed = False
        self.m.staleness = 0
        self.m.lost = False
        self.m.forgotten = set()
        for item in items:
            if item.id.isdigit():
                self.m.max_id = max(self.m.max_id, int(item.id))

    def _observe_tool(self, message: ChatMessageTool, call: Any) -> None:
        text = message.text
        function = message.function or (call.function if call else "")
        error = message.error.message if message.error else None
        if function in _TODO_TOOLS:
            self.m.unconfirmed = False
            if error is not None and call is not None:
                self._undo_store(call.function, call.arguments)
            listed = parse_rendered(error or text)
            if listed is not None:
                self._see(listed)
            elif error is None and call is not None:
                self._apply_own_op(call.function, call.arguments, text)
            if error is not None and self.rng.random() < self.p.repair:
                self.m.repair_now = True
            return
        step = self.m.inflight.pop(message.tool_call_id or "", None)
        if step is not None:
            exact = step in self.m.exact_steps and error is None
            # a failed step is taken as done: the agent moves on (outcome checks will tell)
            self._step_finished(step, exact)

    def _undo_store(self, function: str, args: dict[str, Any]) -> None:
        """Bookkeeping: a refused call left the store as it was."""
        m = self.m
        if function == "todo" and isinstance(m.undo.get("todo"), list):
            m.store = list(m.undo.pop("todo"))  # type: ignore[arg-type]
        elif function == "update_todo_status":
            prior = m.undo.pop(str(args.get("id", "")), None)
            if isinstance(prior, TodoItem) and m.store is not None:
                m.store = [prior if i.id == prior.id else i for i in m.store]

    def _apply_own_op(self, function: str, args: dict[str, Any], result: str) -> None:
        """A confirmed single op: the agent updates its memory as it intended the op."""
        m = self.m
        items = list(m.seen or [])
        target = str(args.get("id", ""))
        if function == "todo":  # a rewrite the tool accepted without showing the list back:
            # the agent knows the list it just wrote, as well as if it had been shown it
            self._see([TodoItem.model_validate(i) for i in args.get("items") or []])
            return
        held = self._store()  # bookkeeping: what the op did to the store, at the id it named
        if function == "add_todo":
            added = re.match(r"Added #(\S+):", result)
            if added:
                item = TodoItem(id=added.group(1), text=str(args.get("text", "")))
                items.append(item)
                m.store = [*held, item]
                if added.group(1).isdigit():
                    m.max_id = max(m.max_id, int(added.group(1)))
        elif function == "delete_todo":
            items = [i for i in items if i.id != m.intended.get(target, target)]
            m.store = [i for i in held if i.id != target]
        elif function == "rename_todo":
            text = str(args.get("new_text"))
            m.store = [i.model_copy(update={"text": text}) if i.id == target else i for i in held]
        elif function in ("update_todo_status", "rename_todo"):
            meant = m.intended.get(target, target)
            field_name, value = (
                ("status", args.get("status"))
                if function == "update_todo_status"
                else ("text", args.get("new_text"))
            )
            items = [
                i.model_copy(update={field_name: value}) if i.id == meant else i for i in items
            ]
        m.seen = items

    def _observe_user(self, text: str) -> None:
        m = self.m
        if text.startswith("<reminder>"):
            m.reminded = True
            return
        if text.startswith("Completion blocked"):
            # a refusal lists what is pending by title, or in the words of the agent's plan
            own = {
                subtask.id
                for line in re.findall(r"\[ \] (.+)", text)
                for subtask in self._understand(line.strip())
            }
            for subtask in self.s.subtasks:
                if f"[ ] {subtask.title}" in text or subtask.id in own:
                    m.forced.add(subtask.id)
                    m.exact_args.add(subtask.id)
                    m.work_done.discard(subtask.id)
                    m.steps_done -= set(self._step_ids(subtask.id))
                    m.verified_steps -= set(self._step_ids(subtask.id))
                    m.verified.discard(subtask.id)
            return
        if "Call the tool for real" in text:
            m.nudged = True
            return
        for turn in self.s.user_turns:
            if turn.message == text and turn.subtask:
                m.user_ops.append((turn.action, turn.subtask))
                if turn.action == "add":
                    m.added.append(turn.subtask)
                elif turn.action == "cancel":
                    m.cancelled.add(turn.subtask)
                    if any(i in m.steps_done for i in self._step_ids(turn.subtask)):
                        # its work is already done: revert it as the scenario says how
                        m.undo_queue.extend(
                            i
                            for i, step in enumerate(self.s.reference)
                            if step.subtask == turn.subtask and step.undo
                        )
                elif turn.action == "rename" and turn.new_text:
                    m.renamed[turn.subtask] = turn.new_text

    # -- beliefs -----------------------------------------------------------------
    def _step_ids(self, subtask_id: str) -> list[int]:
        return [
            i
            for i, step in enumerate(self.s.reference)
            if step.subtask == subtask_id and not step.undo
        ]

    def _step_finished(self, index: int, exact: bool) -> None:
        m = self.m
        m.steps_done.add(index)
        m.exact_steps.discard(index)
        if exact:
            m.verified_steps.add(index)
        order = [s.id for s in self.s.subtasks]
        subtask_id = self.s.reference[index].subtask
        if all(i in m.steps_done for i in self._step_ids(subtask_id)):
            verified = self._would_tick(subtask_id)
            # subtasks with no steps of their own finish with the one before them
            for later in order[order.index(subtask_id) :]:
                if later != subtask_id and self._step_ids(later):
                    break
                m.work_done.add(later)
                m.forced.discard(later)
                if verified:
                    m.verified.add(later)

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

    # -- deciding ----------------------------------------------------------------
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
            update = self._sync(granular, work[0].id if work else None)
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
            update = self._sync(granular, subtask.id)
        # like most tool-calling LLMs, it updates the list and starts the next step in one turn
        return _then(update, self._work(subtask, confusion))

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

    def _plan(self, granular: bool) -> Decision:
        plan = word_plan(self.s, self.p, self.rng)
        self.m.covers, self.m.omitted = plan.covers, set(plan.omitted)
        titles = plan.texts
        if granular:
            return Decision(calls=[("add_todo", {"text": t}) for t in titles])
        items = [
            {"id": str(i), "text": t, "status": "in_progress" if i == 1 else "pending"}
            for i, t in enumerate(titles, start=1)
        ]
        self.m.max_id = max(self.m.max_id, len(items))
        return Decision(calls=[("todo", {"items": items})])

    def _user_op(self, tools: set[str], granular: bool) -> Decision:
        action, subtask_id = self.m.user_ops[0]
        subtask = self.s.subtask(subtask_id)
        item = next((i for i, s, _ in self._believed_all() if s.id == subtask_id), None)
        explicit = {"add": "add_todo", "cancel": "delete_todo", "rename": "rename_todo"}
        tool = explicit.get(action)
        self.m.user_ops.pop(0)
        if tool in tools:
            if action == "add":
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
        return self._sync(granular, work[0].id if work else None)

    def _believed_all(self) -> list[tuple[TodoItem, Subtask, tuple[str, str] | None]]:
        """Every remembered item that the agent can tie to a subtask, duplicates included."""
        out = []
        for item in self.memory_list():
            for subtask, confusion in self._resolve(item.text):
                out.append((item, subtask, confusion))
        return out

    def _work(self, subtask: Subtask, confusion: tuple[str, str] | None) -> Decision:
        m = self.m
        index = next(i for i in self._step_ids(subtask.id) if i not in m.steps_done)
        step = self.s.reference[index]
        args = _confuse(step.args, confusion) if confusion else dict(step.args)
        faults: list[Fault] = []
        # a wrong result still satisfies the subtask's rule; a confusion does not
        exact = confusion is None or args == step.args
        if self.rng.random() < self.p.wrong_result:
            corrupted = _corrupt(step)
            if corrupted is not None:
                args = corrupted
                m.corrupted_steps.add(index)
                faults.append(Fault("wrong_result", None, 0, f"{step.tool} {step.args}"))
        if not m.nudged and self.rng.random() < self.p.prose_call:
            body = json.dumps({"name": step.tool, "arguments": args})
            return Decision(
                text=f"Next I will run this tool:\n```json\n{body}\n```",
                faults=[Fault("prose_call", "fake_tool_calls", None, step.tool)],
            )
        m.nudged = False
        if exact:
            m.exact_steps.add(index)
        return Decision(calls=[(step.tool, args)], faults=faults, step=index)

    # -- todo updates ------------------------------------------------------------
    def _sync(self, granular: bool, current: str | None) -> Decision:
        m = self.m
        m.repair_now = False
        m.reminded = False
        if granular:
            return self._sync_granular(current)
        return self._rewrite(current)

    def _sync_granular(self, current: str | None) -> Decision:
        """Single ops by id: demote, then complete, then start the current item."""
        m = self.m
        calls: list[Call] = []
        faults: list[Fault] = []
        existing = {i.id: i for i in self._store()}
        m.undo = {}
        wanted: list[tuple[TodoItem, str]] = []
        for item, subtask, _ in self._believed():
            if item is None and (subtask.id not in m.omitted or subtask.id in m.forced):
                calls.append(("add_todo", {"text": subtask.title}))
        for item, ids in self._items():
            want = self._item_status(ids, current)
            if want != item.status:
                wanted.append((item, want))
        order = {"pending": 0, "completed": 1, "in_progress": 2}
        for item, want in sorted(wanted, key=lambda pair: order[pair[1]]):
            target = item.id
            if self.rng.random() < self._p(self.p.wrong_id):
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

    def _store(self) -> list[TodoItem]:
        """Bookkeeping: the store as the agent's own calls left it (else the list it saw)."""
        return list(self.m.store if self.m.store is not None else self.m.seen or [])

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

    def _rewrite(self, current: str | None) -> Decision:
        """Rewrite the whole list from memory, with recall faults that grow with staleness."""
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
        for subtask_id in [*m.added, *sorted(m.forced)]:
            if subtask_id not in believed_ids and subtask_id not in m.cancelled:
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
            return Decision()  # nothing to change
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
        return Decision(calls=[("todo", {"items": payload})], faults=faults)

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


_TODO_TOOLS = {"todo", "add_todo", "update_todo_status", "rename_todo", "delete_todo", "list_todos"}


def _then(first: Decision, second: Decision) -> Decision:
    """Both decisions' calls in one assistant turn (a text-only turn stands alone)."""
    if not first.calls:
        return second
    if not second.calls:
        return first
    offset = len(first.calls)
    shifted = [
        Fault(f.kind, f.metric, None if f.call is None else f.call + offset, f.detail)
        for f in second.faults
    ]
    return Decision(
        calls=[*first.calls, *second.calls],
        faults=[*first.faults, *shifted],
        step=second.step,
        step_call=(second.step_call or 0) + offset,
    )


def _confuse(args: dict[str, Any], confusion: tuple[str, str]) -> dict[str, Any]:
    original, confused = confusion
    return {k: v.replace(original, confused) if isinstance(v, str) else v for k, v in args.items()}


def _corrupt(step: Step) -> dict[str, Any] | None:
    """A subtly wrong version of a step that still satisfies its completion rule."""
    args = dict(step.args)
    rows = args.get("rows")
    if step.tool in ("create_excel", "write_csv") and isinstance(rows, list) and len(rows) > 2:
        args["rows"] = rows[:-1]
        return args
    if step.tool == "create_excel" and args.get("from_workspace_files"):
        args["from_workspace_files"] = False
        args["rows"] = [["file"]]
        return args
    if step.tool == "write_file" and isinstance(args.get("content"), str):
        lines = args["content"].splitlines(keepends=True)
        args["content"] = "".join(lines[:-1]) if len(lines) > 1 else args["content"].lower()
        return args if args["content"] != step.args["content"] else None
    return None
