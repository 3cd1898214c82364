"""The fixes as Codex CLI hooks (`todo-bench-hook --product codex`): the same rule code judges
update_plan's `plan: [{step, status}]`. Each fix fires on its fault with the fix's reason and
lets every other call through; `hooks install --product codex` merges into `.codex/hooks.json`
and uninstall restores it byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.commands import main
from harness.episode.prompts import GATE_BLOCKED
from harness.hooks.hosts import HOSTS
from harness.hooks.settings import hooks_for
from harness.products.shipped import claude_code, codex
from tests.hooks.conftest import Hooks, denial, round_trip, todos

PLAN = ("List the files", "Write main.py", "Write test.py")
CURRENT = (
    "Current list:\n[ ] #1: List the files\n[ ] #2: Write main.py\n[ ] #3: Write test.py\n"
    "(0/3 completed)"
)
TOOL = codex.PLAN.tool


def steps(*texts: str, done: tuple[str, ...] = ()) -> list[dict[str, str]]:
    """An update_plan plan: the texts, those in `done` completed, the rest pending."""
    return [{"step": t, "status": "completed" if t in done else "pending"} for t in texts]


@pytest.fixture
def cx(tmp_path: Path) -> Hooks:
    return Hooks(tmp_path, product=codex.CLI)


def _plan(hooks: Hooks, event: str, plan: list[dict[str, str]], **fields: Any) -> dict[str, Any]:
    # as Codex 0.171.0 sends it: turn_id and model added, transcript_path null when it has none
    return hooks.event(
        event,
        tool_name=TOOL,
        tool_input={"plan": plan},
        tool_use_id="call_1",
        turn_id="t1",
        model="gpt-5.4",
        transcript_path=None,
        **fields,
    )


def _planned(hooks: Hooks, fixes: str) -> None:
    reply = hooks.run(fixes, _plan(hooks, "PostToolUse", steps(*PLAN), tool_response="ok"))
    assert (reply.code, reply.answer) == (0, None), reply.stderr


def test_whitelist_denies_an_update_plan_that_drops_a_step(cx: Hooks) -> None:
    _planned(cx, "whitelist")
    reply = cx.run("whitelist", _plan(cx, "PreToolUse", steps(*PLAN[:2], done=PLAN[:1])))
    reason = (
        "Update rejected: the list must contain exactly the stored ids (keep every stored item "
        "and mark finished ones completed; new items may be added). missing ids: #3 "
        "'Write test.py'.\n" + CURRENT
    )
    assert (reply.code, reply.answer) == (0, denial(reason))
    (record,) = cx.journal()
    assert (record.action, record.event, record.tool, record.text) == (
        "denied", "PreToolUse", TOOL, reason
    )  # fmt: skip


def test_textlock_denies_a_reworded_step_naming_update_plan(cx: Hooks) -> None:
    _planned(cx, "textlock")
    sent = steps("List the files", "Write the main.py file", "Write test.py")
    reply = cx.run("textlock", _plan(cx, "PreToolUse", sent))
    reason = (
        f"Update rejected: todo text cannot change in a rewrite ({TOOL} cannot rename an item: "
        "keep each stored item's text exactly). #2 must keep its text 'Write main.py'.\n" + CURRENT
    )
    assert reply.answer == denial(reason)


def test_a_kept_plan_and_a_first_plan_go_through(cx: Hooks) -> None:
    first = cx.run("textlock,whitelist", _plan(cx, "PreToolUse", steps(*PLAN)))
    assert (first.code, first.answer) == (0, None)  # nothing stored yet: the plan defines it
    _planned(cx, "textlock,whitelist")
    for sent in (
        steps(*PLAN, done=PLAN[:2]),
        steps(*reversed(PLAN)),
        steps(*PLAN, "Run the tests"),
        # two steps in progress: Codex refuses it itself, so the hooks leave it to the product
        [{"step": t, "status": "in_progress"} for t in PLAN[:2]],
    ):
        reply = cx.run("textlock,whitelist", _plan(cx, "PreToolUse", sent))
        assert (reply.code, reply.answer) == (0, None), sent
    assert cx.journal() == []


def test_each_product_judges_only_its_own_todo_tool(cx: Hooks, tmp_path: Path) -> None:
    _planned(cx, "whitelist")
    claude = cx.todo_write("PreToolUse", todos(*PLAN[:1]))
    assert cx.run("whitelist", claude).answer is None  # TodoWrite is not Codex's tool
    cc = Hooks(tmp_path / "cc")
    cc.tmp.mkdir()
    cc.run("whitelist", cc.todo_write("PostToolUse", todos(*PLAN)))
    assert cc.run("whitelist", _plan(cc, "PreToolUse", steps(*PLAN[:1]))).answer is None
    assert cc.run("whitelist", cc.todo_write("PreToolUse", todos(*PLAN[:1]))).answer is not None


def test_inject_adds_the_plan_after_each_successful_call(cx: Hooks) -> None:
    empty = cx.run("inject", cx.event("PostToolUse", tool_name="Bash", tool_input={}))
    assert empty.answer is None  # no plan yet
    reply = cx.run("inject", _plan(cx, "PostToolUse", steps(*PLAN, done=PLAN[:1])))
    text = (
        "Current todo list (kept by the system, always up to date):\n[x] #1: List the files\n"
        "[ ] #2: Write main.py\n[ ] #3: Write test.py\n(1/3 completed)"
    )
    assert reply.answer == {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}
    }
    shell = cx.run("inject", cx.event("PostToolUse", tool_name="Bash", tool_input={}))
    assert shell.answer == reply.answer  # Codex names its exec_command `Bash` to hooks


def test_gate_open_blocks_a_claim_while_a_step_is_open(cx: Hooks) -> None:
    cx.run("gate-open", _plan(cx, "PostToolUse", steps(*PLAN[:2], done=PLAN[:1])))
    stop = cx.event("Stop", stop_hook_active=False, last_assistant_message="All done.")
    state = "[x] #1: List the files\n[ ] #2: Write main.py\n(1/2 completed)"
    blocked = cx.run("gate-open", stop)
    assert blocked.answer == {"decision": "block", "reason": GATE_BLOCKED.format(state=state)}
    admitted = cx.event("Stop", stop_hook_active=False, last_assistant_message="I could not "
                        "write main.py: the folder is read-only.")  # fmt: skip
    assert cx.run("gate-open", admitted).answer is None
    cx.run("gate-open", _plan(cx, "PostToolUse", steps(*PLAN[:2], done=PLAN[:2])))
    assert cx.run("gate-open", stop).answer is None
    assert [r.action for r in cx.journal()] == ["blocked"]


def test_the_heuristic_gate_reads_the_work_codex_does_through_its_shell(cx: Hooks) -> None:
    """On a user's machine Codex writes files with shell commands and patches (no helper
    command): the gate ticks a step by what a command's words say, borne out by the folder."""
    fixes = "gate-heuristic"
    cx.run(fixes, _plan(cx, "PostToolUse", steps(*PLAN[1:])))
    stop = cx.event("Stop", stop_hook_active=False, last_assistant_message="All done.")

    def shell(command: str) -> dict[str, Any]:
        return cx.event("PostToolUse", tool_name="Bash", tool_input={"command": command})

    write_main = "cat > main.py <<'EOF'\nprint('hi')\nEOF"
    cx.run(fixes, shell(write_main))  # the file is not there: the command did not write it
    assert cx.run(fixes, stop).answer is not None
    (cx.tmp / "main.py").write_text("print('hi')\n", encoding="utf-8")
    cx.run(fixes, shell(write_main))
    patch = "*** Begin Patch\n*** Add File: test.py\n+assert True\n*** End Patch"
    (cx.tmp / "test.py").write_text("assert True\n", encoding="utf-8")
    cx.run(fixes, shell(f"apply_patch <<'PATCH'\n{patch}\nPATCH"))
    assert cx.run(fixes, stop).answer is None
    assert [r.action for r in cx.journal()] == ["blocked"]


