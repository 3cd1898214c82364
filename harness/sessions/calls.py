"""A product's own record of its tool calls, call by call: each call's id, tool, arguments,
and the product's answer (and whether it was an error). The agents' runner replays the todo
calls through the harness's design and cross-checks the record against what the bridge saw."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.sessions.readers import _NOT_FOUND, _TASK_TOOLS, _dict, _lines, _result_text


class CallRecord(BaseModel):
    """One tool call as the product recorded it."""

    id: str
    tool: str
    args: dict[str, Any]
    #: the product's answer; None if the record holds no answer (the call never returned)
    result: str | None = None
    error: bool = False

    @property
    def refused(self) -> bool:
        """The product refused the call: an error answer, or Claude Code's Task tools' plain
        "Task not found" (an answer it does not mark as an error)."""
        return self.error or (
            self.tool in _TASK_TOOLS and bool(_NOT_FOUND.search(self.result or ""))
        )


#: Codex CLI's answer to an `update_plan` it took; its rollout marks no answer as an error, and
#: any other answer to that tool is a refusal (arguments it could not parse)
CODEX_PLAN_TAKEN = "Plan updated"


def claude_code_calls(path: Path) -> list[CallRecord]:
    """Every tool call of one Claude Code session JSONL, in the order made, with its answer."""
    calls: dict[str, CallRecord] = {}
    for record in _lines(path):
        content = _dict(record.get("message")).get("content")
        if not isinstance(content, list):
            continue
        for block in (b for b in content if isinstance(b, dict)):
            if record.get("type") == "assistant" and block.get("type") == "tool_use":
                call_id = str(block.get("id", ""))
                calls.setdefault(
                    call_id,
                    CallRecord(
                        id=call_id, tool=str(block.get("name", "")), args=_dict(block.get("input"))
                    ),
                )
            elif record.get("type") == "user" and block.get("type") == "tool_result":
                call = calls.get(str(block.get("tool_use_id", "")))
                if call is not None:
                    call.result = _result_text(block)
                    call.error = bool(block.get("is_error"))
    return list(calls.values())


def claude_code_compactions(path: Path) -> int:
    """How many times one Claude Code session JSONL says its context was compacted (a
    `compact_boundary` system line each)."""
    return sum(
        1
        for record in _lines(path)
        if record.get("type") == "system" and record.get("subtype") == "compact_boundary"
    )


def claude_code_sessions(home: Path) -> Iterator[Path]:
    """The main session files Claude Code wrote under a HOME (its subagents' files left out)."""
    projects = home / ".claude" / "projects"
    for path in sorted(projects.glob("*/*.jsonl")):
        if not path.name.startswith("agent-"):
            yield path


def codex_calls(path: Path) -> list[CallRecord]:
    """Every function call of one Codex CLI rollout JSONL, in the order made, with its answer
    (arguments Codex recorded that are not a JSON object are kept as `{"_raw": text}`)."""
    calls: dict[str, CallRecord] = {}
    for record in _lines(path):
        payload = _dict(record.get("payload"))
        if record.get("type") != "response_item":
            continue
        call_id = str(payload.get("call_id", ""))
        if payload.get("type") == "function_call":
            calls.setdefault(
                call_id,
                CallRecord(id=call_id, tool=str(payload.get("name", "")), args=_arguments(payload)),
            )
        elif payload.get("type") == "function_call_output" and call_id in calls:
            call = calls[call_id]
            output = payload.get("output")
            call.result = output if isinstance(output, str) else json.dumps(output)
            call.error = call.tool == "update_plan" and call.result != CODEX_PLAN_TAKEN
    return list(calls.values())


def _arguments(payload: dict[str, Any]) -> dict[str, Any]:
    raw = payload.get("arguments")
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(str(raw or "{}"))
    except json.JSONDecodeError:
        return {"_raw": str(raw)}
    return parsed if isinstance(parsed, dict) else {"_raw": str(raw)}


def codex_sessions(codex_home: Path) -> Iterator[Path]:
    """The rollout files Codex CLI wrote under a CODEX_HOME, oldest first."""
    yield from sorted((codex_home / "sessions").glob("**/rollout-*.jsonl"))


def opencode_calls(db: Path) -> list[CallRecord]:
    """Every tool call of OpenCode's own store (its SQLite `opencode.db`: one `part` row per
    piece of a message, a tool call's part holding its `callID`, `tool` and `state` with the
    input and the output or error), in the order made; sub-agents' sessions left out."""
    with contextlib.closing(sqlite3.connect(db)) as store:
        rows = store.execute(
            "SELECT part.data FROM part JOIN session ON part.session_id = session.id "
            "WHERE session.parent_id IS NULL ORDER BY part.id"
        ).fetchall()
    calls: list[CallRecord] = []
    for (data,) in rows:
        part = _dict(json.loads(data))
        if part.get("type") != "tool":
            continue
        state = _dict(part.get("state"))
        failed = state.get("status") == "error"
        answer = state.get("error" if failed else "output")
        calls.append(
            CallRecord(
                id=str(part.get("callID", "")),
                tool=str(part.get("tool", "")),
                args=_dict(state.get("input")),
                result=None if answer is None else str(answer),
                error=failed,
            )
        )
    return calls


def opencode_store(data_home: Path) -> Path | None:
    """OpenCode's store under an XDG data folder, if it wrote one."""
    db = data_home / "opencode" / "opencode.db"
    return db if db.is_file() else None
