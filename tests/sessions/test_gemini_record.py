"""Gemini CLI's own chat record (harness/products/shipped/gemini_cli.py), read from two real
records of the same episode (`user_cancels` on sim/sloppy through the pinned Gemini CLI,
2026-12-05): the user's turn resumed the session once into the same file (within the minute the
file's name carries) and once into a new one. Either way every call is read once, in the order
made, with its answer; the resumed session's rebuilt history (its messages without their tool
calls) takes nothing away."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.products.session_record import TodoState, UserMessage
from harness.products.shipped import gemini_cli
from harness.sessions.readers import detect

FIXTURES = Path("tests/fixtures/gemini")
#: the calls the episode made, as the bridge saw them (the same in both records)
MADE = [
    ("write_todos", 4),
    ("write_file", "CHANGELOG.md"),
    ("write_todos", 3),  # the user cancelled README.md
    ("write_file", "CONTRIBUTING.md"),
    ("write_file", "NOTICE.md"),
    ("write_todos", 2),  # NOTICE.md dropped from the list
]


def _made(home: Path) -> list[tuple[str, object]]:
    """Each call as (tool, the list's length or the file's name)."""
    return [
        (
            c.tool,
            len(c.args["todos"]) if c.tool == "write_todos" else Path(c.args["file_path"]).name,
        )
        for c in gemini_cli.home_calls(home)
    ]


@pytest.mark.parametrize("home", ["same_file", "new_file"])
def test_every_call_is_read_once_in_the_order_made_with_its_answer(home: str) -> None:
    assert _made(FIXTURES / home) == MADE
    calls = gemini_cli.home_calls(FIXTURES / home)
    assert len({c.id for c in calls}) == len(calls)
    assert not any(c.refused for c in calls)
    assert calls[0].result is not None and calls[0].result.startswith(
        "Successfully updated the todo list. The current list is now:\n1. [in_progress] Write "
        "CHANGELOG.md\n"
    )


def test_a_resumed_session_s_rebuilt_history_takes_no_call_away(tmp_path: Path) -> None:
    """The same file without the resume's lines holds the first run's calls only."""
    (record,) = (FIXTURES / "same_file").rglob("session-*.jsonl")
    lines = record.read_text(encoding="utf-8").splitlines()
    resumed = next(i for i, line in enumerate(lines) if i and "sessionId" in json.loads(line))
    folder = tmp_path / ".gemini" / "tmp" / "p" / "chats"
    folder.mkdir(parents=True)
    (folder / record.name).write_text("\n".join(lines[:resumed]) + "\n", encoding="utf-8")
    assert _made(tmp_path) == MADE[:2]


def test_a_refused_call_is_marked_with_the_product_s_words(tmp_path: Path) -> None:
    folder = tmp_path / ".gemini" / "tmp" / "p" / "chats"
    folder.mkdir(parents=True)
    refused = "params/todos/0/status must be equal to one of the allowed values"
    message = {
        "id": "m1",
        "timestamp": "t",
        "type": "gemini",
        "content": "",
        "toolCalls": [
            {
                "id": "write_todos__write_todos_1_0",
                "name": "write_todos",
                "args": {"todos": [{"description": "a", "status": "done"}]},
                "result": [
                    {
                        "functionResponse": {
                            "id": "write_todos__write_todos_1_0",
                            "name": "write_todos",
                            "response": {"error": refused},
                        }
                    }
                ],
                "status": "error",
            },
            {"id": "write_file__write_file_1_1", "name": "write_file", "args": {}},
        ],
    }
    (folder / "session-x.jsonl").write_text(json.dumps(message) + "\n", encoding="utf-8")
    first, unanswered = gemini_cli.home_calls(tmp_path)
    assert (first.refused, first.result) == (True, refused)
    assert (unanswered.refused, unanswered.result) == (False, None)
    path = folder / "session-x.jsonl"
    assert not [e for e in gemini_cli.events(path) if isinstance(e, TodoState)]  # no list


def test_the_audit_reads_the_record_as_gemini_cli_s() -> None:
    (record,) = sorted((FIXTURES / "new_file").rglob("session-*-6777ae3a.jsonl"))[:1]
    assert detect(record) == gemini_cli.CLI
    events = list(gemini_cli.events(record))
    states = [e for e in events if isinstance(e, TodoState)]
    assert [len(s.items) for s in states] == [4, 3, 2]
    assert states[0].items[0].text == "Write CHANGELOG.md"
    # the task, then the user's turn (inspect-swe puts the episode's note before each prompt);
    # the CLI's own session context is no typed message
    typed = [e.text for e in events if isinstance(e, UserMessage)]
    assert len(typed) == 2
    assert typed[0].endswith("one heading line each.")
    assert typed[1].endswith("Skip the README, we don't need it any more.")
