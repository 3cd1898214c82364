"""Whatever Claude Code sends, the hook program answers with valid JSON or nothing, and never
exits 2 (a blocking error): its own failures let the action through."""

from __future__ import annotations

import pytest

from tests.hooks.conftest import Hooks

FIXES = "textlock,whitelist,inject,gate-heuristic"


@pytest.mark.parametrize(
    "payload",
    [
        "",
        "[]",
        '{"hook_event_name": "Stop"}',
        '{"session_id": "../../etc/passwd", "hook_event_name": "PostToolUse", '
        '"tool_name": "TodoWrite", "tool_input": {"todos": "everything"}}',
        '{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "TodoWrite", '
        '"tool_input": {"todos": [{"content": 1, "status": "nope"}]}}',
        '{"session_id": "s", "hook_event_name": "Stop", "last_assistant_message": null}',
        '{"session_id": "s", "hook_event_name": "SomeFutureEvent", "extra": {"x": [1]}}',
        '{"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Write", '
        '"tool_input": {"file_path": "/elsewhere/\\ud800.txt"}}',
    ],
)
def test_any_input_gets_an_answer_or_a_non_blocking_failure(hooks: Hooks, payload: str) -> None:
    reply = hooks.run(FIXES, payload)  # the answer parses as JSON (Hooks.run checks)
    assert reply.code in (0, 1)
    assert (reply.code == 1) == bool(reply.stderr)
    if reply.code == 1:
        assert hooks.journal()[-1].action == "failed"
    assert not any(p.name.startswith("..") for p in (hooks.tmp / "state").glob("*"))
