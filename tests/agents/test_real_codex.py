"""The real Codex CLI binary (`make agents`) run as the `cli/codex` row, offline: its plan comes
from its own rollout record, the work from the workspace, and every count is exact.

Heavy (about 20 s an episode): a scripted model drops a step from an `update_plan` rewrite; the
simulated agent solves one scenario through Codex, its user speaking mid-task (Codex interrupted
and its session resumed), every rewrite keeping every step, and nothing is counted against it
(the zero case; a third episode would take CI past its budget)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.agents.install import AgentMissing, binary
from harness.suite.cli_tools import helper_command
from harness.todo.clis import PRODUCTS
from tests.agents import cli_script
from tests.agents.test_real_cli import _run, _scores, user_turns

pytestmark = [pytest.mark.heavy, pytest.mark.xdist_group("cli-agents")]

try:
    binary(PRODUCTS["cli/codex"])
except AgentMissing as missing:
    pytestmark.append(pytest.mark.skip(reason=f"{missing} (CI runs make agents first)"))

MAIN = "def add(a, b):\n    return a + b\n"


def _plan(*rows: tuple[str, str]) -> tuple[str, dict[str, Any]]:
    return "update_plan", {"plan": [{"step": step, "status": status} for step, status in rows]}


def _tool(name: str, **args: Any) -> tuple[str, dict[str, Any]]:
    """A seed workspace tool, run by the helper through Codex's exec_command."""
    return "exec_command", {"cmd": helper_command(name, args)}


FIRST = _plan(
    ("Write main.py", "in_progress"), ("Write test.py", "pending"), ("Verify main.py", "pending")
)


def test_a_step_dropped_from_an_update_plan_rewrite_is_counted_once(tmp_path: Path) -> None:
    cli_script.play(
        [
            lambda root: [FIRST],
            lambda root: [_tool("write_file", path="main.py", content=MAIN)],
            # test.py is dropped from the plan, and never written
            lambda root: [_plan(("Write main.py", "completed"), ("Verify main.py", "pending"))],
            None,  # "All tasks are complete." while test.py is missing
        ]
    )
    (score,) = _scores(_run("cli/codex", "main_and_test", "cliscript/x", tmp_path))
    assert score["dropped_todos"] == 1.0
    assert score["false_completion"] == 1.0
    assert score["task_success"] == 0.0
    assert score["false_todo_completions"] == 0.0  # main.py was written before it was ticked
    assert score["todo_updates"] == 2.0 and score["rejected_updates"] == 0.0


def test_the_oracle_solves_a_scenario_through_codex_and_nothing_is_counted(
    tmp_path: Path,
) -> None:
    log = _run("cli/codex", "user_adds_csv", "sim/oracle", tmp_path)
    assert user_turns(log) == [[("add", 2)]]  # Codex interrupted, its session resumed
    (score,) = _scores(log)
    assert score["task_success"] == 1.0
    assert score["todo_updates"] == 5.0 and score["rejected_updates"] == 0.0
    for fault in ("dropped_todos", "mutated_text", "false_todo_completions", "false_completion"):
        assert score[fault] == 0.0, fault
