"""Ids for products whose lists carry none: an item keeps its id while its text stays the same or
is reworded (the matcher's relatedness rule); a text unlike any before gets a new id."""

from __future__ import annotations

from difflib import SequenceMatcher

from harness.matcher import related
from harness.todo.base import TodoItem


def assign_ids(current: list[TodoItem], texts: list[str], next_id: int) -> tuple[list[str], int]:
    """Ids for a new list of texts, given the stored list; returns them and the next free id."""
    free = {item.id: item.text for item in current}
    ids: list[str | None] = [None] * len(texts)
    for position, text in enumerate(texts):  # identical texts first
        match = next((i for i, t in free.items() if t == text), None)
        if match is not None:
            ids[position] = match
            del free[match]
    for position, text in enumerate(texts):  # then the closest rewording
        if ids[position] is not None:
            continue
        candidates = [i for i, t in free.items() if related(t, text)]
        if candidates:
            best = max(
                candidates,
                key=lambda i: SequenceMatcher(None, free[i].lower(), text.lower()).ratio(),
            )
            ids[position] = best
            del free[best]
    out = []
    for value in ids:
        if value is None:
            value = str(next_id)
            next_id += 1
        out.append(value)
    return out, next_id
