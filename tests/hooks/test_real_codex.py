"""The fixes inside the real Codex CLI binary (`make agents`), outside any benchmark: a project
where `todo-bench hooks install --product codex` was run, `codex exec` against a local stub of
the Responses API playing a script. An update_plan that drops a step is denied with the
whitelist's reason, which the model reads as the call's output; the list reaches the model after
each successful call; a claim of done with a step open is blocked once, and the model reads why;
the plan that keeps every step and the final claim go through. Each counted exactly. Heavy:
about 10 s."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from harness.agents.binaries import binary
from harness.commands import main
from harness.hooks.hosts import HOSTS
from harness.hooks.journal import HOOK_JOURNAL, HookRecord
from harness.hooks.state import HOOK_STATE
from harness.products.shipped import codex
from tests.hooks.conftest import counted, real_cli
from tests.hooks.responses_stub import CODEX, Call, ResponsesStub, Say, Turn, codex_exec, serving

pytestmark = real_cli(CODEX)

HOST = HOSTS[codex.CLI]
#: what a user runs headless in a project whose hooks they have not reviewed in `codex`
TRUSTED = ("--trust", "--dangerously-bypass-hook-trust")


def _plan(*rows: tuple[str, str]) -> dict[str, Any]:
    return {"plan": [{"step": text, "status": status} for text, status in rows]}


PLANNED = _plan(("Write a.md", "in_progress"), ("Write b.md", "pending"))
DROPPED = _plan(("Write a.md", "completed"))  # b.md left out: the whitelist's fault
KEPT = _plan(("Write a.md", "completed"), ("Write b.md", "completed"))
CLAIM = "All tasks are complete."
SCRIPT: list[Turn] = [
    [Call(codex.PLAN.tool, PLANNED)],
    [Call(codex.SHELL.tool, {codex.SHELL.command: "echo a > a.md && echo b > b.md"})],
    [Call(codex.PLAN.tool, DROPPED)],
    [Say(CLAIM)],  # b.md still pending in the stored plan: blocked
    [Call(codex.PLAN.tool, KEPT)],
    [Say(CLAIM)],
]


def _run(
    tmp: Path,
    flags: tuple[str, ...],
    script: list[Turn] = SCRIPT,
    fixes: str = "whitelist,inject,gate-open",
) -> tuple[ResponsesStub, list[HookRecord]]:
    project = tmp / "project"
    project.mkdir()
    assert main(["hooks", "install", "--product", "codex", "--fix", fixes, str(project)]) == 0
    journal = tmp / "hooks.jsonl"
    stub = ResponsesStub(script)
    env = {HOOK_JOURNAL: str(journal), HOOK_STATE: str(tmp / "state")}
    with serving(stub):
        done = codex_exec(binary(CODEX), project, tmp / "home", stub, "Write a.md and b.md",
                          flags, env)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = journal.read_text(encoding="utf-8").splitlines() if journal.is_file() else []
    return stub, [HookRecord.model_validate_json(line) for line in lines]


def _outputs(request: dict[str, Any]) -> list[str]:
    return [str(i["output"]) for i in request["input"] if i.get("type") == "function_call_output"]


def _texts(request: dict[str, Any], role: str) -> list[str]:
    return [
        part["text"]
        for item in request["input"]
        if item.get("type") == "message" and item.get("role") == role
        for part in item["content"]
    ]


def test_codex_meets_the_whitelist_the_injection_and_the_gate(tmp_path: Path) -> None:
    stub, records = _run(tmp_path, TRUSTED)
    reason = counted(records, HOST, PLANNED["plan"], DROPPED["plan"])
    blocked = records[3]
    planned_list = records[0].text

    assert len(stub.requests) == len(SCRIPT)
    # the model reads the denial as the call's output, in Codex's words around the reason
    after_drop = _outputs(stub.requests[3])[-1]
    assert after_drop == f"Tool call blocked by PreToolUse hook: {reason}. Tool: {codex.PLAN.tool}"
    # and the blocked stop's reason as a user message, XML-escaped inside Codex's hook_prompt
    reply = blocked.text.split(": ", 1)[1]
    prompt = _texts(stub.requests[4], "user")[-1]
    assert prompt.startswith("<hook_prompt ") and prompt.endswith(f">{escape(reply)}</hook_prompt>")
    assert "Write b.md" in reply
    # the injected list is a developer message after each successful call
    assert _texts(stub.requests[1], "developer")[-1] == planned_list
    # the plan that keeps every step ran; the first and the last did too
    assert _outputs(stub.requests[5])[-1] == codex.PLAN_TAKEN
    plans = [c for path in codex.sessions(tmp_path / "home") for c in codex.calls(path)
             if c.tool == codex.PLAN.tool]  # fmt: skip
    assert [c.refused for c in plans] == [False, True, False]


def test_codex_runs_no_project_hook_it_was_not_told_to_trust(tmp_path: Path) -> None:
    """Without a trusted project and trusted hooks, Codex loads none of the project's hooks:
    the dropping plan goes through and the claim ends the run (why `hooks install` says how to
    trust them)."""
    stub, records = _run(tmp_path, ())
    assert records == []
    assert _outputs(stub.requests[3])[-1] == codex.PLAN_TAKEN
    assert len(stub.requests) == 4  # the claim ended the run
    assert json.dumps(stub.requests[-1]).count("hook_prompt") == 0


def test_codex_s_heuristic_gate_reads_the_work_its_shell_did(tmp_path: Path) -> None:
    """On a user's machine Codex writes files through its shell: the heuristic gate ticks a step
    by what the command wrote (borne out by the folder), refuses the claim while b.md is not
    written, and lets it through once it is: one refusal, exactly."""
    script: list[Turn] = [
        [Call(codex.PLAN.tool, _plan(("Write a.md", "in_progress"), ("Write b.md", "pending")))],
        [Call(codex.SHELL.tool, {codex.SHELL.command: "echo a > a.md"})],
        [Say(CLAIM)],  # b.md not written: refused
        [Call(codex.SHELL.tool, {codex.SHELL.command: "cat > b.md <<'EOF'\nb\nEOF"})],
        [Say(CLAIM)],
    ]
    stub, records = _run(tmp_path, TRUSTED, script, fixes="gate-heuristic")
    assert len(stub.requests) == len(script)
    assert [r.action for r in records] == ["blocked"]
    assert "Write b.md" in records[0].text and "[x] Write a.md" in records[0].text
    assert (tmp_path / "project" / "b.md").read_text(encoding="utf-8") == "b\n"


def test_the_codex_gate_row_sends_the_sloppy_agent_back_to_work(tmp_path: Path) -> None:
    """The board's `cli/codex+gate` on long_list, where sim/sloppy claims done with work left
    (the bare `cli/codex` row ends on that false claim): Codex's Stop hook refuses it, the
    refusal reaches the agent as a `<hook_prompt>` user message, and the task is done; each
    blocked stop in the hooks' journal is a blocked claim on the board, exactly. About 90 s."""
    from inspect_ai import eval

    from harness.run.task import build_task

    task = build_task(variant="cli/codex+gate", scenarios="long_list", cli_sandbox="local")
    log = eval(task, model="sim/sloppy", display="none", log_dir=str(tmp_path), max_samples=1)[0]
    assert log.status == "success", log.error
    assert log.samples
    journal = [HookRecord.model_validate(r) for r in log.samples[0].store["HookJournal:records"]]
    blocked = [r for r in journal if r.action == "blocked"]
    (score,) = [dict(s.scores["todo_scorer"].value) for s in log.samples]  # type: ignore[index,arg-type]
    assert len(blocked) >= 1
    assert score["blocked_completions"] == len(blocked)
    assert score["task_success"] == 1.0 and score["false_completion"] == 0.0
    assert score["gate_exhausted"] == 0.0
