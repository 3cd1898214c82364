"""A run writes only its own folder: published results (results/latest, results/products) change
only when named, and then as a whole set of formats, never half (issue #39)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from harness.commands import main
from harness.publishing import outputs
from harness.publishing.formats import FORMATS
from harness.publishing.outputs import publish_set
from harness.results.kept import EPISODES
from harness.results.summary import read_summary
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


def _fake_browser(folder: Path) -> Path:
    browser = folder / "chromium"
    browser.write_text(
        '#!/bin/sh\nfor a in "$@"; do case "$a" in --screenshot=*) '
        'printf png > "${a#--screenshot=}";; esac; done\n'
    )
    browser.chmod(browser.stat().st_mode | stat.S_IXUSR)
    return browser


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_a_run_without_out_writes_only_its_run_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    latest = _published(tmp_path / "results" / "latest")
    assert main(["run", *SMALL]) == 0
    assert _files(tmp_path / "results" / "latest") == latest  # before: summary and md replaced
    (run,) = (tmp_path / "results" / "runs").iterdir()
    assert {"summary.json", "leaderboard.md", "run.json"} <= {p.name for p in run.iterdir()}
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == ["latest", "runs"]
    assert f"run folder: {Path('results') / 'runs' / run.name}" in capsys.readouterr().out


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
        "run.json of a run to resume); a run does not write over them: use another --out, "
        f"--publish {folder} to publish a run there as a whole set, or --fresh to replace them\n"
    )
    assert _files(folder) == before  # not even a lock file


def test_fresh_replaces_published_results_whole(tmp_path: Path) -> None:
    folder = tmp_path / "products"
    _published(folder)
    assert main(["run", *SMALL, "--out", str(folder), "--fresh"]) == 0
    # nothing of the old set is left beside the new numbers
    names = {p.name for p in folder.iterdir()}
    assert names == {"summary.json", "leaderboard.md", "run.json", "timing.json", "logs", EPISODES}


def test_publish_writes_the_whole_set_beside_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(outputs, "_browser", lambda: None)  # no chromium
    latest = tmp_path / "latest"
    _published(latest)
    run = tmp_path / "run"
    args = ["run", *SMALL, "--out", str(run), "--publish", str(latest)]
    assert main(args) == 0
    # the stale picture is gone; the board's episodes are kept beside it
    assert sorted(p.name for p in latest.iterdir()) == sorted([*SET, EPISODES])
    assert (latest / "summary.json").read_bytes() == (run / "summary.json").read_bytes()
    assert (latest / "leaderboard.md").read_bytes() == (run / "leaderboard.md").read_bytes()
    assert all(b"committed" not in (latest / name).read_bytes() for name in SET)
    err = capsys.readouterr().err
    assert (
        f"todo-bench: published to {latest}: summary.json, leaderboard.md, leaderboard.html, "
        "leaderboard.tex, leaderboard-standalone.tex, leaderboard.csv; leaderboard.png removed: "
        "it showed the numbers before (scripts/regenerate.sh retakes it where chromium is "
        "installed)\n"
    ) in err
    # the same run again (resumed: nothing to do) leaves the set as it is, byte for byte
    stamps = {p.name: p.stat().st_mtime_ns for p in latest.iterdir()}
    assert main(args) == 0
    assert {p.name: p.stat().st_mtime_ns for p in latest.iterdir()} == stamps
    assert f"todo-bench: {latest} already holds this summary; left as it is" in (
        capsys.readouterr().err
    )


def test_publish_retakes_the_picture_where_a_browser_is_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    browser = _fake_browser(tmp_path)
    monkeypatch.setattr(outputs, "_browser", lambda: str(browser))
    said: list[str] = []
    folder = tmp_path / "latest"
    _published(folder)
    publish_set(read_summary(BASELINE), str(folder), said.append)
    assert sorted(p.name for p in folder.iterdir()) == sorted([*SET, "leaderboard.png"])
    assert (folder / "leaderboard.png").read_bytes() == b"png"
    assert said == [
        f"todo-bench: published to {folder}: summary.json, leaderboard.md, leaderboard.html, "
        "leaderboard.tex, leaderboard-standalone.tex, leaderboard.csv, leaderboard.png"
    ]


def test_a_set_missing_a_format_is_written_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(outputs, "_browser", lambda: None)
    folder = tmp_path / "latest"
    folder.mkdir()
    summary = read_summary(BASELINE)
    publish_set(summary, str(folder), lambda line: None)
    (folder / "leaderboard.tex").unlink()
    said: list[str] = []
    publish_set(summary, str(folder), said.append)
    assert sorted(p.name for p in folder.iterdir()) == SET
    assert said[0].startswith(f"todo-bench: published to {folder}: ")


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("", "--publish '': an empty path names no folder"),
        ("{tmp}/a-file", "--publish {tmp}/a-file: a file, not a folder"),
        ("{tmp}/a-run", "--publish {tmp}/a-run: a run folder; publish into a folder of its own"),
        ("{tmp}/out", "--publish {tmp}/out: a run folder; publish into a folder of its own"),
        ("/proc/todo-bench", "--publish /proc/todo-bench: cannot write there ("),
    ],
)
def test_a_bad_publish_folder_is_one_line_before_the_run(
    where: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "a-run").mkdir()
    (tmp_path / "a-run" / "run.json").write_text("{}")
    folder = where.format(tmp=tmp_path)
    out = tmp_path / "out"
    assert main(["run", *SMALL, "--out", str(out), f"--publish={folder}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("todo-bench: error: " + message.format(tmp=tmp_path)), err
    assert len(err.splitlines()) == 1
    assert not out.exists()


def test_make_bench_publishes_results_latest_and_writes_nothing_else() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\nbench:", 1)[1].split("\n\n", 1)[0]
    assert "--publish results/latest" in recipe and "--out" not in recipe
    assert os.access(ROOT / "scripts" / "regenerate.sh", os.R_OK)
    assert "--publish results/latest" in (ROOT / "scripts" / "regenerate.sh").read_text("utf-8")


@pytest.mark.parametrize("installed", [True, False], ids=["chromium", "no-chromium"])
def test_report_retakes_the_picture_with_the_page_or_removes_a_stale_one(
    installed: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`todo-bench report` renders the page again: its screenshot shows the new page, or goes
    (a picture of the numbers before would be a second, wrong, board)."""
    browser = _fake_browser(tmp_path)
    monkeypatch.setattr(outputs, "_browser", lambda: str(browser) if installed else None)
    folder = tmp_path / "board"
    _published(folder)
    (folder / "summary.json").write_bytes(BASELINE.read_bytes())
    assert main(["report", str(folder)]) == 0
    out = capsys.readouterr().out
    if installed:
        assert (folder / "leaderboard.png").read_bytes() == b"png"
        assert f"{folder / 'leaderboard.png'}\n" in out
    else:
        assert not (folder / "leaderboard.png").exists()
        assert "leaderboard.png removed: it showed the numbers before" in out
