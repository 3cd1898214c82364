"""How a todo's text is tied to a scenario's subtasks, and when two todo texts are the same item.

Matching is on word tokens, never substrings (`read` does not match `README`, `api` does not
match `Capitalise`). A text is split on whitespace, punctuation and `/`; a file name stays one
token (`report_v1.csv`, and its stem `report_v1`), so near-duplicates such as `report_v1.csv`
and `report-v1.csv` never match each other; other words are lower-cased, split at `_` and `-`
as well as kept whole, and reduced to their singular (`files` -> `file`). A subtask matches a
text when every word of its `keywords` is a token of the text, or every word of one of its
`aliases` is. A text may match several subtasks (a todo that covers two steps).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Protocol, TypeVar

#: a file-like token: a name, a dot, a short extension
_FILE = re.compile(r"[\w][\w.-]*\.[a-z0-9]{1,5}")
#: word separators; `.`, `_`, `-` and `/` are handled per piece
_SPLIT = re.compile(r"[\s,;:!?()\[\]{}'\"`<>|*=+#~]+")
_WORD = re.compile(r"[^a-z0-9]+")
#: two texts of one item are "related" (a rewording, not a new item) from these thresholds on
SIMILAR_RATIO = 0.6
SIMILAR_JACCARD = 0.5


class Matchable(Protocol):
    """What the matcher needs of a subtask."""

    @property
    def id(self) -> str: ...

    @property
    def keywords(self) -> list[str]: ...

    @property
    def aliases(self) -> list[str]: ...


def singular(word: str) -> str:
    """A crude English singular, enough for todo texts (`files`, `categories`, `totals`)."""
    if not word.isalpha() or len(word) <= 3:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@lru_cache(maxsize=4096)
def tokens(text: str) -> frozenset[str]:
    """The normalised tokens of a text (see the module docstring)."""
    out: set[str] = set()
    for chunk in _SPLIT.split(text.lower()):
        for piece in chunk.split("/"):
            piece = piece.strip(".-_")
            if not piece:
                continue
            if _FILE.fullmatch(piece):
                out.add(piece)
                out.add(piece.rsplit(".", 1)[0])
                continue
            out.add(piece)
            out.update(singular(w) for w in _WORD.split(piece) if w)
    return frozenset(out)


def phrase_words(phrase: str) -> list[str]:
    """A keyword or alias as the tokens that must all be present (none: it can match nothing)."""
    words = []
    for chunk in _SPLIT.split(phrase.lower()):
        chunk = chunk.strip(".-_/")
        if not chunk:
            continue
        words.append(chunk if _FILE.fullmatch(chunk) or not chunk.isalpha() else singular(chunk))
    return words


def phrase_in(phrase: str, text_tokens: frozenset[str]) -> bool:
    words = phrase_words(phrase)
    return bool(words) and all(w in text_tokens for w in words)


def matches(text: str, subtask: Matchable) -> bool:
    """Does a todo text name this subtask (all keywords, or all words of one alias)?"""
    found = tokens(text)
    if all(phrase_in(k, found) for k in subtask.keywords):
        return True
    return any(phrase_in(alias, found) for alias in subtask.aliases)


S = TypeVar("S", bound=Matchable)


def match_subtasks(text: str, subtasks: Sequence[S]) -> list[S]:
    """Every subtask a todo text names, in scenario order."""
    return [s for s in subtasks if matches(text, s)]


def related(old: str, new: str, subtasks: Iterable[Matchable] = ()) -> bool:
    """Is `new` a rewording of `old` (the same item) rather than an unrelated item?

    When both texts name subtasks, they are related exactly when they name a common one.
    Otherwise they are related when their character similarity (difflib ratio, case-insensitive)
    is at least 0.6, or their token sets overlap by at least half (Jaccard).
    """
    a, b = old.strip().lower(), new.strip().lower()
    if a == b:
        return True
    pool = list(subtasks)
    named_old = {s.id for s in pool if matches(old, s)}
    named_new = {s.id for s in pool if matches(new, s)}
    if named_old and named_new:
        # subtask identity beats spelling: note_01 and note_02 are different items
        return bool(named_old & named_new)
    if SequenceMatcher(None, a, b).ratio() >= SIMILAR_RATIO:
        return True
    ta, tb = tokens(old), tokens(new)
    union = ta | tb
    return bool(union) and len(ta & tb) / len(union) >= SIMILAR_JACCARD
