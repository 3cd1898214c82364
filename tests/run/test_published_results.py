"""Published results (results/latest, results/products: a summary.json without run.json) are not
a run folder: a run named into them is refused unless --fresh (issue #39)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.results.publish import FORMATS
from tests.helpers import ROOT

BASELINE = ROOT / "results" / "baseline" / "summary.json"
#: every file of a published set but the picture
SET = sorted(["summary.json", *(name for name, _ in FORMATS.values() if name is not None)])
#: the smallest run: one variant, one scenario, one epoch, one process
SMALL = ["--variants", "L0-rewrite", "--scenarios", "excel_export", "--epochs", "1"]
SMALL += ["--workers", "1", "--display", "none"]


def _published(folder: Path) -> dict[str, bytes]:
    """A folder of published results as a clone has it: a summary and its formats, no run.json."""
    folder.mkdir(parents=True)
    for name in [*SET, "leaderboard.png"]:
        (folder / name).write_bytes(f"committed {name}\n".encode())
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.mark.parametrize("name", ["latest", "products"])
def test_a_run_into_published_results_is_refused_unless_fresh(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "results" / name
    before = _published(folder)
    assert main(["run", *SMALL, "--out", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"todo-bench: error: --out {folder} holds published results (a summary.json, no "
        "run.json of a run to resume); a run does not write over them: use another --out, or "
        "--fresh to replace them\n"
    )
    assert _files(folder) == before  # not even a lock file


def test_fresh_replaces_published_results_whole(tmp_path: Path) -> None:
    folder = tmp_path / "products"
    _published(folder)
    assert main(["run", *SMALL, "--out", str(folder), "--fresh"]) == 0
    # nothing of the old set is left beside the new numbers
    names = {p.name for p in folder.iterdir()}
    assert names == {"summary.json", "leaderboard.md", "run.json", "timing.json", "logs"}
