"""What produced a run: the task and sim versions and the scenario hash (which decide whether
two runs may be mixed or compared), and as information the project version, a hash of the
harness's code, the inspect_ai version, and the git commit where there is one (recorded in
run.json; kept out of summary.json, which must be byte-identical for the same inputs whichever
commit holds them)."""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Iterable
from functools import cache
from importlib.metadata import PackageNotFoundError, version

from harness import PACKAGE_DIR
from harness.results.summary import Provenance
from harness.suite.scenario import Scenario
from harness.versions import SIM_VERSION, TASK_VERSION


def scenario_hash(scenarios: Iterable[Scenario]) -> str:
    """Of the scenarios as loaded (generated families expanded), in id order."""
    digest = hashlib.sha256()
    for scenario in sorted(scenarios, key=lambda s: s.id):
        digest.update(scenario.model_dump_json().encode())
    return digest.hexdigest()[:16]


@cache
def code_hash() -> str:
    """Of every source and data file of the harness package."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".yaml") and "__pycache__" not in path.parts:
            digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _installed(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "unknown"


def project_version() -> str:
    return _installed("todo-bench")


def git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(PACKAGE_DIR), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def provenance(scenarios: Iterable[Scenario], *, simulated: bool) -> Provenance:
    return Provenance(
        task_version=TASK_VERSION,
        sim_version=SIM_VERSION if simulated else None,
        scenario_hash=scenario_hash(scenarios),
        project_version=project_version(),
        code_hash=code_hash(),
        inspect_ai=_installed("inspect_ai"),
    )
