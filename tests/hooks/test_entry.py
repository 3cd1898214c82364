"""Whatever Claude Code sends, the hook program answers with valid JSON or nothing, and never
exits 2 (a blocking error): its own failures let the action through."""

from __future__ import annotations

import pytest

from tests.hooks.conftest import Hooks, todos

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
        "{not json",
        "\ufeff{}",
        "[" * 100_000 + "]" * 100_000,
        '{"session_id": "s", "hook_event_name": "Stop", "x": '
        + '{"a": ' * 100_000
        + "1"
        + "}" * 100_000
        + "}",
        '{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "TodoWrite", '
        '"tool_input": {"todos": [{"content": "\\udfff", "status": "pending", "activeForm": '
        '"x"}]}}',
    ],
    ids=lambda payload: payload[:40],
)
def test_any_input_gets_an_answer_or_a_non_blocking_failure(hooks: Hooks, payload: str) -> None:
    reply = hooks.run(FIXES, payload)  # the answer parses as JSON (Hooks.run checks)
    assert reply.code in (0, 1)
    assert (reply.code == 1) == bool(reply.stderr)
    if reply.code == 1:
        assert hooks.journal()[-1].action == "failed"
    assert not any(p.name.startswith("..") for p in (hooks.tmp / "state").glob("*"))


def test_a_list_with_a_lone_surrogate_is_still_checked(hooks: Hooks) -> None:
    # Claude Code escapes a lone surrogate as \udXXX, which pydantic's JSON parser refuses:
    # 691d616 failed open (exit 1) and the rewording went through unchecked
    plan = todos("Write \ud800 main.py", "Write test.py")
    assert hooks.run("textlock", hooks.todo_write("PostToolUse", plan)).code == 0
    reworded = todos("Write \ud800 the main.py", "Write test.py")
    reply = hooks.run("textlock", hooks.todo_write("PreToolUse", reworded))
    assert reply.code == 0 and reply.answer is not None
    reason = reply.answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert "#1 must keep its text 'Write \ufffd main.py'" in reason
    ticked = todos("Write \ud800 main.py", "Write test.py", done=("Write test.py",))
    assert hooks.run("textlock", hooks.todo_write("PreToolUse", ticked)).answer is None
