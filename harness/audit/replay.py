"""Counterfactual replay: real agents' todo lists driven through every design's backend.

Each transition of an audited session (two consecutive lists) is replayed on its own: the design's
store is set to the list before, and the list after is sent the way an agent using that design
would send it: one full rewrite for designs with a rewrite tool (with the ids the store holds for
L0-L2, in the product's own format for the id-less products), or the single operations that turn
one list into the other for granular designs (L3/L4's add/update/rename/delete, `cc-tasks`'
TaskCreate/TaskUpdate). Per design it reports what the design did with the audit's changes:
- `caught`: unsanctioned drops and rewordings the design refused;
- `explicit`: unsanctioned drops and rewordings that need a call of their own in the design (a
  granular design cannot lose or reword an item by omission: the agent has to ask for it);
- `friction`: sanctioned changes (a user message came between) the design refused, and the extra
  calls an agent would need to make them (the explicit tool, then the list again);
- `rejected`: refused calls of any kind (caps and format rules included), and the todo tokens
  the translation costs (the simulated agent's token estimate for a tool call's arguments).
What a replay cannot show: a real agent would have reacted to a refusal (retried, renamed,
deleted explicitly, or given up); these counts are what each design would have refused or made
explicit on the first try, not how the session would have gone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from tabulate import tabulate

from harness.audit.model import Change
from harness.audit.score import READS, judge, pair
from harness.models.sim import billing
from harness.products.catalog import PRODUCTS
from harness.products.session_record import Event, Item, TodoState, UserMessage
from harness.todo.base import MAX_ITEMS, STATUSES, TodoItem, TodoRejected, TodoStore
from harness.todo.dialects import classic_names, to_product
from harness.todo.registry import designs
from harness.todo.variants import Variant

#: the categories a design can catch
WATCHED = ("dropped", "reworded")
_ADDED_ID = re.compile(r"(?:Added #|Task #)(\w+)")


class DesignReplay(BaseModel):
    """One design's totals over the replayed transitions."""

    design: str
    transitions: int = 0
    calls: int = 0
    rejected: int = 0
    todo_tokens: int = 0
    unsanctioned: dict[str, int] = Field(default_factory=lambda: dict.fromkeys(WATCHED, 0))
    caught: dict[str, int] = Field(default_factory=lambda: dict.fromkeys(WATCHED, 0))
    explicit: dict[str, int] = Field(default_factory=lambda: dict.fromkeys(WATCHED, 0))
    sanctioned_changes: int = 0
    friction: int = 0
    friction_calls: int = 0
    #: transitions whose list is longer than the design's cap (the harness's 20 unless uncapped)
    over_cap: int = 0


class Step(BaseModel):
    """One transition to replay: the lists, and whether the user spoke between them."""

    before: list[Item]
    after: list[Item]
    keyed: bool
    sanctioned: bool


def steps(events: Iterable[Event]) -> list[Step]:
    """The transitions of a session's events, as the audit sees them (reads resynchronise)."""
    out: list[Step] = []
    previous: TodoState | None = None
    heard = False
    for event in events:
        if isinstance(event, UserMessage):
            heard = True
        elif isinstance(event, TodoState):
            if event.tool in READS:
                previous = event if event.items or previous is None else previous
                continue
            if previous is not None:
                keyed = previous.keyed and event.keyed
                out.append(
                    Step(before=previous.items, after=event.items, keyed=keyed, sanctioned=heard)
                )
            previous, heard = event, False
    return out


def _status(value: str) -> str:
    value = value.strip().lower()
    return value if value in STATUSES else "pending"


