"""Ids by text identity: the indexed rule gives exactly the answers of the rule as first written
(every pair compared, kept here as the reference), and a long list costs about its length."""

from __future__ import annotations

import random
import time
from difflib import SequenceMatcher

from harness.matcher import related
from harness.todo.base import TodoItem
from harness.todo.identity import assign_ids

WORDS = [
    "write",
    "read",
    "the",
    "report",
    "file",
    "test",
    "main.py",
    "README.md",
    "export",
    "sales",
    "summary",
    "notes",
    "a",
    "of",
    "for",
    "to",
    "fix",
    "Fix",
    "run",
    "tests",
    "data",
    "csv",
    "x",
    "report_v1.csv",
    "report-v1.csv",
    "categories",
    "category",
]


def reference(current: list[TodoItem], texts: list[str], next_id: int) -> tuple[list[str], int]:
    """The rule as first written (691d616): every text against every stored item."""
    free = {item.id: item.text for item in current}
    ids: list[str | None] = [None] * len(texts)
    for position, text in enumerate(texts):
        match = next((i for i, t in free.items() if t == text), None)
        if match is not None:
            ids[position] = match
            del free[match]
    for position, text in enumerate(texts):
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


def _text(rng: random.Random) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
    return words + rng.choice(["", " ", "  X", " 1", "2", "\t"])


def _edited(rng: random.Random, stored: list[TodoItem]) -> list[str]:
    texts = []
    for item in stored:
        roll = rng.random()
        if roll < 0.3:
            texts.append(item.text)
        elif roll < 0.55:
            texts.append(f"{item.text} {rng.choice(WORDS)}")
        elif roll < 0.65:
            texts.append(item.text.upper())
        elif roll < 0.75:
            texts.append(f" {item.text.lower()} ")
        elif roll < 0.85:
            continue  # dropped
        else:
            texts.append(_text(rng))
    rng.shuffle(texts)
    return texts + [_text(rng) for _ in range(rng.randint(0, 3))]


def test_the_indexed_rule_gives_the_references_ids_on_random_lists() -> None:
    rng = random.Random(57)
    for _ in range(2000):
        stored = [TodoItem(id=str(i), text=_text(rng)) for i in range(rng.randint(0, 12))]
        if stored and rng.random() < 0.2:  # duplicate texts and a duplicate id
            stored.append(TodoItem(id=str(len(stored) + 1), text=stored[0].text))
            stored.append(TodoItem(id=stored[0].id, text=_text(rng)))
        texts = _edited(rng, stored)
        assert assign_ids(stored, texts, 100) == reference(stored, texts, 100), (stored, texts)


def test_ties_go_to_the_first_stored_item_as_before() -> None:
    stored = [TodoItem(id="a", text="Write main.py"), TodoItem(id="b", text="Write main.py")]
    texts = ["Write main.py file", "write MAIN.py"]
    assert assign_ids(stored, texts, 1) == reference(stored, texts, 1) == (["a", "b"], 1)


def _template(count: int) -> list[str]:
    return [f"Write section {i} of the quarterly report for region {i % 7}" for i in range(count)]


def test_ten_thousand_items_with_ticks_and_a_few_edits_take_a_fraction_of_a_second() -> None:
    texts = _template(10_000)
    stored = [TodoItem(id=str(i + 1), text=t) for i, t in enumerate(texts)]
    sent = texts[::-1]  # reversed, as a reordering agent sends it
    sent[7] = "Write the section 9992 of the report"  # a rewording
    del sent[100]  # a drop
    sent.append("Brand new item")
    start = time.perf_counter()
    ids, _ = assign_ids(stored, sent, 10_001)
    # about 0.015 s; 691d616 took 1.4 s (each text scanned the stored list for its twin)
    assert time.perf_counter() - start < 0.5
    assert ids[7] == "9993" and ids[-1] == "10001"


def test_a_reworded_list_of_250_takes_under_two_seconds() -> None:
    texts = _template(250)
    stored = [TodoItem(id=str(i + 1), text=t) for i, t in enumerate(texts)]
    sent = [t.replace("Write section", "Write the section") for t in texts]
    start = time.perf_counter()
    ids, _ = assign_ids(stored, sent, 251)
    assert time.perf_counter() - start < 2.0  # 691d616: 5.3 s here; now about 0.35 s
    assert ids == [str(i + 1) for i in range(250)]


def test_a_reworded_list_of_60_matches_the_reference() -> None:
    texts = _template(60)
    stored = [TodoItem(id=str(i + 1), text=t) for i, t in enumerate(texts)]
    sent = [t.replace("region", "the region") for t in texts[::-1]]
    assert assign_ids(stored, sent, 61) == reference(stored, sent, 61)
