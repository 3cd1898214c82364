"""Ids for products whose lists carry none: an item keeps its id while its text stays the same or
is reworded (the matcher's relatedness rule); a text unlike any before gets a new id.

The rule, in order: each new text takes the first stored item (in stored order) of exactly the
same text; then each text still without an id, in list order, takes among the remaining stored
items the related one (`harness.matcher.related`) of the highest difflib ratio, the first of
equals. The work is linear for exact matches (an index by text) and compares only the texts
left over, each pair behind cheap bounds that cannot change the answer (token overlap, then
difflib's own upper bounds `real_quick_ratio` and `quick_ratio`), so a list that keeps most of
its items costs about its length. A list that rewords every item still compares every pair.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from difflib import SequenceMatcher

from harness.matcher import SIMILAR_JACCARD, SIMILAR_RATIO, tokens
from harness.todo.base import TodoItem


@dataclass(frozen=True)
class _Text:
    """One text with what every comparison of it needs, computed once."""

    text: str
    folded: str  # stripped and lower-cased: the relatedness rule's form
    lower: str  # lower-cased only: the ranking's form
    words: frozenset[str]

    @classmethod
    def of(cls, text: str) -> _Text:
        # matcher.tokens is cached, but only for 4,096 texts; a long list is read once here
        return cls(text, text.strip().lower(), text.lower(), tokens(text))


def assign_ids(current: list[TodoItem], texts: list[str], next_id: int) -> tuple[list[str], int]:
    """Ids for a new list of texts, given the stored list; returns them and the next free id."""
    free = {item.id: item.text for item in current}
    by_text: dict[str, deque[str]] = {}
    for item_id, text in free.items():
        by_text.setdefault(text, deque()).append(item_id)
    ids: list[str | None] = [None] * len(texts)
    for position, text in enumerate(texts):  # identical texts first
        queue = by_text.get(text)
        if queue:
            ids[position] = match = queue.popleft()
            del free[match]
    left = {item_id: _Text.of(text) for item_id, text in free.items()}
    for position, text in enumerate(texts):  # then the closest rewording
        if ids[position] is None and left:
            best = _closest(left, _Text.of(text))
            if best is not None:
                ids[position] = best
                del left[best]
    out = []
    for value in ids:
        if value is None:
            value = str(next_id)
            next_id += 1
        out.append(value)
    return out, next_id


def _closest(left: dict[str, _Text], new: _Text) -> str | None:
    """The stored item `new` rewords: of the related ones the highest ratio, the first of
    equals; None if none is related. The same answer as testing `related` on every item."""
    related = SequenceMatcher(None, "", new.folded)  # seq2 fixed: its index is built once
    ranking = SequenceMatcher(None, "", new.lower)
    best: str | None = None
    best_ratio = -1.0
    for item_id, old in left.items():
        if not _related(old, new, related):
            continue
        if old.lower == old.folded and new.lower == new.folded:
            matcher = related  # the same strings: its ratio is the ranking's
        else:
            ranking.set_seq1(old.lower)
            matcher = ranking
        # a later item replaces the best only when strictly higher, so a bound that cannot
        # exceed the best skips it without changing the answer
        if matcher.real_quick_ratio() <= best_ratio or matcher.quick_ratio() <= best_ratio:
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best, best_ratio = item_id, ratio
    return best


def _related(old: _Text, new: _Text, matcher: SequenceMatcher[str]) -> bool:
    """`harness.matcher.related(old, new)` without subtasks, cheapest test first; `matcher`
    has `new.folded` as its second sequence and is left with `old.folded` as its first."""
    matcher.set_seq1(old.folded)
    if old.folded == new.folded:
        return True
    union = old.words | new.words
    if union and len(old.words & new.words) / len(union) >= SIMILAR_JACCARD:
        return True
    return (
        matcher.real_quick_ratio() >= SIMILAR_RATIO
        and matcher.quick_ratio() >= SIMILAR_RATIO
        and matcher.ratio() >= SIMILAR_RATIO
    )