class _Driver:
    """One design's store, set to a list and sent the next one."""

    def __init__(self, variant: Variant) -> None:
        self.cls = designs()[variant.design]
        # built as the harness builds it (harness.episode.loop), so its caps are the benchmark's
        self.cap = None if variant.has("uncapped") else MAX_ITEMS
        self.specs = {spec.name: spec for spec in self.cls.tool_specs()}
        self.offered = set(self.specs)
        self.granular = "todo" not in classic_names(self.offered)

    def seed(self, items: list[Item], keyed: bool) -> tuple[TodoStore, dict[int, str]]:
        store = self.cls(self.cap)
        if not keyed or any(not i.key for i in items):
            ids = [str(n) for n in range(1, len(items) + 1)]
        else:
            ids = [str(i.key) for i in items]
        store._replace(
            [
                TodoItem(id=k, text=i.text, status=_status(i.status))
                for k, i in zip(ids, items, strict=True)
            ]
        )
        return store, {id(i): k for k, i in zip(ids, items, strict=True)}

    def call(self, store: TodoStore, name: str, args: dict[str, Any]) -> tuple[bool, str, int]:
        """(accepted, result, tokens) of one call, the store left as it was on a refusal."""
        name, args = to_product((name, args), self.offered)
        cost = billing.reply_tokens(
            billing.Parts(call_chars=len(json.dumps(args, ensure_ascii=False)))
        )
        spec = self.specs.get(name)
        if spec is None:
            return False, "", cost
        saved = store.snapshot()
        try:
            result = spec.run(store, args)
            if store.problems() is not None:
                raise TodoRejected(store.problems() or "")
        except (TodoRejected, KeyError, TypeError, ValueError):
            store.restore(saved)
            return False, "", cost
        return True, result, cost


def replay(sessions: Iterable[list[Step]], variants: list[Variant]) -> list[DesignReplay]:
    """Every design's totals over every session's transitions."""
    all_steps = [step for session in sessions for step in session]
    return [_replay_design(all_steps, variant) for variant in variants]


def _replay_design(all_steps: list[Step], variant: Variant) -> DesignReplay:
    driver = _Driver(variant)
    out = DesignReplay(design=variant.label)
    for step in all_steps:
        before = TodoState(tool="replay", items=step.before, keyed=step.keyed)
        after = TodoState(tool="replay", items=step.after, keyed=step.keyed)
        changes = judge(before, after)
        if not changes and [(i.text, i.status) for i in step.before] == [
            (i.text, i.status) for i in step.after
        ]:
            continue  # a no-op: nothing to send
        out.transitions += 1
        store, ids = driver.seed(step.before, step.keyed)
        cap = store.max_items
        out.over_cap += cap is not None and max(len(step.before), len(step.after)) > cap
        refused = _send(driver, store, ids, before, after, out)
        for change in changes:
            if step.sanctioned:
                out.sanctioned_changes += 1
                if refused(change):
                    out.friction += 1
                    out.friction_calls += 2 if not driver.granular else 1
            elif change.category in WATCHED:
                out.unsanctioned[change.category] += 1
                if refused(change):
                    out.caught[change.category] += 1
                elif driver.granular:
                    out.explicit[change.category] += 1
    return out


def _send(
    driver: _Driver,
    store: TodoStore,
    ids: dict[int, str],
    before: TodoState,
    after: TodoState,
    out: DesignReplay,
) -> Callable[[Change], bool]:
    """Send the list after; returns a predicate: was this change refused?"""
    pairs, removed, added = pair(before, after)
    if not driver.granular:
        next_id = max([int(k) for k in ids.values() if k.isdigit()] or [0]) + 1
        rows = []
        for a, b in pairs:
            rows.append({"id": ids[id(a)], "text": b.text, "status": _status(b.status)})
        for b in added:
            rows.append({"id": str(next_id), "text": b.text, "status": _status(b.status)})
            next_id += 1
        ok, _, cost = driver.call(store, "todo", {"items": rows})
        out.calls, out.todo_tokens, out.rejected = (
            out.calls + 1,
            out.todo_tokens + cost,
            out.rejected + (not ok),
        )
        return lambda change: not ok
    refused_texts: set[tuple[str, str]] = set()

    def send(name: str, args: dict[str, Any], change: Change | None) -> str | None:
        ok, result, cost = driver.call(store, name, args)
        out.calls, out.todo_tokens, out.rejected = (
            out.calls + 1,
            out.todo_tokens + cost,
            out.rejected + (not ok),
        )
        if not ok and change is not None:
            refused_texts.add((change.category, change.text))
        return result if ok else None

    for a in removed:
        category = "completed_removed" if a.status == "completed" else "dropped"
        send("delete_todo", {"id": ids[id(a)]}, Change(category=category, text=a.text))
    for a, b in pairs:
        if a.text != b.text:
            send(
                "rename_todo",
                {"id": ids[id(a)], "new_text": b.text},
                Change(category="reworded", text=a.text),
            )
        if _status(a.status) != _status(b.status):
            send("update_todo_status", {"id": ids[id(a)], "status": _status(b.status)}, None)
    for b in added:
        result = send("add_todo", {"text": b.text}, Change(category="added", text=b.text))
        found = _ADDED_ID.search(result or "")
        if found and _status(b.status) != "pending":
            send("update_todo_status", {"id": found.group(1), "status": _status(b.status)}, None)
    return lambda change: (change.category, change.text) in refused_texts


