"""The fixes inside the real Gemini CLI (`make agents`), outside any benchmark: a project where
`todo-bench hooks install --product gemini-cli` was run, `gemini -p --yolo` in a trusted folder
against a local stub of the Gemini API playing a script. A write_todos that drops an item is
denied with the whitelist's reason, which the model reads as the call's error; the list reaches
the model after each successful call and with the prompt that follows a refused stop; a claim
of done with an item open is refused once at AfterAgent, and the model reads why as its next
prompt; the list that keeps every item and the final claim go through. Each counted exactly.
Heavy: about 10 s."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.agents.binaries import binary
from harness.commands import main
from harness.hooks.hosts import HOSTS
from harness.hooks.journal import HOOK_JOURNAL, HookRecord
from harness.hooks.state import HOOK_STATE
from harness.products.shipped import gemini_cli
from harness.products.shipped.gemini_cli import answer
from tests.hooks.conftest import real_cli, verdicts
from tests.hooks.gemini_stub import GEMINI, GeminiStub, gemini_run
from tests.hooks.responses_stub import Call, Say, Turn, serving

pytestmark = real_cli(GEMINI)

HOST = HOSTS[gemini_cli.CLI]
TODOS = gemini_cli.WRITE_TODOS


def _todos(*rows: tuple[str, str]) -> dict[str, Any]:
    return {TODOS.key: [{TODOS.text: text, "status": status} for text, status in rows]}


PLANNED = _todos(("Write a.md", "in_progress"), ("Write b.md", "pending"))
DROPPED = _todos(("Write a.md", "completed"))  # b.md left out: the whitelist's fault
KEPT = _todos(("Write a.md", "completed"), ("Write b.md", "completed"))
CLAIM = "All tasks are complete."
SCRIPT: list[Turn] = [
    [Call(TODOS.tool, PLANNED)],
    [Call(gemini_cli.SHELL.tool, {gemini_cli.SHELL.command: "echo a > a.md && echo b > b.md"})],
    [Call(TODOS.tool, DROPPED)],
    [Say(CLAIM)],  # b.md still pending in the stored list: refused
    [Call(TODOS.tool, KEPT)],
    [Say(CLAIM)],
]


def _run(
    tmp: Path,
    env: dict[str, str] | None = None,
    script: list[Turn] = SCRIPT,
    fixes: str = "whitelist,inject,gate-open",
) -> tuple[GeminiStub, list[HookRecord]]:
    project = tmp / "project"
    project.mkdir()
    assert main(["hooks", "install", "--product", gemini_cli.CLI, "--fix", fixes,
                 str(project)]) == 0  # fmt: skip
    journal = tmp / "hooks.jsonl"
    stub = GeminiStub(script)
    hooks = {HOOK_JOURNAL: str(journal), HOOK_STATE: str(tmp / "state")}
    with serving(stub):
        done = gemini_run(binary(GEMINI), project, tmp / "home", stub, "Write a.md and b.md",
                          {**hooks, **(env or {})})  # fmt: skip
    if env is None:
        assert done.returncode == 0, done.stderr[-2000:]
    lines = journal.read_text(encoding="utf-8").splitlines() if journal.is_file() else []
    return stub, [HookRecord.model_validate_json(line) for line in lines]


def _context(text: str) -> str:
    """Context as the model reads it: Gemini CLI escapes its `<` and `>` (the in-progress
    marker `[>]` is `[&gt;]`) and wraps it in `<hook_context>`."""
    escaped = text.replace("<", "&lt;").replace(">", "&gt;")
    return f"<hook_context>{escaped}</hook_context>"


def _parts(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [part for content in request["contents"] for part in content["parts"]]


def _responses(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [p["functionResponse"]["response"] for p in _parts(request) if "functionResponse" in p]


def _texts(request: dict[str, Any]) -> list[str]:
    return [p["text"] for p in _parts(request) if "text" in p]


def test_gemini_cli_meets_the_whitelist_the_injection_and_the_gate(tmp_path: Path) -> None:
    stub, records = _run(tmp_path)
    # the rule code's own verdicts, computed here in-process from the same lists
    reason, planned_list, kept_list = verdicts(
        HOST, PLANNED[TODOS.key], DROPPED[TODOS.key], KEPT[TODOS.key]
    )

    assert [(r.event, r.action) for r in records] == [
        ("AfterTool", "injected"),
        ("AfterTool", "injected"),
        ("BeforeTool", "denied"),
        ("AfterAgent", "blocked"),
        ("BeforeAgent", "injected"),  # the refusal's reason is the next prompt
        ("AfterTool", "injected"),
    ]
    denied, blocked = records[2], records[3]
    assert (denied.tool, denied.text) == (TODOS.tool, reason)
    assert records[0].text == records[1].text == records[4].text == planned_list
    assert records[5].text == kept_list

    assert len(stub.requests) == len(SCRIPT)
    # the injected list comes after the call's own answer, in Gemini CLI's hook_context
    written = answer(PLANNED[TODOS.key])
    assert _responses(stub.requests[1])[-1] == {"output": f"{written}\n\n{_context(planned_list)}"}
    # the model reads the denial as the call's error, in Gemini CLI's words around the reason
    assert _responses(stub.requests[3])[-1] == {"error": f"Tool execution blocked: {reason}"}
    # and the refused stop's reason as its next prompt, with the list beside it
    reply = blocked.text.split(": ", 1)[1]
    assert "Write b.md" in reply
    assert _texts(stub.requests[4])[-2:] == [reply, _context(planned_list)]
    # the list that keeps every item ran; the first did too; the dropping one did not
    assert _responses(stub.requests[5])[-1] == {
        "output": f"{answer(KEPT[TODOS.key])}\n\n{_context(kept_list)}"
    }
    record = [c for path in gemini_cli.sessions(tmp_path / "home") for c in gemini_cli.calls(path)
              if c.tool == TODOS.tool]  # fmt: skip
    assert [c.refused for c in record] == [False, True, False]
    assert "Tool execution blocked" not in json.dumps(stub.requests[5]["contents"][-1])


def test_gemini_cli_runs_nothing_in_a_folder_it_does_not_trust(tmp_path: Path) -> None:
    """Without the folder trusted, `gemini -p` stops before its first model request, so no
    hook runs (why `hooks install` says how to trust the folder)."""
    stub, records = _run(tmp_path, {"GEMINI_CLI_TRUST_WORKSPACE": ""})
    assert records == [] and stub.requests == []


#: a tool call written as text, as sim/sloppy writes one (a fault the gate refuses)
FAKE_CALL = 'Next I will run this tool:\n```json\n{"name": "read_file", "arguments": {}}\n```'


def test_a_stop_is_judged_by_the_text_it_added_not_by_an_earlier_refused_one(
    tmp_path: Path,
) -> None:
    """Gemini CLI's AfterAgent `prompt_response` holds every answer since the prompt: the gate
    refuses the tool call written as text once, and the claim that follows the finished work
    goes through (judged whole, the fake call was read again at every stop: a trial `+gate`
    board episode was refused until its turns ran out)."""
    script: list[Turn] = [
        [Call(TODOS.tool, PLANNED)],
        [Say(FAKE_CALL)],  # refused: nothing was executed
        [Call(TODOS.tool, KEPT)],
        [Say(CLAIM)],  # every item done: the claim ends the run
    ]
    stub, records = _run(tmp_path, script=script, fixes="gate-open")
    assert [(r.event, r.action, r.text.split(":")[0]) for r in records] == [
        ("AfterAgent", "blocked", "fake_tool_call")
    ]
    assert len(stub.requests) == len(script)
