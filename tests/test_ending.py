"""The end-of-episode classifier on a labelled corpus of final messages."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from harness.ending import classify_ending

CORPUS = yaml.safe_load(Path("tests/data/endings.yaml").read_text(encoding="utf-8"))


def accuracy() -> tuple[int, int]:
    right = sum(classify_ending(row["text"]) == row["label"] for row in CORPUS)
    return right, len(CORPUS)


def test_corpus_is_large_and_covers_every_label() -> None:
    assert len(CORPUS) >= 40
    assert {row["label"] for row in CORPUS} == {"claimed_done", "gave_up", "asked_user"}


def test_accuracy_on_the_labelled_corpus() -> None:
    right, total = accuracy()
    # README "Metrics" states this number; update both together
    assert (right, total) == (55, 56)


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("I could NOT finish: test.py is missing", "gave_up"),
        ("Done.", "claimed_done"),
        ("All done. Anything else?", "claimed_done"),
        ("Should I create test.py?", "asked_user"),
        ("I wrote main.py but could not write test.py.", "gave_up"),
        ("", "claimed_done"),
    ],
)
def test_each_class_fires_and_does_not(text: str, label: str) -> None:
    assert classify_ending(text) == label
