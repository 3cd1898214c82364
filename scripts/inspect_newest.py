"""`make inspect-newest`: does todo-bench hold on the newest inspect-ai and inspect-swe the
registry serves? pyproject.toml allows only the releases harness/_inspect_private.py was checked
on (`TESTED`); this says whether a newer one keeps every private reach and passes the fast tests.

Where the newest releases are the tested ones, it says so and reports the reaches of this
environment (a few seconds). Otherwise it builds `.inspect-newest/` (a venv of its own, ignored),
installs this checkout with the newest releases over the pinned rest, prints which reaches hold
there and runs the fast tests in it (minutes). Exit 0 when everything holds, 1 when a reach moved
or a test failed, 2 when the registry could not be asked.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from harness._inspect_private import TESTED, moved, report
from harness.products.catalog import RUNNERS

ROOT = Path(__file__).resolve().parent.parent
#: inspect-swe's agents the products run (their bridge port keys are reaches too)
AGENTS = sorted({runner.inspect_agent for runner in RUNNERS.values()})
VENV = ROOT / ".inspect-newest"


def newest(package: str) -> str | None:
    """The newest release of `package` the configured registry serves (None: it did not say)."""
    out = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", package,
         "--disable-pip-version-check"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    found = re.search(rf"^{re.escape(package)} \(([^)]+)\)", out.stdout, re.MULTILINE)
    return found.group(1) if found else None


def _run(*command: str | Path) -> int:
    return subprocess.run([str(c) for c in command], cwd=ROOT).returncode


def main() -> int:
    releases = {package: newest(package) for package in TESTED}
    unknown = [package for package, release in releases.items() if release is None]
    if unknown:
        print(f"inspect-newest: the registry did not say the newest {', '.join(unknown)}")
        return 2
    said = ", ".join(f"{p} {r} (tested {TESTED[p]})" for p, r in releases.items())
    print(f"inspect-newest: newest {said}")
    if releases == TESTED:
        print(report(AGENTS))
        print("inspect-newest: the newest releases are the tested ones; make test covers them")
        return 1 if moved(AGENTS) else 0
    shutil.rmtree(VENV, ignore_errors=True)
    python = VENV / "bin" / "python"
    steps: list[tuple[str | Path, ...]] = [
        (sys.executable, "-m", "venv", VENV),
        (python, "-m", "pip", "install", "--quiet", "-e", ".[dev]", "-c", "constraints.txt"),
        # over todo-bench's own bound (pip says so, and installs them): the question asked
        (python, "-m", "pip", "install", "--quiet", "--upgrade",
         *(f"{p}=={r}" for p, r in releases.items())),
    ]  # fmt: skip
    for step in steps:
        if _run(*step) != 0:
            print(f"inspect-newest: could not install ({' '.join(map(str, step[2:5]))} ...)")
            return 2
    reaches = _run(python, "-m", "harness._inspect_private", *AGENTS)
    tests = _run(python, "-m", "pytest", "-m", "not realmodel and not heavy", "-q", "-n", "2",
                 "--dist", "loadfile", "-p", "no:cacheprovider")  # fmt: skip
    print(
        f"inspect-newest: on {said}: reaches {'hold' if reaches == 0 else 'MOVED'}, "
        f"fast tests {'pass' if tests == 0 else 'FAIL'}"
    )
    return 0 if reaches == tests == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