#: the designs a replay compares: L4 sends L3's calls (injection and the gate act on prompts
#: and endings, not on the list), so L3 stands for both; then every shipping product's design
#: (`harness/products/`) and inspect-ai's own tool
DEFAULT = (
    "L0-rewrite",
    "L1-textlock",
    "L2-whitelist",
    "L3-granular",
    *dict.fromkeys(p.design for p in PRODUCTS.values()),
    "inspect-todo_write",
)


class Ending(BaseModel):
    """How the sessions whose logs hold the agent's last message ended."""

    sessions: int
    with_reply: int
    claimed_done: int
    claimed_with_unfinished: int


class ReplayReport(BaseModel):
    sessions: int
    designs: list[DesignReplay]
    endings: Ending


def run_replay(paths: list[Path], variants: list[Variant]) -> ReplayReport:
    """Replay every readable session of these files through every design."""
    from harness.episode.ending import classify_ending
    from harness.products.reading import RecordError
    from harness.sessions.readers import final_reply, read

    sessions: list[list[Step]] = []
    reply = claimed = unfinished = 0
    for path in paths:
        try:
            _, found = read(path)
            per_file = [steps(events) for _, events in found]
            last = final_reply(path)
        except (RecordError, OSError, ValueError, TypeError, KeyError):
            continue
        sessions.extend(per_file)
        if last is not None:
            reply += 1
            if classify_ending(last) == "claimed_done":
                claimed += 1
                last_steps = per_file[-1] if per_file else []
                items = last_steps[-1].after if last_steps else []
                unfinished += any(i.status != "completed" for i in items)
    ending = Ending(
        sessions=len(sessions),
        with_reply=reply,
        claimed_done=claimed,
        claimed_with_unfinished=unfinished,
    )
    return ReplayReport(sessions=len(sessions), designs=replay(sessions, variants), endings=ending)


def render(report: ReplayReport, fmt: str = "md") -> str:
    if fmt == "json":
        return report.model_dump_json(indent=2) + "\n"
    rows = []
    for d in report.designs:
        unasked = sum(d.unsanctioned.values())
        rows.append(
            [
                d.design,
                d.transitions,
                f"{sum(d.caught.values())}/{unasked}",
                f"{sum(d.explicit.values())}/{unasked}",
                f"{d.friction}/{d.sanctioned_changes}",
                d.friction_calls,
                d.rejected,
                d.over_cap,
                d.calls,
                d.todo_tokens,
            ]
        )
    headers = ["design", "transitions", "caught", "explicit", "friction", "extra calls"]
    headers += ["rejected calls", "over cap", "calls", "todo tokens"]
    e = report.endings
    note = (
        f"{report.sessions} sessions replayed, each transition on its own (the store set to the "
        "list before, the list after sent as the design's calls). caught: unsanctioned drops and "
        "rewordings refused; explicit: those a granular design needs a call for (no loss by "
        "omission); friction: sanctioned changes refused, and the calls an agent would add to "
        "make them; over cap: transitions whose list exceeds the design's 20-item cap. A real "
        "agent would have reacted to a refusal: these are first-try counts.\n\n"
        f"Endings: {e.with_reply} of {e.sessions} session logs hold the agent's last message; "
        f"{e.claimed_done} read as a claim of completion (harness/episode/ending.py), "
        f"{e.claimed_with_unfinished} of them with unfinished items on the list (what the "
        "completion gate would refuse)."
    )
    table = tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)
    return f"{note}\n\n{table}\n"
