"""Drive an episode's real tools directly (no model), and build scenarios in memory."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import resource
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from inspect_ai.tool import ToolError

from harness.episode.ledger import Ledger, UserTurnEvent
from harness.episode.tools import Episode, todo_tools, workspace_tools
from harness.suite.scenario import Scenario
from harness.suite.tracker import TaskStateTracker
from harness.suite.workspace import Workspace
from harness.todo import LEVELS, designs

#: the checkout (tests are one folder deeper or more; they find files from here)
ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"

DOCS = Scenario.model_validate(
    {
        "id": "docs",
        "title": "three docs",
        "prompt": "Write a.md, b.md, c.md and README.md.",
        "subtasks": [
            {
                "id": s,
                "title": f"Write {s}.md",
                "keywords": [f"{s}.md"],
                "done_when": [{"tool": "write_file", "args": {"path": {"equals": f"{s}.md"}}}],
            }
            for s in ("a", "b", "c")
        ]
        + [
            {
                "id": "readme",
                "title": "Write README.md",
                "keywords": ["readme"],
                "done_when": [{"tool": "write_file", "args": {"path": {"equals": "README.md"}}}],
            },
            {
                "id": "csv",
                "title": "Export index.csv",
                "keywords": ["index.csv"],
                "done_when": [{"tool": "write_csv"}],
            },
        ],
        "checks": [{"kind": "file_exists", "path": f"{s}.md"} for s in ("a", "b", "c")],
        "reference": [
            {"subtask": s, "tool": "write_file", "args": {"path": f"{s}.md", "content": s}}
            for s in ("a", "b", "c")
        ],
        "user_turns": [
            {
                "after_turn": 1,
                "message": "also export index.csv",
                "action": "add",
                "subtask": "csv",
            },
        ],
    }
)


class Driver:
    """Calls an episode's tools the way the agent loop would, turn by turn."""

    def __init__(self, level: str, scenario: Scenario = DOCS) -> None:
        self.scenario = scenario
        self.episode = Episode(
            store=(LEVELS.get(level) or designs()[level])(),
            workspace=Workspace.create(scenario),
            ledger=Ledger(scenario=scenario.id, variant=level),
            tracker=TaskStateTracker(scenario),
        )
        self.tools = {
            t.name: t for t in [*todo_tools(self.episode), *workspace_tools(self.episode)]
        }

    @property
    def ledger(self) -> Ledger:
        return self.episode.ledger

    def call(self, tool: str, **args: Any) -> str:
        """Run one tool call; a rejection comes back as 'ERROR: ...'."""
        self.episode.turn += 1
        try:
            return str(asyncio.run(self.tools[tool].tool(**args)))
        except ToolError as error:
            return f"ERROR: {error.message}"

    def user(self, action: str, subtask: str, new_text: str | None = None) -> None:
        self.ledger.events.append(
            UserTurnEvent(turn=self.episode.turn, action=action, subtask=subtask, new_text=new_text)
        )

    def close(self) -> None:
        self.episode.workspace.cleanup()


def items(*rows: tuple[str, str, str]) -> list[dict[str, str]]:
    return [{"id": i, "text": t, "status": s} for i, t, s in rows]


def load_script(name: str) -> ModuleType:
    """`scripts/<name>.py` as a module (scripts/ is not a package)."""
    path = ROOT / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def todo_bench_bounded(
    args: list[str], cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`todo-bench ARGS` in a child process with 3 GB of address space and a time limit: for
    inputs that once hung the command or ate the machine's memory."""
    code = "import sys; from harness.commands import main; sys.exit(main(sys.argv[1:]))"

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limit_memory,
        cwd=cwd,
        env=env,
    )


@contextlib.contextmanager
def unblocking(fifo: Path, after: float = 2) -> Iterator[None]:
    """Should the code under test open the fifo for reading (a bug), a writer comes after
    `after` seconds and closes it, so the test fails on what it sees instead of hanging."""
    stop = threading.Event()

    def writer() -> None:
        if not stop.wait(after):
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
