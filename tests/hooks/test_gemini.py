"""The fixes as Gemini CLI hooks (`todo-bench-hook --product gemini-cli`): the same rule code
judges write_todos' `todos: [{description, status}]`, on Gemini CLI's own wire (BeforeTool,
AfterTool, BeforeAgent, AfterAgent; a top-level `decision: deny`). Each fix fires on its fault
with the fix's reason and lets every other call through; `hooks install --product gemini-cli`
merges into `.gemini/settings.json` and uninstall restores it byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.commands import main
from harness.episode.prompts import GATE_BLOCKED
from harness.hooks.hosts import HOSTS
from harness.hooks.settings import hooks_for
from harness.products.shipped import gemini_cli
from tests.hooks.conftest import Hooks, round_trip, todos

PLAN = ("List the files", "Write main.py", "Write test.py")
CURRENT = (
    "Current list:\n[ ] #1: List the files\n[ ] #2: Write main.py\n[ ] #3: Write test.py\n"
    "(0/3 completed)"
)
TOOL = gemini_cli.WRITE_TODOS.tool
LISTED = (
    "Current todo list (kept by the system, always up to date):\n[x] #1: List the files\n"
    "[ ] #2: Write main.py\n[ ] #3: Write test.py\n(1/3 completed)"
)


def items(*texts: str, done: tuple[str, ...] = (), status: str = "pending") -> list[dict[str, str]]:
    """A write_todos list: the texts, those in `done` completed, the rest `status`."""
    return [{"description": t, "status": "completed" if t in done else status} for t in texts]


@pytest.fixture
def gm(tmp_path: Path) -> Hooks:
    return Hooks(tmp_path, product=gemini_cli.CLI)


def _event(hooks: Hooks, event: str, **fields: Any) -> dict[str, Any]:
    # as Gemini CLI 0.61.0 sends it (scripts/probe_gemini_hooks.py): a timestamp, no tool call id
    return hooks.event(event, timestamp="2026-12-05T23:47:34.915Z", **fields)


def _todos(hooks: Hooks, event: str, listed: list[dict[str, str]], **fields: Any) -> dict[str, Any]:
    return _event(hooks, event, tool_name=TOOL, tool_input={"todos": listed}, **fields)


#: AfterTool's `tool_response` for a list write_todos took
WRITTEN = {"llmContent": "Successfully updated the todo list.", "returnDisplay": "ok"}


def _planned(hooks: Hooks, fixes: str, listed: list[dict[str, str]] | None = None) -> None:
    sent = items(*PLAN) if listed is None else listed
    reply = hooks.run(fixes, _todos(hooks, "AfterTool", sent, tool_response=WRITTEN))
    assert reply.code == 0, reply.stderr


def _stop(hooks: Hooks, text: str, again: bool = False) -> dict[str, Any]:
    return _event(hooks, "AfterAgent", prompt="Write the files", prompt_response=text,
                  stop_hook_active=again)  # fmt: skip


def test_whitelist_denies_a_write_todos_that_drops_an_item(gm: Hooks) -> None:
    _planned(gm, "whitelist")
    reply = gm.run("whitelist", _todos(gm, "BeforeTool", items(*PLAN[:2], done=PLAN[:1])))
    reason = (
        "Update rejected: the list must contain exactly the stored ids (keep every stored item "
        "and mark finished ones completed; new items may be added). missing ids: #3 "
        "'Write test.py'.\n" + CURRENT
    )
    assert (reply.code, reply.answer) == (0, {"decision": "deny", "reason": reason})
    (record,) = gm.journal()
    assert (record.action, record.event, record.tool, record.text) == (
        "denied", "BeforeTool", TOOL, reason
    )  # fmt: skip


def test_textlock_denies_a_reworded_item_naming_write_todos(gm: Hooks) -> None:
    _planned(gm, "textlock")
    sent = items("List the files", "Write the main.py file", "Write test.py")
    reply = gm.run("textlock", _todos(gm, "BeforeTool", sent))
    reason = (
        f"Update rejected: todo text cannot change in a rewrite ({TOOL} cannot rename an item: "
        "keep each stored item's text exactly). #2 must keep its text 'Write main.py'.\n" + CURRENT
    )
    assert reply.answer == {"decision": "deny", "reason": reason}


def test_a_kept_list_and_a_first_list_go_through(gm: Hooks) -> None:
    first = gm.run("textlock,whitelist", _todos(gm, "BeforeTool", items(*PLAN)))
    assert (first.code, first.answer) == (0, None)  # nothing stored yet: the list defines it
    _planned(gm, "textlock,whitelist")
    for sent in (
        items(*PLAN, done=PLAN[:2]),
        items(*reversed(PLAN)),
        items(*PLAN, "Run the tests"),
        items(*PLAN, status="blocked"),  # blocked is still work: the harness holds it pending
        # two in progress: Gemini CLI refuses it itself, so the hooks leave it to the product
        items(*PLAN[:2], status="in_progress"),
    ):
        reply = gm.run("textlock,whitelist", _todos(gm, "BeforeTool", sent))
        assert (reply.code, reply.answer) == (0, None), sent
    assert gm.journal() == []


def test_a_cancelled_item_leaves_the_list_so_the_whitelist_refuses_it(gm: Hooks) -> None:
    """`cancelled` takes an item off the work (the gemini-writetodos design): under the
    whitelist that is a removal, refused as a drop is; the text lock lets it through."""
    _planned(gm, "whitelist")
    sent = items(*PLAN[:2]) + [{"description": PLAN[2], "status": "cancelled"}]
    reply = gm.run("whitelist", _todos(gm, "BeforeTool", sent))
    assert reply.answer is not None and "missing ids: #3 'Write test.py'" in reply.answer["reason"]
    assert gm.run("textlock", _todos(gm, "BeforeTool", sent)).answer is None


def test_each_product_judges_only_its_own_todo_tool(gm: Hooks, tmp_path: Path) -> None:
    _planned(gm, "whitelist")
    claude = gm.todo_write("BeforeTool", todos(*PLAN[:1]))
    assert gm.run("whitelist", claude).answer is None  # TodoWrite is not Gemini CLI's tool
    cc = Hooks(tmp_path / "cc")
    cc.tmp.mkdir()
    cc.run("whitelist", cc.todo_write("PostToolUse", todos(*PLAN)))
    assert cc.run("whitelist", _todos(cc, "PreToolUse", items(*PLAN[:1]))).answer is None


def test_inject_adds_the_list_after_each_call_and_with_each_prompt(gm: Hooks) -> None:
    empty = gm.run("inject", _event(gm, "AfterTool", tool_name="read_file", tool_input={}))
    assert empty.answer is None  # no list yet
    sent = items(*PLAN, done=PLAN[:1])
    reply = gm.run("inject", _todos(gm, "AfterTool", sent, tool_response=WRITTEN))
    assert reply.answer == {
        "hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": LISTED}
    }
    shell = _event(gm, "AfterTool", tool_name=gemini_cli.SHELL.tool, tool_input={"command": "ls"})
    assert gm.run("inject", shell).answer == reply.answer
    prompt = gm.run("inject", _event(gm, "BeforeAgent", prompt="Now the tests too"))
    assert prompt.answer == {
        "hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": LISTED}
    }
    assert [r.event for r in gm.journal()] == ["AfterTool", "AfterTool", "BeforeAgent"]


def test_a_failed_call_changes_no_list(gm: Hooks) -> None:
    """Gemini CLI fires AfterTool after a failed call too (`tool_response.error`): its list is
    not the stored one, and the gate ticks nothing from it."""
    failed = {"llmContent": "no", "returnDisplay": "no", "error": {"message": "no", "type": "x"}}
    gm.run("inject", _todos(gm, "AfterTool", items(*PLAN), tool_response=failed))
    later = gm.run("inject", _event(gm, "AfterTool", tool_name="read_file", tool_input={}))
    assert later.answer is None


def test_gate_open_refuses_a_claim_at_after_agent_while_an_item_is_open(gm: Hooks) -> None:
    _planned(gm, "gate-open", items(*PLAN[:2], done=PLAN[:1]))
    state = "[x] #1: List the files\n[ ] #2: Write main.py\n(1/2 completed)"
    blocked = gm.run("gate-open", _stop(gm, "All done."))
    assert blocked.answer == {"decision": "block", "reason": GATE_BLOCKED.format(state=state)}
    admitted = _stop(gm, "I could not write main.py: the folder is read-only.")
    assert gm.run("gate-open", admitted).answer is None
    # the chain Gemini CLI marks with stop_hook_active, up to the bound (3); its
    # prompt_response grows by each answer
    said = "All done."
    for _ in range(2):
        said += "\nAll done."
        assert gm.run("gate-open", _stop(gm, said, again=True)).answer is not None
    assert gm.run("gate-open", _stop(gm, said + "\nAll done.", again=True)).answer is None
    _planned(gm, "gate-open", items(*PLAN[:2], done=PLAN[:2]))
    assert gm.run("gate-open", _stop(gm, "All done.")).answer is None
    assert [r.action for r in gm.journal()] == ["blocked"] * 3 + ["let_through"]
    assert {r.event for r in gm.journal()} == {"AfterAgent"}


def test_each_stop_is_judged_by_the_text_it_added_to_the_prompt_s_response(gm: Hooks) -> None:
    """Gemini CLI's prompt_response holds every answer since the prompt: a tool call written as
    text, refused once, is not read again at the stops after it (a trial `+gate` episode was
    refused at every stop until its turns ran out), and a claim it adds is still judged."""
    fake = 'Next I will run this tool:\n```json\n{"name": "read_file", "arguments": {}}\n```'
    _planned(gm, "gate-open", items(*PLAN[:2], done=PLAN[:1]))
    assert gm.run("gate-open", _stop(gm, fake)).answer is not None
    # the work goes on; the next stop adds a claim while an item is open: refused for it
    claim = f"{fake}\nAll done."
    assert gm.run("gate-open", _stop(gm, claim)).answer is not None
    _planned(gm, "gate-open", items(*PLAN[:2], done=PLAN[:2]))
    assert gm.run("gate-open", _stop(gm, f"{claim}\nAll done.", again=True)).answer is None
    assert [r.text.split(":")[0] for r in gm.journal()] == ["fake_tool_call", "subtasks_pending"]


def test_a_session_rebuilds_its_list_from_the_gemini_chat_record(gm: Hooks) -> None:
    """Hooks installed mid-session: the accepted write_todos calls of the chat record are the
    list; a refused one is not."""
    record = gm.tmp / "session.jsonl"
    lines: list[dict[str, Any]] = [{"sessionId": "s1", "projectHash": "p", "startTime": "t"}]
    for n, listed, response in (
        (1, items(*PLAN), {"output": "Successfully updated the todo list."}),
        (2, items(*PLAN[:1]), {"error": "Tool execution blocked: no"}),
    ):
        call = {"id": f"c{n}", "name": TOOL, "args": {"todos": listed},
                "status": "success" if n == 1 else "error",
                "result": [{"functionResponse": {"id": f"c{n}", "name": TOOL,
                                                 "response": response}}]}  # fmt: skip
        lines.append({"id": f"m{n}", "timestamp": "t", "type": "gemini", "content": "",
                      "toolCalls": [call]})  # fmt: skip
    record.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    payload = _todos(gm, "BeforeTool", items(*PLAN[:2]))
    payload["transcript_path"] = str(record)
    reply = gm.run("whitelist", payload)
    assert reply.answer is not None and "missing ids: #3 'Write test.py'" in reply.answer["reason"]


# -- hooks install --product gemini-cli --------------------------------------------------------

PROGRAM = "/opt/venv/bin/todo-bench-hook"
HOST = HOSTS[gemini_cli.CLI]
#: a user's own Gemini CLI settings, spaced their way: other settings, an older release's switch
#: inside `hooks`, and a hook of their own
USERS = (
    '{\n  "model": {"name": "gemini-2.5-pro"},\n  "hooks": {\n    "enabled": true,\n'
    '    "BeforeTool": [\n      {"matcher": "write_file|replace", "hooks": [{"type": "command",'
    ' "command": "audit.sh", "timeout": 5000}]}\n    ]\n  }\n}\n'
)


def _settings(folder: Path) -> Path:
    return folder / HOST.config


def test_the_gemini_hooks_section_speaks_its_event_names_and_milliseconds() -> None:
    command = {"type": "command", "command": f"{PROGRAM} --product gemini-cli "
               "whitelist,inject,gate-open", "timeout": 30_000}  # fmt: skip
    assert hooks_for(("whitelist", "inject", "gate-open"), PROGRAM, HOST) == {
        "BeforeTool": [{"matcher": f"^{TOOL}$", "hooks": [command]}],
        "AfterTool": [{"matcher": "*", "hooks": [command]}],
        # no SessionStart(compact): Gemini CLI has no event after its compression
        "BeforeAgent": [{"hooks": [command]}],
        "AfterAgent": [{"hooks": [command]}],
    }


def test_gemini_install_merges_with_the_users_settings_and_uninstall_restores_bytes(
    tmp_path: Path,
) -> None:
    fixes = "whitelist,inject,gate-open"
    installed, out = round_trip(tmp_path, gemini_cli.CLI, USERS, fixes, PROGRAM)
    assert f"installed {fixes}" in out and "--skip-trust" in out
    users = json.loads(USERS)
    assert installed["model"] == users["model"] and installed["hooks"]["enabled"] is True
    assert installed["hooks"]["BeforeTool"][0] == users["hooks"]["BeforeTool"][0]
    assert installed["hooks"]["BeforeTool"][1]["matcher"] == f"^{TOOL}$"
    assert installed["hooks"]["AfterAgent"][0]["hooks"][0]["command"].endswith(
        f"--product gemini-cli {fixes}"
    )


def test_a_fresh_gemini_install_is_removed_with_its_folder(tmp_path: Path) -> None:
    assert main(["hooks", "install", "--product", "gemini-cli", "--command", PROGRAM,
                 str(tmp_path)]) == 0  # fmt: skip
    assert sorted(json.loads(_settings(tmp_path).read_text("utf-8"))["hooks"]) == [
        "AfterAgent", "AfterTool", "BeforeAgent", "BeforeTool"
    ]  # fmt: skip
    assert main(["hooks", "uninstall", "--product", "gemini-cli", str(tmp_path)]) == 0
    assert list(tmp_path.iterdir()) == []
