"""The base install needs no Ray: a run works with `ray` unimportable, and `--executor ray`
then says in one line how to get it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT

# a process in which `import ray` fails and find_spec finds nothing, as on an install without
# the extra (a None entry in sys.modules is Python's own "not importable")
NO_RAY = """
import sys
sys.modules["ray"] = None
from harness.commands import main
code = main(sys.argv[1:])
assert sys.modules["ray"] is None
sys.exit(code)
"""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", NO_RAY, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_run_needs_no_ray_and_the_ray_executor_says_how_to_get_it(tmp_path: Path) -> None:
    plan = ["run", "--variants", "L0-rewrite", "--scenarios", "excel_export", "--epochs", "1"]
    done = run(*plan, "--out", str(tmp_path / "local"), "--display", "none")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "local" / "summary.json").is_file()
    refused = run(*plan, "--out", str(tmp_path / "ray"), "--executor", "ray")
    assert refused.returncode == 2
    assert "pip install 'todo-bench[ray]'" in refused.stderr
    assert "Traceback" not in refused.stderr
