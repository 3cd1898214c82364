"""Bad command lines of issue #39: each is one line on stderr and exit 2, with no traceback,
in bounded time and memory, and nothing is written."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from harness.cli import main
from tests.helpers import ROOT, unblocking

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
