"""A CLI that crashes, or hangs, ends its episode with an error naming the cause; nothing of it
is left running. A stand-in binary plays the CLI (no real CLI needed): it goes through
inspect-swe's agent, the bridge and the episode exactly as the product would."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from inspect_ai import eval

from harness.agents.binaries import tool
from harness.agents.watchdog import IDLE_SECONDS
from harness.products.product import CliProduct
from harness.run.task import build_task
from tests.agents.wrapped import ONE_PER_CLI, wrapper_install


@pytest.mark.parametrize("product", ONE_PER_CLI, ids=lambda p: p.cli)
@pytest.mark.parametrize(
    ("script", "idle", "cause"),
    [
        # read the prompt first, as a CLI does: inspect's sandbox writes it to the CLI's stdin
        # after starting it, and an OpenCode gone before that ends with the sandbox's
        # 'Connection lost' instead of the product's own words. The idle limit is far off: a
        # crash is reported as soon as the sandbox sees the exit
        (
            'cat >/dev/null\necho "boom: cannot open the config" >&2\nexit 3\n',
            "120",
            "boom: cannot open the config",
        ),
        # the limit counts from the agent's start: inspect-swe's set-up before the CLI runs
        # (for OpenCode, several sandbox commands: node, rg, its config) must fit in it
        ("sleep 4242\n", "12", "{cli} made no model request and did not exit for 12 s (hung"),
    ],
    ids=["crash", "hang"],
)
def test_a_crashed_or_hung_cli_ends_its_episode_naming_the_cause(
    product: CliProduct,
    script: str,
    idle: str,
    cause: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the harness refuses to start a CLI whose host commands are missing (a one-line error, its
    # own test); here that error would hide the cause this test asserts
    missing = [command for command in product.requires if tool(command) is None]
    if missing:
        pytest.skip(f"{product.cli} needs {', '.join(missing)} on PATH, not installed here")
    # it answers a version probe as the product does (inspect-swe asks Codex's before the run,
    # with a command no cancellation reaches: a stand-in sleeping there hung the test, not the
    # episode)
    version = f'if [ "$1" = --version ]; then echo "{product.version}"; exit 0; fi\n'
    # the hang's sleep is this process's own, so the leftover check sees no other session's
    sleep = f"sleep 4242.{os.getpid()}"
    script = script.replace("sleep 4242", sleep)
    wrapper_install(product, tmp_path / "agents", version + script, product.version, monkeypatch)
    cause = cause.format(cli=product.cli)
    monkeypatch.setenv(IDLE_SECONDS, idle)
    task = build_task(variant=product.name, scenarios="excel_export", cli_sandbox="local")
    (log,) = eval(task, model="sim/oracle", display="none", log_dir=str(tmp_path / "logs"))
    assert log.status == "error" and log.error is not None
    assert cause in log.error.message
    left = subprocess.run(["pgrep", "-f", sleep], capture_output=True, text=True)
    assert left.stdout == "", "the hung CLI's process is still running"
