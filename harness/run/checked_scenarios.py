"""Scenarios as a run loads them: each one's reference solution replayed against its own
checks (`scenario_check.replay`) before any episode, and remembered by content and task version
so that the next run's start does not replay it again."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from harness.suite.scenario import Scenario, ScenarioError, load_file, load_scenarios
from harness.suite.scenario_check import replay, solution
from harness.versions import TASK_VERSION


def reference_problem(scenario: Scenario) -> str | None:
    """Why the reference solution does not solve the scenario, or None (a quick replay)."""
    steps = solution(scenario)
    result = replay(scenario, steps, track=False)
    if result.failed_calls:
        index, error = result.failed_calls[0]
        return f"field 'reference.{index}': the step fails: {error}"
    if result.failed_checks:
        index = result.failed_checks[0]
        check = scenario.checks[index]
        return (
            f"field 'checks.{index}': the reference solution fails this check "
            f"({check.kind} {check.path})"
        )
    return None


def _cache_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "todo-bench" / "verified-scenarios.txt"


def _verified_key(scenario: Scenario) -> str:
    """What a verification depends on: the scenario as loaded and the task version (the
    workspace and checks that replay it)."""
    text = f"{TASK_VERSION}|{scenario.model_dump_json()}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _known_verified() -> set[str]:
    try:
        return set(_cache_file().read_text(encoding="utf-8").split())
    except OSError:
        return set()


def _remember_verified(keys: list[str]) -> None:
    try:
        path = _cache_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write("".join(f"{key}\n" for key in keys))
    except OSError:
        pass  # a read-only home only costs the next run a replay


def load_verified(path: Path) -> list[Scenario]:
    """The scenarios of one file, each with a reference that passes its own checks. A scenario
    verified before (same content, same task version) is not replayed again: the run's start
    does not pay for it (`todo-bench scenarios check` always replays)."""
    scenarios = load_file(path)
    known = _known_verified()
    fresh = []
    for scenario in scenarios:
        key = _verified_key(scenario)
        if key in known:
            continue
        problem = reference_problem(scenario)
        if problem:
            named = "" if scenario.id == path.stem else f"generated {scenario.id}: "
            raise ScenarioError(f"{path}: {named}{problem}")
        fresh.append(key)
    if fresh:
        _remember_verified(fresh)
    return scenarios


def load_verified_dir(directory: Path) -> list[Scenario]:
    """Every scenario of a folder, verified as `load_verified` does (what `run` loads)."""
    return load_scenarios(directory, load_verified)
