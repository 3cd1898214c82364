"""The fixes inside the real OpenCode binary (`make agents`), outside any benchmark: a project
where `todo-bench hooks install --product opencode` was run, `opencode run` against a local stub
of a chat completions API playing a script. A todowrite that drops an item is refused with the
whitelist's reason, which the model reads as the call's result; the list reaches the model in
each successful call's result; a claim of done with an item open is refused once, and the model
reads why as a user message and answers it; a text beside a call is no stop; the list that keeps
every item and the final claim go through. Each counted exactly. Heavy: about 15 s."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.agents.binaries import AgentMissing, binary
from harness.commands import main
from harness.hooks.hosts import HOSTS
from harness.hooks.journal import HOOK_JOURNAL, HookRecord
from harness.hooks.state import HOOK_STATE
from harness.products.shipped import opencode
from tests.hooks.chat_stub import OPENCODE, AnthropicStub, ChatStub, opencode_run
from tests.hooks.conftest import counted
from tests.hooks.responses_stub import Call, Say, Turn, serving

pytestmark = [pytest.mark.heavy]
try:
    binary(OPENCODE)
except AgentMissing as missing:
    pytestmark.append(pytest.mark.skip(reason=f"{missing} (CI runs make agents first)"))

HOST = HOSTS[opencode.CLI]
TOOL = opencode.TODOWRITE.tool


def _todos(*rows: tuple[str, str]) -> dict[str, Any]:
    return opencode.TODOWRITE.entries(list(rows))


PLANNED = _todos(("Write a.md", "in_progress"), ("Write b.md", "pending"))
DROPPED = _todos(("Write a.md", "completed"))  # b.md left out: the whitelist's fault
KEPT = _todos(("Write a.md", "completed"), ("Write b.md", "completed"))
CLAIM = "All tasks are complete."
SHELL = {opencode.SHELL.command: "echo a > a.md && echo b > b.md", "description": "write both"}
SCRIPT: list[Turn] = [
    [Call(TOOL, PLANNED)],
    # a text with a call is no stop: not judged, though the list has open items
    [Say("Next I write both files."), Call(opencode.SHELL.tool, SHELL)],
    [Call(TOOL, DROPPED)],
    [Say(CLAIM)],  # b.md still pending in the stored list: refused
    [Call(TOOL, KEPT)],
    [Say(CLAIM)],
]


Stub = ChatStub | AnthropicStub


def _run(
    tmp: Path, stub: Stub | None = None, fixes: str = "whitelist,inject,gate-open"
) -> tuple[Stub, list[HookRecord], Path]:
    project = tmp / "project"
    project.mkdir()
    assert main(["hooks", "install", "--product", "opencode", "--fix", fixes, str(project)]) == 0
    journal = tmp / "hooks.jsonl"
    stub = stub or ChatStub(SCRIPT)
    env = {HOOK_JOURNAL: str(journal), HOOK_STATE: str(tmp / "state")}
    with serving(stub):
        done = opencode_run(binary(OPENCODE), project, tmp / "home", stub, "Write a.md and b.md",
                            env)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = journal.read_text(encoding="utf-8").splitlines() if journal.is_file() else []
    return stub, [HookRecord.model_validate_json(line) for line in lines], project


def _contents(request: dict[str, Any], role: str) -> list[str]:
    """The text of each message of `role` in one request (a user message's parts joined)."""
    out = []
    for message in request["messages"]:
        if message.get("role") != role:
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "\n".join(part.get("text", "") for part in content)
        out.append(str(content))
    return out


def test_opencode_meets_the_whitelist_the_injection_and_the_gate(tmp_path: Path) -> None:
    stub, records, project = _run(tmp_path)
    reason = counted(records, HOST, PLANNED["todos"], DROPPED["todos"])
    blocked = records[3]
    planned_list = records[0].text

    assert len(stub.requests) == len(SCRIPT)
    # the model reads the denial as the call's result: the thrown message, as it is
    assert _contents(stub.requests[3], "tool")[-1] == reason
    # the injected list ends each successful call's result
    assert _contents(stub.requests[1], "tool")[-1].endswith(f"\n\n{planned_list}")
    assert _contents(stub.requests[2], "tool")[-1].endswith(f"\n\n{planned_list}")
    # the refused stop: the gate's reply is the next user message, after the claim
    reply = blocked.text.split(": ", 1)[1]
    assert "Write b.md" in reply
    assert _contents(stub.requests[4], "assistant")[-1] == CLAIM
    assert _contents(stub.requests[4], "user")[-1] == reply
    # the list that keeps every item ran (its result is the stored list, then ours)
    kept = _contents(stub.requests[5], "tool")[-1]
    assert json.loads(kept.split("\n\n")[0]) == KEPT["todos"]
    # uninstall takes the plugin out again; OpenCode's own files in .opencode stay
    assert main(["hooks", "uninstall", "--product", "opencode", str(project)]) == 0
    assert not (project / HOST.config).exists()


#: a claim written before a call of the same answer (Anthropic's API ends the text's block
#: first, as the board's provider does): judged at its end with an item open, refused, and taken
#: back when the call runs; the claim after the work goes through
CLAIM_THEN_CALL: list[Turn] = [
    [Call(TOOL, PLANNED)],
    [Say(CLAIM), Call(opencode.SHELL.tool, SHELL)],
    [Call(TOOL, KEPT)],
    [Say(CLAIM)],
]


def test_a_refused_text_whose_answer_calls_a_tool_is_taken_back(tmp_path: Path) -> None:
    stub, records, _ = _run(tmp_path, AnthropicStub(CLAIM_THEN_CALL), "gate-open")
    assert [(r.event, r.action) for r in records] == [("Stop", "blocked"),
                                                      ("StopWithdrawn", "withdrawn")]  # fmt: skip
    reply = records[0].text.split(": ", 1)[1]
    assert len(stub.requests) == len(CLAIM_THEN_CALL)
    # the model never reads the refusal: OpenCode leaves its ignored part out of every request
    told = [json.dumps(m) for request in stub.requests for m in request["messages"]]
    assert not any(reply[:40] in message for message in told)
    assert (tmp_path / "project" / "b.md").is_file()
