"""The built wheel works outside the checkout: shipped scenarios, the CLI and the inspect task."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.heavy

SHIPPED = sorted(p.stem for p in (ROOT / "scenarios").glob("*.yaml"))
#: synthetic sessions in each product's format (no real session is committed)
SESSIONS = ROOT / "tests" / "fixtures" / "sessions"


def _copy_source(dest: Path) -> Path:
    """The project files a wheel is built from, without caches, logs or the venv."""
    skip = {".venv", ".git", "results", "build", ".local-llm", ".mypy_cache", ".pytest_cache"}
    shutil.copytree(
        ROOT,
        dest,
        # top-level folders only: harness/results/ is code, results/ is not
        ignore=lambda d, names: [
            n
            for n in names
            if (n in skip and Path(d) == ROOT) or n.endswith(".egg-info") or n == "__pycache__"
        ],
    )
    return dest


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the wheel offline from a copy of the source (nothing is written into the checkout)."""
    src = _copy_source(tmp_path_factory.mktemp("src") / "todo-bench")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
        + ["-w", str(out), str(src)],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("todo_bench-*.whl")
    return built


def test_the_wheel_ships_the_scenarios_and_the_inspect_package(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {f"harness/scenarios/{s}.yaml" for s in SHIPPED} <= names
    assert {"todo_bench/todo_bench.py", "todo_bench/README.md", "todo_bench/listing.yaml"} <= names
    assert {
        "harness/results/prices.yaml",
        "harness/py.typed",
        "harness/episode/gate/heuristic_rules.yaml",
    } <= names
    assert "harness/models/sim/field.yaml" in names  # sim/field loads it
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "todo_bench = todo_bench.todo_bench" in text


class Installed:
    """The wheel installed in a new venv, and a working folder outside the checkout."""

    def __init__(self, venv: Path, site: Path, elsewhere: Path) -> None:
        self.venv, self.site, self.elsewhere = venv, site, elsewhere
        self.python = venv / "bin" / "python"
        self.env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            args, cwd=self.elsewhere, env=self.env, capture_output=True, text=True, timeout=300
        )

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run(str(self.venv / "bin" / "todo-bench"), *args)


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """Dependencies come from this environment (offline), todo-bench itself only from the wheel."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    # the parent env's .pth files are not processed from here, so its editable install is invisible
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps"]
        + [str(wheel)],
        check=True,
        capture_output=True,
    )
    return Installed(venv, site, tmp_path_factory.mktemp("elsewhere"))


def test_the_installed_commands_run_outside_the_checkout(installed: Installed) -> None:
    """`todo-bench run` and the commands a user runs on its folder, from the wheel alone."""
    ran = installed.cli(
        "run", "--scenarios", "excel_export", "--variants", "L0-rewrite,L3-granular",
        "--epochs", "1", "--out", "r", "--display", "none",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "L3-granular" in ran.stdout
    summary = json.loads((installed.elsewhere / "r" / "summary.json").read_text())
    assert summary["complete"] and [row["episodes"] for row in summary["variants"]] == [1, 1]
    for args in (
        ("leaderboard", "r"),
        ("report", "r"),
        ("compare", "r", "r"),
        ("scenarios", "check"),
        ("audit", str(SESSIONS)),
        ("replay", str(SESSIONS)),
    ):
        done = installed.cli(*args)
        assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
        assert "Traceback" not in done.stderr, args
    assert (installed.elsewhere / "r" / "leaderboard.html").is_file()


def test_a_fresh_venv_outside_the_checkout_runs_the_installed_wheel(installed: Installed) -> None:
    python, venv, site, tmp_path = (
        installed.python,
        installed.venv,
        installed.site,
        installed.elsewhere,
    )
    elsewhere = tmp_path / "inspect"
    elsewhere.mkdir()
    env = installed.env

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            args, cwd=elsewhere, env=env, capture_output=True, text=True, timeout=300
        )

    where = run(str(python), "-c", "import harness, todo_bench; print(harness.__file__)")
    assert where.returncode == 0, where.stderr
    assert where.stdout.startswith(str(site)), where.stdout

    listed = run(str(venv / "bin" / "todo-bench"), "scenarios", "list")
    assert listed.returncode == 0, listed.stderr
    for scenario in ("excel_export", "rename_chain", "user_cancels"):
        assert scenario in listed.stdout

    logs = tmp_path / "logs"
    evaluated = run(
        str(python),
        "-m",
        "inspect_ai",
        "eval",
        "todo_bench/todo_bench",
        "--model",
        "sim/sloppy",
        "--limit",
        "1",
        "--log-dir",
        str(logs),
        "--log-format",
        "json",
        "--display",
        "none",
    )
    assert evaluated.returncode == 0, evaluated.stdout + evaluated.stderr
    (log,) = logs.glob("*.json")
    data = json.loads(log.read_text())
    assert data["status"] == "success"
    assert data["eval"]["task_registry_name"] == "todo_bench/todo_bench"
    (sample,) = data["samples"]
    assert sample["scores"]["todo_scorer"]["value"]["task_success"] in (0, 1)

    # inspect's own re-scoring finds the scorer through the package's entry point
    scored = run(
        str(python),
        "-m",
        "inspect_ai",
        "score",
        "--display",
        "none",
        "--action",
        "overwrite",
        "--overwrite",
        str(log),
    )
    assert scored.returncode == 0, scored.stdout + scored.stderr
    rescored = json.loads(log.read_text())
    assert (
        rescored["samples"][0]["scores"]["todo_scorer"]["value"]
        == sample["scores"]["todo_scorer"]["value"]
    )

    # inspect's eval-retry rebuilds the task from the installed package with the log's task
    # arguments (here a design of the user's own, in the working folder, which the simulated
    # agent refuses to drive: an errored log to retry)
    (elsewhere / "my_design.py").write_text(
        "from dataclasses import replace\n"
        "from harness.todo.granular import GranularStore\n"
        "from harness.todo.specs import CLASSIC\n\n\n"
        "class Notes(GranularStore):\n"
        "    name = 'my-notes'\n\n"
        "    @classmethod\n"
        "    def tool_specs(cls):\n"
        "        return [replace(CLASSIC['add_todo'], name='note_add')]\n",
        encoding="utf-8",
    )
    failing = tmp_path / "failing"
    failed = run(
        str(python), "-m", "inspect_ai", "eval", "todo_bench/todo_bench", "--model", "sim/oracle",
        "-T", "variant=my-notes", "-T", "designs=my_design:Notes", "--limit", "1",
        "--log-dir", str(failing), "--log-format", "json", "--display", "none",
    )  # fmt: skip
    (first,) = failing.glob("*.json")
    assert json.loads(first.read_text())["status"] == "error", failed.stdout + failed.stderr
    retried = run(
        str(python), "-m", "inspect_ai", "eval-retry", str(first), "--log-dir", str(failing),
        "--display", "none",
    )  # fmt: skip
    logs_after = sorted(failing.glob("*.json"))
    assert len(logs_after) == 2, retried.stdout + retried.stderr
    second = json.loads(next(p for p in logs_after if p != first).read_text())
    assert second["eval"]["task_registry_name"] == "todo_bench/todo_bench"
    assert second["eval"]["task_args"]["designs"] == "my_design:Notes"
    assert "cannot drive these todo tools" in second["error"]["message"]
