"""Scoring a session's list integrity, transition by transition, with the benchmark's definitions.

Two consecutive lists are aligned item by item: by id where the product has ids (Claude Code's
tasks, the harness's granular stores), otherwise by text: identical texts first, then an optimal
one-to-one assignment (scipy's `linear_sum_assignment`, most similar first) among the remaining
pairs that are rewordings by the benchmark's rule (`harness.matcher.related`: difflib ratio >= 0.6
or token overlap >= 0.5). A completed item is never paired by similarity with an unfinished one:
"Review the X section" done and "Update the X section" to do are two items (one removed, one
added), not a rewording that was un-done. Then, per transition:
- `dropped`: an unfinished item is gone; `completed_removed`: a completed one is gone;
- `reworded`: an item's text changed; `status_regressions`: the same item (same id, or same
  text) went from completed back to pending or in progress in a continuing list (when the only
  items two text lists share are such, the list is a new one: a generic step such as "Run the
  tests" repeated in the next task's list is a new item); `added`: an item that matches none
  before.
Each counts as sanctioned when a user message came between the two calls (the user may have
asked for it); a transition that replaces the whole list after a user message is a reset (a new
task). Transitions after a compaction are flagged, and a list sent again unchanged is a no-op.
A read (`TaskList`, `TaskGet`, `list_todos`) is no transition: it only updates the list the next
change is judged against (a list resumed from before the log, or shared with a team).
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import SequenceMatcher

import numpy as np
from scipy.optimize import linear_sum_assignment

from harness.audit.model import CATEGORIES, Change, SessionAudit, Transition
from harness.matcher import related
from harness.products.catalog import TODO_READS
from harness.products.session_record import (
    TASK_ISSUES,
    Compaction,
    Event,
    Item,
    Note,
    TaskIssue,
    TodoState,
    UserMessage,
)
from harness.todo.specs import CLASSIC_READS

#: todo calls that read the list: counted as calls, never as transitions
READS = TODO_READS | CLASSIC_READS


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
    for a, b in _reworded(left, right):
        take(a, b)
    return pairs, left, right


def _reworded(left: list[Item], right: list[Item]) -> list[tuple[Item, Item]]:
    """The one-to-one pairing of rewordings with the greatest total similarity."""
    if not left or not right:
        return []
    # an un-paired cell costs more than any pair can save, so it is never chosen
    similarity = np.zeros((len(left), len(right)))
    allowed = np.zeros((len(left), len(right)), dtype=bool)
    for i, a in enumerate(left):
        for j, b in enumerate(right):
            if a.status == "completed" and b.status != "completed":
                continue  # a done item and a new item to do are two items
            if related(a.text, b.text):
                allowed[i, j] = True
                similarity[i, j] = SequenceMatcher(None, a.text.lower(), b.text.lower()).ratio()
    if not allowed.any():
        return []
    rows, cols = linear_sum_assignment(np.where(allowed, -(1.0 + similarity), 0.0))
    return [(left[i], right[j]) for i, j in zip(rows, cols, strict=True) if allowed[i, j]]


def pair(
    before: TodoState, after: TodoState
) -> tuple[list[tuple[Item, Item]], list[Item], list[Item]]:
    """`align`, then the rule for a new list: when every item the two lists share by text was
    completed and is unfinished again ("Run tests and lint" in the next task's list), nothing
    continues: those are a finished item removed and a new one added, not regressions."""
    pairs, removed, added = align(before.items, after.items, before.keyed and after.keyed)
    undone = [(a, b) for a, b in pairs if _undone(a, b)]
    if undone and len(undone) == len(pairs) and not (before.keyed and after.keyed):
        return [], [*removed, *(a for a, _ in undone)], [*added, *(b for _, b in undone)]
    return pairs, removed, added


def _undone(a: Item, b: Item) -> bool:
    return a.status == "completed" and b.status in ("pending", "in_progress")


def judge(before: TodoState, after: TodoState) -> list[Change]:
    pairs, removed, added = pair(before, after)
    changes: list[Change] = []
    for a, b in pairs:
        if a.text != b.text:
            changes.append(Change(category="reworded", text=a.text, detail=b.text))
        if _undone(a, b) and (a.key is not None or a.text == b.text):
            changes.append(Change(category="status_regressions", text=b.text, detail=b.status))
    for a in removed:
        category = "completed_removed" if a.status == "completed" else "dropped"
        changes.append(Change(category=category, text=a.text, detail=a.status))
    changes.extend(Change(category="added", text=b.text) for b in added)
    return changes


def audit_events(events: Iterable[Event], path: str, fmt: str, session: str) -> SessionAudit:
    """Score one session from its events (consumed once, in order)."""
    result = SessionAudit(path=path, format=fmt, session=session)
    counts = dict.fromkeys(count_keys(), 0)
    tally: dict[str, int] = {}
    previous: TodoState | None = None
    heard = compacted = False
    for event in events:
        if isinstance(event, UserMessage):
            heard = True
            continue
        if isinstance(event, Compaction):
            compacted = True
            continue
        if isinstance(event, TaskIssue):
            counts[event.issue] += 1
            result.todo_calls += event.calls
            tally[event.issue] = tally.get(event.issue, 0) + event.calls
            continue
        if isinstance(event, Note):
            result.notes.append(event.text)
            continue
        result.todo_calls += event.calls
        tally[event.tool] = tally.get(event.tool, 0) + event.calls
        if event.tool in READS:
            # what the product showed is the list the next change is judged against
            previous = event if event.items or previous is None else previous
            continue
        if previous is not None:
            changes = judge(previous, event)
            same = [(i.key, i.text, i.status) for i in previous.items] == [
                (i.key, i.text, i.status) for i in event.items
            ]
            kept = len(pair(previous, event)[0])
            transition = Transition(
                index=len(result.transitions),
                call=result.todo_calls - 1,
                before_items=len(previous.items),
                before_unfinished=sum(i.status != "completed" for i in previous.items),
                changes=changes,
                sanctioned=heard,
                reset=heard and bool(previous.items) and kept == 0,
                after_compaction=compacted,
                no_op=same,
                keyed=previous.keyed and event.keyed,
            )
            result.transitions.append(transition)
            for change in changes:
                side = "sanctioned" if heard else "unsanctioned"
                counts[f"{change.category}_{side}"] += 1
                counts[f"{change.category}_total"] += 1
            result.no_ops += same
            result.after_compaction += compacted
        previous = event
        heard = compacted = False
    result.counts = counts
    result.calls_by_tool = tally
    return result


def count_keys() -> list[str]:
    """Every key of a session's `counts`: each category unsanctioned, sanctioned and in total,
    then the Task-tool issues."""
    keys = [f"{c}_{side}" for c in CATEGORIES for side in ("unsanctioned", "sanctioned", "total")]
    return [*keys, *TASK_ISSUES]


def totals(sessions: Iterable[SessionAudit]) -> dict[str, int]:
    out: dict[str, int] = {"sessions": 0, "todo_calls": 0, "transitions": 0}
    out |= {"no_ops": 0, "after_compaction": 0} | dict.fromkeys(count_keys(), 0)
    for s in sessions:
        if s.error:
            continue
        out["sessions"] += 1
        out["todo_calls"] += s.todo_calls
        out["transitions"] += len(s.transitions)
        out["no_ops"] += s.no_ops
        out["after_compaction"] += s.after_compaction
        for key, value in s.counts.items():
            out[key] = out.get(key, 0) + value
    return out
