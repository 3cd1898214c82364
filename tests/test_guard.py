"""Fake tool call detection: written-out calls count, mentions do not."""

import pytest

from harness.guard import looks_like_fake_call

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
