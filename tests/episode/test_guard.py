"""Fake tool call detection: written-out calls count, mentions do not."""

import pytest

from harness.episode.gate.guard import looks_like_fake_call

TOOLS = ["list_files", "create_excel", "write_file", "todo"]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "create_excel", "arguments": {"path": "1.xlsx"}}',
        'I\'ll do this:\n```json\n{"tool": "list_files"}\n```',
        '<tool_call>\n{"name": "list_files", "arguments": {}}\n</tool_call>',
        "Plan:\n1. list_files()\n2. create_excel(path='exports/1.xlsx')",
        'Now calling `write_file(path="a.txt", content="x")`.',
        '<function=write_file>{"path": "a"}</function>',
    ],
)
def test_written_out_calls_are_fake(text: str) -> None:
    assert looks_like_fake_call(text, TOOLS)


@pytest.mark.parametrize(
    "text",
    [
        "I used list_files to see the workspace, and the Excel file is saved.",
        "All tasks are complete.",
        "The todo list is up to date; I called list_files() earlier.",
        "",
        '{"name": "Alice"}',
    ],
)
def test_mentions_are_not_fake(text: str) -> None:
    assert not looks_like_fake_call(text, TOOLS)


def test_precision_and_recall_on_the_labelled_corpus() -> None:
    from pathlib import Path

    import yaml

    from harness.episode.ledger import TODO_TOOLS
    from harness.suite.workspace_tools import WORKSPACE_TOOLS

    rows = yaml.safe_load(Path("tests/data/guard.yaml").read_text(encoding="utf-8"))
    names = [*TODO_TOOLS, *WORKSPACE_TOOLS]
    found = [looks_like_fake_call(row["text"], names) for row in rows]
    tp = sum(f and row["fake"] for f, row in zip(found, rows, strict=True))
    fp = sum(f and not row["fake"] for f, row in zip(found, rows, strict=True))
    positives = sum(row["fake"] for row in rows)
    assert len(rows) >= 60
    # README "Metrics" states these: precision 28/28, recall 28/28, no false positive among 36
    assert (tp, fp, positives, len(rows)) == (28, 0, 28, 64)


def test_product_tool_calls_written_as_text_are_fake_too() -> None:
    from harness.scoring.scorer import all_todo_tool_names

    names = all_todo_tool_names()
    assert {"TodoWrite", "TaskUpdate", "update_plan", "todo_write"} <= names
    assert looks_like_fake_call('TodoWrite(todos=[{"content": "x"}])', names)
    assert not looks_like_fake_call("I updated the list with TodoWrite.", names)
