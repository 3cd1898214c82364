"""The docker sandbox of the CLI rows, in a real container: the image `make agents-image`
builds, run as the compose service harness/agents/sandboxes.py declares (through the test-only
`docker-run` stand-in for compose, tests/agents/docker_run.py). Each real CLI runs inside it
with no network and reaches the model through inspect's bridge; Claude Code runs the image's
hook command; each episode is scored from the product's record and the workspace, read on the
host.

Needs a running Docker engine and the image (`.ci/run` starts one where it can, then
`make agents-image`); skipped, with the reason, where either is missing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.util import SandboxEnvironmentSpec

from harness.agents.hooked import HookJournal
from harness.agents.sandboxes import CODE_LABEL, IMAGE, SHARE, compose, share_dir
from harness.episode.record import EpisodeRecord
from harness.results.provenance import code_hash
from harness.run.task import build_task
from tests.agents import docker_run  # noqa: F401  (registers the docker-run sandbox)
from tests.models.sim.test_sim import check_fault_record

pytestmark = [pytest.mark.heavy]


def _missing() -> str | None:
    try:
        if subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode:
            return "no Docker engine answers here"
        label = f'{{{{index .Config.Labels "{CODE_LABEL}"}}}}'
        found = subprocess.run(
            ["docker", "image", "inspect", "--format", label, IMAGE], capture_output=True, text=True
        )
    except (OSError, subprocess.TimeoutExpired):
        return "no docker command here"
    if found.returncode:
        return f"{IMAGE} is not built (make agents-image)"
    if found.stdout.strip() != code_hash():
        return f"{IMAGE} was built from other code (make agents-image)"
    return None


if (why := _missing()) is not None:
    pytestmark.append(pytest.mark.skip(reason=why))


def _scores(variant: str, scenario: str, model: str, logs: Path) -> tuple[Any, dict[str, Any]]:
    task = build_task(variant=variant, scenarios=scenario, cli_sandbox="docker")
    stand_in = SandboxEnvironmentSpec("docker-run", compose(share_dir()))
    log = eval(task, model=model, sandbox=stand_in, display="none", log_dir=str(logs))[0]
    assert log.status == "success", log.error
    assert log.samples
    sample = log.samples[0]
    return sample, dict(sample.scores["todo_scorer"].value)  # type: ignore[index,arg-type]


# Claude Code with a hook (the image's hook command) and OpenCode (node and rg beside it in the
# image); the Task row and Codex solved the same scenario in the container by hand (2026-12-05,
# docs/agents.md), left out here for CI time
@pytest.mark.parametrize("variant", ["cli/claude-code-todowrite+inject", "cli/opencode"])
def test_the_oracle_solves_through_each_cli_in_a_container_and_its_hooks_run_there_too(
    variant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SHARE, str(tmp_path / "share"))
    sample, score = _scores(variant, "main_and_test", "sim/oracle", tmp_path / "logs")
    assert score["task_success"] == 1.0
    for fault in ("dropped_todos", "mutated_text", "false_todo_completions", "false_completion"):
        assert score[fault] == 0.0, fault
    ledger = json.loads(sample.store[f"{EpisodeRecord.__name__}:ledger_json"])
    assert any(event["kind"] == "todo" for event in ledger["events"])  # the product's record
    journal = sample.store.get(f"{HookJournal.__name__}:records", [])
    injected = any(record["action"] == "injected" for record in journal)
    assert injected is variant.endswith("+inject")  # the image's hook command ran
    assert list((tmp_path / "share").iterdir()) == []  # the episode left nothing behind


def test_the_sloppy_agent_s_faults_are_counted_from_the_product_s_record_in_a_container(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SHARE, str(tmp_path / "share"))
    variant = "cli/claude-code-todowrite"
    task = build_task(variant=variant, scenarios="near_duplicates", cli_sandbox="docker")
    stand_in = SandboxEnvironmentSpec("docker-run", compose(share_dir()))
    # two episodes at once, a container each (issue 59): neither's counts cross the other's
    log = eval(
        task,
        model="sim/sloppy",
        sandbox=stand_in,
        display="none",
        log_dir=str(tmp_path),
        epochs=2,
        max_samples=2,
    )
    assert log[0].status == "success", log[0].error
    totals, _ = check_fault_record(log, variant, unsure_share=0.0)
    assert sum(totals.values()) > 0, "no fault made: the equality would prove nothing"
    first, second = log[0].samples or []
    assert first.started_at and first.completed_at and second.started_at and second.completed_at
    assert first.started_at < second.completed_at and second.started_at < first.completed_at
