"""The hooks inside the real Claude Code binary (`make agents`), offline: a scripted model
drives it through inspect-swe's bridge in the local sandbox, with `todo-bench hooks install`'s
settings in the project. A TodoWrite that drops an item is denied, and the model reads the
seed's refusal as the tool's error; the list reaches the model after each accepted one; a stop
with an open item is blocked once, and the model reads why. Heavy: about 20 s."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.agent import as_solver
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageTool, ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_swe import claude_code

from harness.agents.binaries import binary
from harness.agents.bridge_ports import sample_bridge_ports
from harness.hooks.install import install
from harness.hooks.journal import HOOK_JOURNAL, HookRecord
from harness.hooks.state import HOOK_STATE
from harness.products.catalog import PRODUCTS
from tests.agents import cli_script
from tests.hooks.conftest import real_cli

PRODUCT = PRODUCTS["cli/claude-code-todowrite"]
pytestmark = real_cli(PRODUCT)


def _todos(*rows: tuple[str, str]) -> dict[str, Any]:
    return {"todos": [{"content": t, "status": s, "activeForm": t} for t, s in rows]}


#: the main loop's turns
TURNS: list[cli_script.Turn] = [
    lambda root: [("TodoWrite", _todos(("Write a.md", "in_progress"), ("Write b.md", "pending")))],
    lambda root: [("TodoWrite", _todos(("Write a.md", "completed")))],  # drops b.md: denied
    None,  # "All tasks are complete." with b.md open: blocked
    lambda root: [("TodoWrite", _todos(("Write a.md", "completed"), ("Write b.md", "completed")))],
    None,
]


@solver
def on_own_ports(agent: Solver) -> Solver:
    """`agent` (one Claude Code run) served on a bridge block of its own, as the benchmark's
    episodes are: the heavy suite runs other CLI tests beside it."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        async with sample_bridge_ports("claude_code", runs=1):
            return await agent(state, generate)

    return solve


def test_claude_code_meets_the_whitelist_the_injection_and_the_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    install(
        project,
        ("whitelist", "inject", "gate-open"),
        str(Path(sys.executable).parent / "todo-bench-hook"),
    )
    meets_the_fixes(tmp_path, project, home, monkeypatch)


def meets_the_fixes(
    tmp_path: Path, project: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The script played through Claude Code in `project` with `home` as its HOME, wherever
    the fixes' hooks were installed (the project's settings, or a plugin in HOME); each hook's
    action counted exactly."""
    journal = tmp_path / "hooks.jsonl"
    path = os.pathsep.join([str(binary(PRODUCT).parent), "/usr/bin", "/bin"])
    # inspect-swe finds a `version="sandbox"` CLI on the sandbox's PATH (the host's here)
    monkeypatch.setenv("PATH", path + os.pathsep + os.environ.get("PATH", ""))
    # inspect-swe writes the CLI's settings into the sandbox's $HOME: the test's, not the user's
    monkeypatch.setenv("HOME", str(home))
    agent = on_own_ports(
        as_solver(
            claude_code(
                version="sandbox",
                model_config=PRODUCT.model_config_id,
                cwd=str(project),
                env={
                    **PRODUCT.env,
                    "HOME": str(home),
                    "PATH": path,
                    HOOK_JOURNAL: str(journal),
                    HOOK_STATE: str(tmp_path / "state"),
                },
            )
        )
    )
    cli_script.play(TURNS)
    task = Task(dataset=[Sample(input="Write a.md and b.md.")], solver=agent, sandbox="local")
    (log,) = eval(task, model="cliscript/x", display="none", log_dir=str(tmp_path / "logs"))
    assert log.status == "success", log.error
    records = [HookRecord.model_validate_json(line) for line in journal.read_text().splitlines()]
    assert [(r.event, r.action) for r in records] == [
        ("PostToolUse", "injected"),
        ("PreToolUse", "denied"),
        ("Stop", "blocked"),
        ("PostToolUse", "injected"),
    ]
    assert len(cli_script.SEEN) == len(TURNS)
    refused = [m for m in cli_script.SEEN[2] if isinstance(m, ChatMessageTool)][-1]
    assert "missing ids: #2 'Write b.md'" in refused.text
    assert "Current todo list (kept by the system" in "\n".join(m.text for m in cli_script.SEEN[1])
    told = [m for m in cli_script.SEEN[3] if isinstance(m, ChatMessageUser)][-1]
    assert "Completion blocked: not every subtask is done yet." in told.text