def test_a_session_rebuilds_its_plan_from_the_codex_rollout(cx: Hooks) -> None:
    """Hooks installed mid-session: the accepted update_plan calls of the rollout are the list;
    a refused one is not."""
    rollout = cx.tmp / "rollout.jsonl"
    lines = []
    for n, plan, answer in (
        (1, steps(*PLAN), codex.PLAN_TAKEN),
        (2, steps(*PLAN[:1]), "Tool call blocked by PreToolUse hook: no. Tool: update_plan"),
    ):
        call = {"type": "function_call", "name": TOOL, "call_id": f"c{n}",
                "arguments": json.dumps({"plan": plan})}  # fmt: skip
        output = {"type": "function_call_output", "call_id": f"c{n}", "output": answer}
        lines += [{"type": "response_item", "payload": p} for p in (call, output)]
    rollout.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    payload = _plan(cx, "PreToolUse", steps(*PLAN[:2]))
    payload["transcript_path"] = str(rollout)
    reply = cx.run("whitelist", payload)
    assert reply.answer is not None and "missing ids: #3 'Write test.py'" in json.dumps(
        reply.answer
    )


# -- hooks install --product codex -------------------------------------------------------------

PROGRAM = "/opt/venv/bin/todo-bench-hook"
#: a user's own Codex hooks file, spaced their way
USERS = (
    '{\n  "hooks": {\n    "PreToolUse": [\n      {"matcher": "update_plan", "hooks": '
    '[{"type": "command", "command": "audit.sh", "timeout": 5}]}\n    ],\n'
    '    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]\n  }\n}\n'
)


