"""L4: the rendered list as context after a tool call, with a user message and after a
compaction, and not before there is a list or at a session's other starts."""

from __future__ import annotations

from tests.hooks.conftest import Hooks, todos

CONTEXT = (
    "Current todo list (kept by the system, always up to date):\n"
    "[x] #1: List the files\n[ ] #2: Write main.py\n(1/2 completed)"
)


def test_the_list_is_injected_after_a_tool_call_and_after_compaction(hooks: Hooks) -> None:
    written = hooks.todo_write("PostToolUse", todos("List the files", "Write main.py"))
    hooks.run("inject", written)
    ticked = todos("List the files", "Write main.py", done=("List the files",))
    after_todo = hooks.run("inject", hooks.todo_write("PostToolUse", ticked))
    after_bash = hooks.run(
        "inject", hooks.event("PostToolUse", tool_name="Bash", tool_input={"command": "ls"})
    )
    compacted = hooks.run("inject", hooks.event("SessionStart", source="compact"))
    prompted = hooks.run("inject", hooks.event("UserPromptSubmit", prompt="also add tests"))
    for reply, event in (
        (after_todo, "PostToolUse"),
        (after_bash, "PostToolUse"),
        (prompted, "UserPromptSubmit"),
    ):
        assert reply.answer == {
            "hookSpecificOutput": {"hookEventName": event, "additionalContext": CONTEXT}
        }
    assert compacted.answer == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": CONTEXT}
    }
    assert [r.action for r in hooks.journal()] == ["injected"] * 5


def test_nothing_is_injected_before_a_list_at_startup_or_without_the_fix(hooks: Hooks) -> None:
    bash = hooks.event("PostToolUse", tool_name="Bash", tool_input={"command": "ls"})
    assert hooks.run("inject", bash).answer is None
    hooks.run("textlock", hooks.todo_write("PostToolUse", todos("List the files")))
    assert hooks.run("textlock", bash).answer is None
    assert hooks.run("inject", hooks.event("SessionStart", source="startup")).answer is None
    assert hooks.journal() == []
