"""L1 and L2 on TodoWrite: each fires on its fault with the seed's refusal as the answer, and lets
every other list through."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hooks.conftest import Hooks, denial, todos

PLAN = ("List the files", "Write main.py", "Write test.py")
CURRENT = (
    "Current list:\n[ ] #1: List the files\n[ ] #2: Write main.py\n[ ] #3: Write test.py\n"
    "(0/3 completed)"
)


def _planned(hooks: Hooks, fixes: str) -> None:
    reply = hooks.run(fixes, hooks.todo_write("PostToolUse", todos(*PLAN)))
    assert (reply.code, reply.answer) == (0, None)


def test_textlock_denies_a_reworded_item_with_the_seeds_refusal(hooks: Hooks) -> None:
    _planned(hooks, "textlock")
    sent = todos("List the files", "Write the main.py file", "Write test.py")
    reply = hooks.run("textlock", hooks.todo_write("PreToolUse", sent))
    reason = (
        "Update rejected: todo text cannot change in a rewrite (TodoWrite cannot rename an item: "
        "keep each stored item's text exactly). #2 must keep its text 'Write main.py'.\n" + CURRENT
    )
    assert (reply.code, reply.answer) == (0, denial(reason))
    (record,) = hooks.journal()
    assert (record.action, record.event, record.text) == ("denied", "PreToolUse", reason)


def test_textlock_lets_ticks_drops_and_new_items_through(hooks: Hooks) -> None:
    _planned(hooks, "textlock")
    for sent in (
        todos(*PLAN, done=("List the files",)),
        todos("List the files", "Write main.py"),  # a drop is L2's fault, not L1's
        todos(*PLAN, "Run the tests"),
    ):
        reply = hooks.run("textlock", hooks.todo_write("PreToolUse", sent))
        assert (reply.code, reply.answer) == (0, None)
    assert hooks.journal() == []


def test_whitelist_denies_a_dropped_item(hooks: Hooks) -> None:
    _planned(hooks, "whitelist")
    sent = todos("List the files", "Write main.py", done=("List the files",))
    reply = hooks.run("whitelist", hooks.todo_write("PreToolUse", sent))
    reason = (
        "Update rejected: the list must contain exactly the stored ids (keep every stored item "
        "and mark finished ones completed; new items may be added). missing ids: #3 'Write "
        "test.py'.\n" + CURRENT
    )
    assert reply.answer == denial(reason)


def test_whitelist_includes_the_text_lock_and_lets_additions_through(hooks: Hooks) -> None:
    _planned(hooks, "whitelist")
    added = hooks.run("whitelist", hooks.todo_write("PreToolUse", todos(*PLAN, "Run the tests")))
    assert added.answer is None
    reworded = todos("List the files", "Write the main.py file", "Write test.py")
    refused = hooks.run("whitelist", hooks.todo_write("PreToolUse", reworded))
    assert refused.answer is not None
    assert "#2 must keep its text 'Write main.py'" in json.dumps(refused.answer)


def test_the_first_list_and_other_tools_are_never_refused(hooks: Hooks) -> None:
    first = hooks.run("textlock,whitelist", hooks.todo_write("PreToolUse", todos("Anything")))
    other = hooks.run(
        "textlock,whitelist",
        hooks.event("PreToolUse", tool_name="Bash", tool_input={"command": "ls"}),
    )
    assert (first.answer, other.answer) == (None, None)


def test_a_subagents_list_is_its_own(hooks: Hooks) -> None:
    _planned(hooks, "whitelist")
    subagent = {"agent_id": "a1"}
    first = hooks.run("whitelist", hooks.todo_write("PreToolUse", todos("Search")) | subagent)
    assert first.answer is None  # not judged against the main thread's list
    hooks.run("whitelist", hooks.todo_write("PostToolUse", todos("Search", "Report")) | subagent)
    dropped = hooks.run("whitelist", hooks.todo_write("PreToolUse", todos("Search")) | subagent)
    assert "missing ids: #2 'Report'" in json.dumps(dropped.answer)
    main = hooks.run("whitelist", hooks.todo_write("PreToolUse", todos(*PLAN)))
    assert main.answer is None


def test_the_stored_list_is_the_last_accepted_one(hooks: Hooks) -> None:
    """A denied write changes nothing; an accepted one (PostToolUse) becomes the stored list."""
    _planned(hooks, "textlock")
    hooks.run("textlock", hooks.todo_write("PostToolUse", todos(*PLAN[:2], "Write the tests")))
    sent = todos("List the files", "Write main.py", "Write the unit tests")
    reply = hooks.run("textlock", hooks.todo_write("PreToolUse", sent))
    assert "#3 must keep its text 'Write the tests'" in json.dumps(reply.answer)


def test_without_a_state_file_the_list_is_read_back_from_the_transcript(hooks: Hooks) -> None:
    transcript = hooks.tmp / "session.jsonl"
    call = {"type": "tool_use", "id": "t1", "name": "TodoWrite", "input": {"todos": todos(*PLAN)}}
    answer = {"type": "tool_result", "tool_use_id": "t1", "content": "Todos have been modified"}
    lines = [
        {"type": "assistant", "message": {"role": "assistant", "content": [call]}},
        {"type": "user", "message": {"role": "user", "content": [answer]}},
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    sent = todos("List the files", "Write the main.py file", "Write test.py")
    payload = hooks.todo_write("PreToolUse", sent) | {"transcript_path": str(transcript)}
    reply = hooks.run("textlock", payload)
    assert "#2 must keep its text 'Write main.py'" in json.dumps(reply.answer)


def test_a_failure_lets_the_call_through_and_is_journaled(hooks: Hooks, tmp_path: Path) -> None:
    """Exit 1 is Claude Code's non-blocking error: the action goes ahead (2 would block it)."""
    garbage = hooks.run("textlock", "not json")
    assert (garbage.code, garbage.answer) == (1, None)
    assert garbage.stderr.startswith("todo-bench-hook: JSONDecodeError: ")
    assert garbage.stderr.count("\n") == 1
    unknown = hooks.run("textlok", hooks.todo_write("PreToolUse", todos("a")))
    assert (unknown.code, unknown.answer) == (1, None)
    _planned(hooks, "textlock")
    (tmp_path / "state" / "s1.json").write_text("{broken", encoding="utf-8")
    broken = hooks.run("textlock", hooks.todo_write("PreToolUse", todos("b")))
    assert (broken.code, broken.answer) == (1, None)
    records = hooks.journal()
    assert [r.action for r in records] == ["failed", "failed", "failed"]
    assert records[1].text.startswith("FixError: unknown fix textlok")
    assert records[2].session_id == "s1"
