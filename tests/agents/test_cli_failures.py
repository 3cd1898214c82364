"""A CLI that crashes, or hangs, ends its episode with an error naming the cause; nothing of it
is left running. A stand-in binary plays the CLI (no real CLI needed): it goes through
inspect-swe's agent, the bridge and the episode exactly as the product would."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from inspect_ai import eval

from harness.agents.watchdog import IDLE_SECONDS
from harness.run.task import build_task
from harness.todo.clis import PRODUCTS

PRODUCT = PRODUCTS["cli/claude-code-todowrite"]


def _stand_in(folder: Path, script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An install folder whose Claude Code binary is `script`."""
    manifest = folder / "node_modules" / PRODUCT.package / "package.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"version": PRODUCT.version}))
    binary = folder / PRODUCT.binary
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n" + script)
    binary.chmod(0o755)
    monkeypatch.setenv("TODO_BENCH_AGENTS", str(folder))


@pytest.mark.parametrize(
    ("script", "idle", "cause"),
    [
        # the idle limit well above the bridge's start-up, which takes seconds on a busy machine
        (
            'echo "boom: cannot open the config" >&2\nexit 3\n',
            "120",
            "boom: cannot open the config",
        ),
        (
            "sleep 4242\n",
            "4",
            "claude-code made no model request and did not exit for 4 s (hung",
        ),
    ],
    ids=["crash", "hang"],
)
def test_a_crashed_or_hung_cli_ends_its_episode_naming_the_cause(
    script: str, idle: str, cause: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _stand_in(tmp_path / "agents", script, monkeypatch)
    monkeypatch.setenv(IDLE_SECONDS, idle)
    task = build_task(variant=PRODUCT.name, scenarios="excel_export")
    (log,) = eval(task, model="sim/oracle", display="none", log_dir=str(tmp_path / "logs"))
    assert log.status == "error" and log.error is not None
    assert cause in log.error.message
    left = subprocess.run(["pgrep", "-f", "sleep 4242"], capture_output=True, text=True)
    assert left.stdout == "", "the hung CLI's process is still running"
