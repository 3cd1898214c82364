"""The end-of-episode classifier on hand-labelled final messages: a development set the rules
were written against (`tests/data/endings.yaml`) and a held-out set written after they were
frozen (`tests/data/endings_heldout.yaml`). The README's table of precision and recall is pinned
here: a change to `harness/episode/ending.py` that moves a number must update the README with it."""

from __future__ import annotations

import pytest
import yaml

from harness.episode.ending import Ending, classify_ending
from tests.helpers import DATA

LABELS: tuple[Ending, ...] = ("claimed_done", "gave_up", "asked_user")


def corpus(name: str) -> list[dict[str, str]]:
    rows = yaml.safe_load((DATA / name).read_text(encoding="utf-8"))
    assert isinstance(rows, list)
    return rows


DEV, HELD_OUT = corpus("endings.yaml"), corpus("endings_heldout.yaml")


def precision_recall(rows: list[dict[str, str]]) -> dict[str, tuple[int, int, int]]:
    """Per label: (true positives, predicted, labelled)."""
    got = [(row["label"], classify_ending(row["text"])) for row in rows]
    return {
        label: (
            sum(t == p == label for t, p in got),
            sum(p == label for _, p in got),
            sum(t == label for t, _ in got),
        )
        for label in LABELS
    }


def test_the_sets_are_large_and_cover_every_label_and_language() -> None:
    assert len(DEV) + len(HELD_OUT) >= 150 and len(HELD_OUT) >= 40
    for rows in (DEV, HELD_OUT):
        assert {row["label"] for row in rows} == set(LABELS)
    texts = " ".join(row["text"] for row in DEV)
    for marker in ("完成", "excepto", "sauf", "nicht"):  # Chinese, Spanish, French, German
        assert marker in texts


def test_precision_and_recall_as_published() -> None:
    # README "How an episode ends" states these counts; update both together
    assert precision_recall(DEV) == {
        "claimed_done": (62, 62, 62),
        "gave_up": (62, 62, 62),
        "asked_user": (25, 25, 25),
    }
    assert precision_recall(HELD_OUT) == {
        "claimed_done": (15, 18, 16),
        "gave_up": (12, 13, 15),
        "asked_user": (10, 10, 10),
    }


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("I could NOT finish: test.py is missing", "gave_up"),
        ("I did not write test.py.", "gave_up"),
        ("I have written main.py but have not yet written test.py.", "gave_up"),
        ("Everything is in place except test.py.", "gave_up"),
        ("I created 12 of the 15 notes.", "gave_up"),
        ("main.py 已写好，但还没有写 test.py。", "gave_up"),
        ("Done.", "claimed_done"),
        ("All done. Anything else?", "claimed_done"),
        ("All done. Would you like me to add tests?", "claimed_done"),
        ("I checked the work and I was not able to find any problems.", "claimed_done"),
        ("All files are written. I did not run the tests.", "claimed_done"),
        ("Done. I didn't add any extra dependencies.", "claimed_done"),
        ("Task complete (3/3 completed).", "claimed_done"),
        ("Should I create test.py?", "asked_user"),
        ("I wrote main.py. Should I also write test.py?", "asked_user"),
        ("I could not find test.py. Do you want me to create it?", "asked_user"),
        ("", "claimed_done"),
    ],
)
def test_each_class_fires_and_does_not(text: str, label: str) -> None:
    assert classify_ending(text) == label
