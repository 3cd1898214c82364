"""The todo-to-subtask matcher: word tokens, aliases, several subtasks, and its measured quality."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from harness.matcher import match_subtasks, related, tokens
from harness.suite.scenario import load_scenarios

SCENARIOS = {s.id: s for s in load_scenarios()}
LABELS = yaml.safe_load(Path("tests/data/matcher_labels.yaml").read_text(encoding="utf-8"))


def confusion() -> tuple[int, int, int, int]:
    """(true positives, false positives, false negatives, pairs) over the labelled set."""
    tp = fp = fn = pairs = 0
    for key, rows in LABELS.items():
        scenario = SCENARIOS[key.removesuffix("_heldout")]
        for text, wanted in rows.items():
            found = {s.id for s in match_subtasks(text, scenario.subtasks)}
            for subtask in scenario.subtasks:
                pairs += 1
                tp += subtask.id in wanted and subtask.id in found
                fp += subtask.id not in wanted and subtask.id in found
                fn += subtask.id in wanted and subtask.id not in found
    return tp, fp, fn, pairs


def test_precision_and_recall_on_the_labelled_pairs() -> None:
    tp, fp, fn, pairs = confusion()
    assert pairs >= 150
    # README "Metrics" states these: precision 82/82, recall 82/85 over 503 pairs
    assert (tp, fp, fn, pairs) == (82, 0, 3, 503)


@pytest.mark.parametrize(
    ("scenario", "text", "expected"),
    [
        ("user_renames", "Capitalise headings", set()),  # `api` is not a word of it
        ("user_cancels", "Read the docs", set()),
        ("near_duplicates", "Move report-v1.csv to archive/", {"stray"}),
        ("near_duplicates", "Move report_v1.csv to archive/", {"archive"}),
        ("excel_export", "Save as exports/11.xlsx", set()),
        ("excel_export", "Create the Excel file exports/1.xlsx", {"excel", "save"}),
        ("excel_export", "Build the spreadsheet", {"excel"}),  # an alias
        ("long_list", "Uppercase note_01.txt into out/", {"note_01"}),
        ("long_list", "Uppercase note_010.txt", set()),
    ],
)
def test_matches_fire_and_do_not(scenario: str, text: str, expected: set[str]) -> None:
    found = {s.id for s in match_subtasks(text, SCENARIOS[scenario].subtasks)}
    assert found == expected


def test_tokens_keep_file_names_whole_and_singularise_words() -> None:
    assert {"report_v1.csv", "report_v1", "archive", "move"} <= tokens(
        "Move report_v1.csv to archive/"
    )
    assert "report" not in tokens("report_v1.csv")
    assert "file" in tokens("List the files")


def test_related_texts_are_rewordings_and_unrelated_ones_are_not() -> None:
    subtasks = SCENARIOS["long_list"].subtasks
    assert related("Write main.py", "Write index.py")
    assert not related("List the workspace files", "Tidy up afterwards")
    # subtask identity beats spelling
    assert not related(
        "Uppercase note_01.txt into out/", "Uppercase note_02.txt into out/", subtasks
    )
