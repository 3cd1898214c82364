"""Bad command lines of issue #39: each is one line on stderr and exit 2, with no traceback,
in bounded time and memory, and nothing is written."""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

import pytest
from pydantic import ValidationError

from harness.commands import main
from harness.results.summary import SCHEMA_VERSION
from tests.helpers import ROOT, todo_bench_bounded, unblocking

BASELINE = ROOT / "results" / "baseline"


def _one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the command; it must exit 2 with one line on stderr and nothing on stdout."""
    try:
        code = main(argv)
    except SystemExit as exit:  # argparse's own errors
        code = int(exit.code or 0)
    captured = capsys.readouterr()
    assert code == 2, captured
    assert captured.out == "", captured.out
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    return lines[0]


@pytest.fixture
def summaries(tmp_path: Path) -> dict[str, Path]:
    """A summary of a newer schema and one with a negative episode count, otherwise valid."""
    data = json.loads((BASELINE / "summary.json").read_text(encoding="utf-8"))
    out = {}
    for name, change in (
        ("newer", {"schema_version": 99}),
        ("negative", {"variants": [{**data["variants"][0], "episodes": -5}]}),
    ):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "summary.json").write_text(json.dumps({**data, **change}), encoding="utf-8")
        out[name] = folder
    return out


# compare --tolerance FILE


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read (No such file or directory)"),
        ("task_success: [", "not YAML"),
        ("- task_success\n", "expected metric: number (0 or more) for metrics in task_success"),
        ("task_success: lots\n", "expected metric: number"),
        ("task_success: true\n", "expected metric: number"),
        ("task_success: -1\n", "expected metric: number"),
        ("colour: 0.5\n", "expected metric: number"),
        (b"\xff\xfe", "not YAML"),
    ],
)
def test_a_missing_or_malformed_tolerance_file_is_one_line(
    content: str | bytes | None, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tolerance = tmp_path / "tolerance.yaml"
    if isinstance(content, bytes):
        tolerance.write_bytes(content)
    elif content is not None:
        tolerance.write_text(content, encoding="utf-8")
    line = _one_line(
        ["compare", str(BASELINE), str(BASELINE), "--tolerance", str(tolerance)], capsys
    )
    assert line.startswith(f"todo-bench: error: --tolerance {tolerance}: ") and message in line


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_tolerance_that_is_not_a_regular_file_is_not_read(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tolerance = tmp_path / "tolerance.yaml"
    if kind == "fifo":
        os.mkfifo(tolerance)
    elif kind == "device":
        tolerance.symlink_to("/dev/null")  # not a file; /dev/zero would never end on old code
    else:
        tolerance.mkdir()
    argv = ["compare", str(BASELINE), str(BASELINE), "--tolerance", str(tolerance)]
    with unblocking(tolerance) if kind == "fifo" else contextlib.nullcontext():
        line = _one_line(argv, capsys)
    assert line == f"todo-bench: error: --tolerance {tolerance}: not a regular file"


# compare --junit PATH


@pytest.mark.parametrize("where", ["/proc/todo-bench-junit.xml", "{tmp}", "{tmp}/no/such/x.xml"])
def test_an_unwritable_junit_path_is_one_line_and_no_verdict(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = where.format(tmp=tmp_path)
    line = _one_line(["compare", str(BASELINE), str(BASELINE), "--junit", path], capsys)
    assert line.startswith(f"todo-bench: error: --junit {path}: cannot write there (")


def test_a_writable_junit_path_gets_the_report_before_the_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "junit.xml"
    assert main(["compare", str(BASELINE), str(BASELINE), "--junit", str(report)]) == 0
    assert "PASS" in capsys.readouterr().out and "<testsuite" in report.read_text("utf-8")


# run: the plan's size


def test_a_huge_epoch_count_is_refused_at_once_in_bounded_memory(tmp_path: Path) -> None:
    # in a child process with 3 GB of address space: before the bound it ate memory until killed
    args = ["run", "--epochs", "99999999999999999999", "--out", str(tmp_path / "out")]
    started = time.monotonic()
    done = todo_bench_bounded([*args, "--display", "none"], tmp_path)
    assert time.monotonic() - started < 30
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr.strip() == (
        "todo-bench run: error: argument --epochs: must be at most 1,000 (a run is at most "
        "100,000 episodes), got 99999999999999999999 (see todo-bench run --help)"
    )
    assert not (tmp_path / "out").exists()


def test_the_api_bounds_epochs_and_the_plan_too(tmp_path: Path) -> None:
    from harness.errors import UsageError
    from harness.run import RunOptions, run_benchmark

    out = str(tmp_path / "out")
    with pytest.raises(ValidationError, match="less than or equal to 1000"):
        RunOptions(epochs=99999999999999999999, out=out)
    plan = RunOptions(variants="headline,products", scenarios="all", epochs=1000, out=out)
    with pytest.raises(UsageError) as refused:
        run_benchmark(plan)
    assert str(refused.value) == (
        "the plan is 12 variants x 12 scenarios x 1000 epochs = 144,000 episodes; a run has at "
        "most 100,000 (split it into several runs)"
    )
    assert not Path(out).exists()


# run: --variants and --out that name nothing


@pytest.mark.parametrize("variants", [",", "", " , "])
def test_variants_that_name_no_variant_are_one_line(
    variants: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # before the fix, a run folder appeared under ./results/runs
    line = _one_line(["run", f"--variants={variants}", "--scenarios", "main_and_test"], capsys)
    assert line == (
        f"todo-bench: error: --variants {variants!r} names no variant: give one or more, "
        "comma-separated, or a set (headline, products, seed-stack, seed-factorial)"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("out", ["", "  "])
def test_an_empty_out_is_one_line(
    out: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # before the fix, the run went into ./results/latest
    argv = ["run", f"--out={out}", "--variants", "L0-rewrite", "--scenarios", "main_and_test"]
    line = _one_line([*argv, "--epochs", "1", "--display", "none"], capsys)
    assert line == (
        "todo-bench: error: --out '': an empty path names no folder (without --out a run "
        "writes results/runs/<run-id>)"
    )
    assert list(tmp_path.iterdir()) == []


# leaderboard and report on a summary this code cannot trust


@pytest.mark.parametrize("command", ["leaderboard", "report"])
def test_a_summary_of_a_newer_schema_is_refused(
    command: str, summaries: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    line = _one_line([command, str(summaries["newer"])], capsys)
    assert line == (
        f"todo-bench: error: {summaries['newer'] / 'summary.json'}: summary schema version 99; "
        f"this todo-bench reads versions 1 to {SCHEMA_VERSION}"
    )
    assert sorted(p.name for p in summaries["newer"].iterdir()) == ["summary.json"]


@pytest.mark.parametrize("command", ["leaderboard", "report"])
def test_a_summary_with_a_negative_count_is_refused(
    command: str, summaries: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    line = _one_line([command, str(summaries["negative"])], capsys)
    assert line == (
        f"todo-bench: error: {summaries['negative'] / 'summary.json'}: not a todo-bench summary "
        f"of schema version {SCHEMA_VERSION} (field 'variants.0.episodes': Input should be "
        "greater than or equal to 0)"
    )


# scenarios list PATH


def test_scenarios_list_of_a_missing_path_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    line = _one_line(["scenarios", "list", "/nonexistent"], capsys)
    assert line == (
        "todo-bench: error: /nonexistent: does not exist (scenarios list takes scenario files "
        "or folders)"
    )


@pytest.mark.parametrize("action", ["list", "validate", "check"])
def test_a_folder_stands_for_its_scenario_files(
    action: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = tmp_path / "excel_export.yaml"
    scenario.write_bytes((ROOT / "scenarios" / "excel_export.yaml").read_bytes())
    (tmp_path / "notes.txt").write_text("not a scenario")
    assert main(["scenarios", action, str(tmp_path)]) == 0
    said = capsys.readouterr()
    # one file taken, the folder's text file left alone
    assert {
        "list": "| excel_export |" in said.out,
        "validate": said.out.startswith("ok  ") and "1 of 1 scenario files valid" in said.err,
        "check": "1 scenario files checked: 0 problems" in said.err,
    }[action]
    assert "notes.txt" not in said.out + said.err
    scenario.unlink()
    line = _one_line(["scenarios", action, str(tmp_path)], capsys)
    assert line == f"todo-bench: error: {tmp_path}: a folder with no *.yaml scenario files"


def test_scenarios_list_lists_the_files_it_is_given(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios", "list", str(ROOT / "scenarios" / "excel_export.yaml")]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert [row.split("|")[1].strip() for row in rows] == ["id", "excel_export"]
