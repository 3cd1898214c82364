"""The real full-list CLIs other than Claude Code (`make agents`), Codex CLI (`cli/codex`),
OpenCode (`cli/opencode`) and Gemini CLI (`cli/gemini-cli`), run offline: the list comes from the
product's own record (Codex's rollout, OpenCode's store, Gemini CLI's chat record), the work
from the workspace, and every count is exact.

Heavy (about 20 s an episode): a scripted model drops an item from a full-list rewrite; the
simulated agent solves one scenario through Codex, its user speaking mid-task (the CLI
interrupted and its session resumed), every rewrite keeping every item, and nothing is counted
against it (the zero case; OpenCode's is in test_real_cli.py). Claude Code's rows are
test_real_cli.py's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from harness.agents.binaries import AgentMissing, binary
from harness.products.catalog import PRODUCTS
from harness.suite.cli_tools import helper_command
from tests.agents import cli_script
from tests.agents.test_real_cli import _run, _scores, user_turns
from tests.agents.wrapped import NetworkTrace

pytestmark = pytest.mark.heavy

Call = tuple[str, dict[str, Any]]
MAIN = "def add(a, b):\n    return a + b\n"


class Dialect(NamedTuple):
    """How a CLI's row writes its whole list and a file."""

    variant: str
    todos: Callable[[list[tuple[str, str]]], Call]
    write: Callable[[str, str, str], Call]  # (root, path, content)


DIALECTS = [
    Dialect(
        "cli/codex",
        lambda rows: ("update_plan", {"plan": [{"step": t, "status": s} for t, s in rows]}),
        # a seed workspace tool, run by the helper through Codex's exec_command
        lambda root, path, content: (
            "exec_command",
            {"cmd": helper_command("write_file", {"path": path, "content": content})},
        ),
    ),
    Dialect(
        "cli/opencode",
        lambda rows: (
            "todowrite",
            {"todos": [{"content": t, "status": s, "priority": "high"} for t, s in rows]},
        ),
        lambda root, path, content: ("write", {"filePath": f"{root}/{path}", "content": content}),
    ),
    Dialect(
        "cli/gemini-cli",
        lambda rows: (
            "write_todos",
            {"todos": [{"description": t, "status": s} for t, s in rows]},
        ),
        lambda root, path, content: (
            "write_file",
            {"file_path": f"{root}/{path}", "content": content},
        ),
    ),
]


@pytest.fixture(params=DIALECTS, ids=lambda d: d.variant)
def dialect(request: pytest.FixtureRequest) -> Dialect:
    chosen: Dialect = request.param
    try:
        binary(PRODUCTS[chosen.variant])
    except AgentMissing as missing:
        pytest.skip(f"{missing} (CI runs make agents first)")
    return chosen


def test_an_item_dropped_from_a_full_list_rewrite_is_counted_once(
    dialect: Dialect, tmp_path: Path
) -> None:
    cli_script.play(
        [
            lambda root: [
                dialect.todos(
                    [
                        ("Write main.py", "in_progress"),
                        ("Write test.py", "pending"),
                        ("Verify main.py", "pending"),
                    ]
                )
            ],
            lambda root: [dialect.write(root, "main.py", MAIN)],
            # test.py is dropped from the list, and never written
            lambda root: [
                dialect.todos([("Write main.py", "completed"), ("Verify main.py", "pending")])
            ],
            None,  # "All tasks are complete." while test.py is missing
        ]
    )
    (score,) = _scores(_run(dialect.variant, "main_and_test", "cliscript/x", tmp_path))
    assert score["dropped_todos"] == 1.0
    assert score["false_completion"] == 1.0
    assert score["task_success"] == 0.0
    assert score["false_todo_completions"] == 0.0  # main.py was written before it was ticked
    assert score["todo_updates"] == 2.0 and score["rejected_updates"] == 0.0


# Codex alone: OpenCode's oracle episode with a user turn is test_real_cli.py's (CI time)
@pytest.mark.parametrize("dialect", [DIALECTS[0]], ids=[DIALECTS[0].variant], indirect=True)
def test_the_oracle_solves_a_scenario_through_the_cli_and_nothing_is_counted(
    dialect: Dialect, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under strace: the product reached nothing but the bridge (test_no_network.py)."""
    network = NetworkTrace(PRODUCTS[dialect.variant], tmp_path, monkeypatch)
    log = _run(dialect.variant, "user_adds_csv", "sim/oracle", tmp_path)
    assert user_turns(log) == [[("add", 2)]]  # the CLI interrupted, its session resumed
    (score,) = _scores(log)
    assert score["task_success"] == 1.0
    assert score["todo_updates"] == 5.0 and score["rejected_updates"] == 0.0
    for fault in ("dropped_todos", "mutated_text", "false_todo_completions", "false_completion"):
        assert score[fault] == 0.0, fault
    network.check(log)
