"""A product's own record of its calls (harness/products/): Codex CLI's rollout JSONL,
OpenCode's SQLite store."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from harness.products.shipped import codex, opencode

CODEX_PLAN_TAKEN = codex.PLAN_TAKEN
codex_calls, codex_sessions = codex.calls, codex.sessions
opencode_calls, opencode_store = opencode.calls, opencode.store


def _item(payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": "t", "type": "response_item", "payload": payload})


def _call(call_id: str, name: str, arguments: str) -> str:
    return _item(
        {"type": "function_call", "name": name, "arguments": arguments, "call_id": call_id}
    )


def _output(call_id: str, output: str) -> str:
    return _item({"type": "function_call_output", "call_id": call_id, "output": output})


PLAN = {"plan": [{"step": "Write main.py", "status": "in_progress"}]}


def _rollout(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "rollout-2026-01-01T00-00-00-x.jsonl"
    meta = json.dumps({"type": "session_meta", "payload": {"id": "x"}})
    event = json.dumps({"type": "event_msg", "payload": {"type": "task_started"}})
    path.write_text("\n".join([meta, event, *lines]) + "\n", encoding="utf-8")
    return path


def test_each_call_has_its_arguments_and_answer_in_the_order_made(tmp_path: Path) -> None:
    path = _rollout(
        tmp_path,
        _call("c1", "update_plan", json.dumps(PLAN)),
        _call("c2", "exec_command", json.dumps({"cmd": "ls"})),
        _output("c2", "Process exited with code 0"),
        _output("c1", CODEX_PLAN_TAKEN),
    )
    calls = codex_calls(path)
    assert [(c.id, c.tool, c.args, c.result, c.refused) for c in calls] == [
        ("c1", "update_plan", PLAN, CODEX_PLAN_TAKEN, False),
        ("c2", "exec_command", {"cmd": "ls"}, "Process exited with code 0", False),
    ]


def test_an_update_plan_codex_did_not_take_is_a_refusal_and_one_unanswered_has_no_result(
    tmp_path: Path,
) -> None:
    path = _rollout(
        tmp_path,
        _call("c1", "update_plan", '{"plan": [{"step": "A", "status": "done"}]}'),
        _output("c1", "failed to parse function arguments: unknown variant `done`"),
        _call("c2", "update_plan", "not json"),
        _call("c3", "exec_command", json.dumps({"cmd": "false"})),
        _output("c3", "Process exited with code 1"),
        _output("c9", "an answer to no call"),
    )
    first, second, third = codex_calls(path)
    assert first.refused and first.error
    assert second.args == {"_raw": "not json"} and second.result is None and not second.refused
    assert not third.refused  # a failing command is the command's failure, not a refusal


def test_the_rollouts_under_a_codex_home_are_found_oldest_first(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "01" / "02"
    day.mkdir(parents=True)
    for name in ("rollout-2026-01-02T10-00-00-b.jsonl", "rollout-2026-01-02T09-00-00-a.jsonl"):
        (day / name).write_text("", encoding="utf-8")
    (day / "notes.jsonl").write_text("", encoding="utf-8")
    assert [p.name for p in codex_sessions(tmp_path)] == [
        "rollout-2026-01-02T09-00-00-a.jsonl",
        "rollout-2026-01-02T10-00-00-b.jsonl",
    ]
    assert list(codex_sessions(tmp_path / "absent")) == []


def _opencode_db(data_home: Path, parts: list[tuple[str, str, dict[str, Any]]]) -> Path:
    """An OpenCode store with the tables the reader reads (`session`, `part`; the product's
    own columns, the others left out): `parts` are (part id, session id, data)."""
    db = data_home / "opencode" / "opencode.db"
    db.parent.mkdir(parents=True)
    with sqlite3.connect(db) as store:
        store.execute("CREATE TABLE session (id text PRIMARY KEY, parent_id text)")
        store.execute(
            "CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, "
            "time_created integer, time_updated integer, data text)"
        )
        store.executemany(
            "INSERT INTO session VALUES (?, ?)", [("ses_main", None), ("ses_sub", "ses_main")]
        )
        store.executemany(
            "INSERT INTO part VALUES (?, 'msg', ?, 0, 0, ?)",
            [(pid, session, json.dumps(data)) for pid, session, data in parts],
        )
    return db


def _tool(call_id: str, tool: str, state: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool", "callID": call_id, "tool": tool, "state": state}


TODOS = {"todos": [{"content": "Write main.py", "status": "pending", "priority": "medium"}]}
DONE = {"status": "completed", "input": TODOS, "output": "[...]"}
FAILED = {"status": "error", "input": {"command": "false"}, "error": "exit 1"}


def test_opencode_s_calls_come_from_its_store_in_the_order_made(tmp_path: Path) -> None:
    db = _opencode_db(
        tmp_path,
        [
            ("prt_3", "ses_main", _tool("c2", "bash", FAILED)),
            ("prt_1", "ses_main", {"type": "text", "text": "I will plan first."}),
            ("prt_2", "ses_main", _tool("c1", "todowrite", DONE)),
            ("prt_4", "ses_sub", _tool("c9", "read", {"status": "completed", "input": {}})),
            ("prt_5", "ses_main", _tool("c3", "write", {"status": "running", "input": {}})),
        ],
    )
    assert opencode_store(tmp_path) == db and opencode_store(tmp_path / "absent") is None
    assert [(c.id, c.tool, c.args, c.result, c.refused) for c in opencode_calls(db)] == [
        ("c1", "todowrite", TODOS, "[...]", False),
        ("c2", "bash", {"command": "false"}, "exit 1", True),
        ("c3", "write", {}, None, False),  # never answered: no result
    ]
