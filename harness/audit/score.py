"""Scoring a session's list integrity, transition by transition, with the benchmark's definitions.

Two consecutive lists are aligned item by item: by id where the product has ids (Claude Code's
tasks, the harness's granular stores), otherwise by text: identical texts first, then the most
similar remaining text that is a rewording by the benchmark's rule (`harness.matcher.related`:
difflib ratio >= 0.6 or token overlap >= 0.5). Then, per transition:
- `dropped`: an unfinished item is gone; `completed_removed`: a completed one is gone;
- `reworded`: an item's text changed; `status_regressions`: completed back to pending or
  in progress; `added`: an item that matches none before.
Each counts as sanctioned when a user message came between the two calls (the user may have
asked for it); a transition that replaces the whole list after a user message is a reset (a new
task). Transitions after a compaction are flagged, and a list sent again unchanged is a no-op.
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import SequenceMatcher

from harness.audit.model import (
    CATEGORIES,
    Change,
    Compaction,
    Event,
    Item,
    SessionAudit,
    TodoState,
    Transition,
    UserMessage,
)
from harness.matcher import related

#: todo calls that read the list: counted as calls, never as transitions
READS = frozenset({"TaskList", "TaskGet", "list_todos"})


def align(
    before: list[Item], after: list[Item], keyed: bool
) -> tuple[list[tuple[Item, Item]], list[Item], list[Item]]:
    """(pairs, removed, added) between two lists."""
    left, right = list(before), list(after)
    pairs: list[tuple[Item, Item]] = []

    def take(a: Item, b: Item) -> None:
        pairs.append((a, b))
        left.remove(a)
        right.remove(b)

    if keyed:
        for a in list(left):
            match = next((b for b in right if b.key == a.key), None)
            if match is not None:
                take(a, match)
        return pairs, left, right
    for a in list(left):
        match = next((b for b in right if b.text == a.text), None)
        if match is not None:
            take(a, match)
    for a in list(left):
        candidates = [b for b in right if related(a.text, b.text)]
        if candidates:
            best = max(
                candidates,
                key=lambda b: SequenceMatcher(None, a.text.lower(), b.text.lower()).ratio(),
            )
            take(a, best)
    return pairs, left, right


def judge(before: TodoState, after: TodoState) -> list[Change]:
    pairs, removed, added = align(before.items, after.items, before.keyed and after.keyed)
    changes: list[Change] = []
    for a, b in pairs:
        if a.text != b.text:
            changes.append(Change(category="reworded", text=a.text, detail=b.text))
        if a.status == "completed" and b.status in ("pending", "in_progress"):
            changes.append(Change(category="status_regressions", text=b.text, detail=b.status))
    for a in removed:
        category = "completed_removed" if a.status == "completed" else "dropped"
        changes.append(Change(category=category, text=a.text, detail=a.status))
    changes.extend(Change(category="added", text=b.text) for b in added)
    return changes


def audit_events(events: Iterable[Event], path: str, fmt: str, session: str) -> SessionAudit:
    """Score one session from its events (consumed once, in order)."""
    result = SessionAudit(path=path, format=fmt, session=session)
    counts = {c: 0 for c in CATEGORIES} | {f"{c}_sanctioned": 0 for c in CATEGORIES}
    previous: TodoState | None = None
    heard = compacted = False
    for event in events:
        if isinstance(event, UserMessage):
            heard = True
            continue
        if isinstance(event, Compaction):
            compacted = True
            continue
        result.todo_calls += event.calls
        if event.tool in READS:
            continue
        if previous is not None:
            changes = judge(previous, event)
            same = [(i.key, i.text, i.status) for i in previous.items] == [
                (i.key, i.text, i.status) for i in event.items
            ]
            kept = len(align(previous.items, event.items, previous.keyed and event.keyed)[0])
            transition = Transition(
                index=len(result.transitions),
                before_items=len(previous.items),
                before_unfinished=sum(i.status != "completed" for i in previous.items),
                changes=changes,
                sanctioned=heard,
                reset=heard and bool(previous.items) and kept == 0,
                after_compaction=compacted,
                no_op=same,
            )
            result.transitions.append(transition)
            for change in changes:
                key = f"{change.category}_sanctioned" if heard else change.category
                counts[key] += 1
            result.no_ops += same
            result.after_compaction += compacted
        previous = event
        heard = compacted = False
    result.counts = counts
    return result


def totals(sessions: Iterable[SessionAudit]) -> dict[str, int]:
    out: dict[str, int] = {"sessions": 0, "todo_calls": 0, "transitions": 0}
    for s in sessions:
        if s.error:
            continue
        out["sessions"] += 1
        out["todo_calls"] += s.todo_calls
        out["transitions"] += len(s.transitions)
        out["no_ops"] = out.get("no_ops", 0) + s.no_ops
        out["after_compaction"] = out.get("after_compaction", 0) + s.after_compaction
        for key, value in s.counts.items():
            out[key] = out.get(key, 0) + value
    return out