def _hooks_file(folder: Path) -> Path:
    return folder / HOSTS[codex.CLI].config


def test_the_codex_hooks_section_names_update_plan_and_the_product() -> None:
    command = {"type": "command", "command": f"{PROGRAM} --product codex whitelist,gate-open",
               "timeout": 30}  # fmt: skip
    assert hooks_for(("whitelist", "gate-open"), PROGRAM, HOSTS[codex.CLI]) == {
        "PreToolUse": [{"matcher": TOOL, "hooks": [command]}],
        "PostToolUse": [{"matcher": TOOL, "hooks": [command]}],
        "Stop": [{"hooks": [command]}],
    }


def test_codex_install_merges_with_the_users_hooks_and_uninstall_restores_bytes(
    tmp_path: Path,
) -> None:
    installed, out = round_trip(tmp_path, codex.CLI, USERS, "whitelist,inject,gate-open", PROGRAM)
    assert "installed whitelist,inject,gate-open" in out and "--trust" in out
    users = json.loads(USERS)["hooks"]
    assert installed["hooks"]["PreToolUse"][0] == users["PreToolUse"][0]
    assert installed["hooks"]["Stop"][0] == users["Stop"][0]
    assert installed["hooks"]["Stop"][1]["hooks"][0]["command"].endswith(
        "--product codex whitelist,inject,gate-open"
    )


def test_both_products_in_one_project_are_installed_and_removed_apart(tmp_path: Path) -> None:
    for product in ("claude-code", "codex"):
        assert main(["hooks", "install", "--product", product, "--command", PROGRAM,
                     str(tmp_path)]) == 0  # fmt: skip
    assert main(["hooks", "uninstall", "--product", "codex", str(tmp_path)]) == 0
    assert not _hooks_file(tmp_path).parent.exists()  # the install had created .codex
    assert (tmp_path / HOSTS[claude_code.CLI].config).is_file()
    assert main(["hooks", "uninstall", str(tmp_path)]) == 0
    assert list(tmp_path.iterdir()) == []


def test_a_codex_hook_row_reaches_codex_exec_with_the_hooks_trust_bypassed(tmp_path: Path) -> None:
    """The board's wrapper: `codex exec ...` becomes `codex exec --dangerously-bypass-hook-trust
    ...` on the next `codex` on PATH (not itself); other commands and rows are left alone."""
    import subprocess

    from harness.agents.hooked import hooked_path
    from harness.products.catalog import PRODUCTS, with_hooks

    real = tmp_path / "real"
    real.mkdir()
    fake = real / "codex"
    fake.write_text('#!/bin/sh\necho "$@"\n', encoding="utf-8")
    fake.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    bare = PRODUCTS["cli/codex"]
    assert hooked_path(bare, home, str(real)) == str(real)
    path = hooked_path(with_hooks(bare, ("whitelist",)), home, f"{real}:/usr/bin:/bin")
    assert path.startswith(str(home))

    def run(*args: str) -> str:
        done = subprocess.run(["codex", *args], env={"PATH": path}, capture_output=True,
                              text=True, check=True)  # fmt: skip
        return done.stdout.strip()

    assert run("exec", "--color", "never", "do it") == (
        f"exec {codex.HOOKS_TRUST_FLAG} --color never do it"
    )
    assert run("--version") == "--version"
    claude = with_hooks(PRODUCTS["cli/claude-code-todowrite"], ("whitelist",))
    assert hooked_path(claude, home, str(real)) == str(real)
