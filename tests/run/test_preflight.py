"""Causes outside the run's folder, each one line: a HOME inspect cannot write (exit 2, nothing
written), a log folder that cannot be made (exit 2), and a disk that fills mid-run (the path,
what is free and what the rest needs; exit 1, and the rerun after space is freed gives the
uninterrupted run's summary byte for byte)."""

from __future__ import annotations

import errno
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.commands import main
from harness.run.preflight import disk_full, is_disk_full

SMALL = ["--model", "sim/sloppy", "--variants", "L3-granular,L0-rewrite", "--display", "none"]
SMALL += ["--scenarios", "main_and_test,excel_export", "--epochs", "3"]


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err, err
    return lines[-1]


def test_a_home_inspect_cannot_write_is_one_line_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    monkeypatch.setenv("HOME", str(tmp_path / "a-file" / "home"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    out = tmp_path / "run"
    assert main(["run", *SMALL, "--out", str(out)]) == 2  # 691d616: NotADirectoryError
    line = _one_line(capsys.readouterr().err)
    assert "inspect's data folder" in line and "set HOME or XDG_DATA_HOME" in line, line
    assert not out.exists()


def test_a_log_folder_that_cannot_be_made_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "logs").write_text("in the way", encoding="utf-8")
    assert main(["run", *SMALL, "--out", str(out)]) == 2  # 691d616: FileExistsError
    line = _one_line(capsys.readouterr().err)
    assert f"{out / 'logs'}: cannot make the run's log folder there" in line, line


def test_the_disk_full_line_names_the_path_the_space_free_and_needed(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "a.eval").write_bytes(b"x" * 40_000)
    line = disk_full(str(tmp_path), 4, 12)
    assert line.startswith(f"no space left on the device of {tmp_path}: ")
    assert "holds 40.0 KB for 4 of 12 episodes; the 8 episodes left need about 80.0 KB" in line
    assert is_disk_full(RuntimeError("worker failed")) is False  # must not fire
    wrapped = RuntimeError("worker failed")
    wrapped.__cause__ = OSError(errno.ENOSPC, "No space left on device")
    assert is_disk_full(wrapped)  # must fire, through the pool's wrapping


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 150 KB tmpfs (root only; skipped where mounting is not allowed)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=150k", "tmpfs", str(disk)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def test_a_full_disk_is_one_line_and_the_rerun_is_exact(
    small_disk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = small_disk / "run"
    assert main(["run", *SMALL, "--out", str(out)]) == 1  # 691d616: 3 tracebacks
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    lines = [x for x in err.splitlines() if "no space left" in x]
    assert len(lines) == 1, err
    (line,) = lines
    assert f"no space left on the device of {out}: " in line and "free space and rerun" in line
    subprocess.run(["mount", "-o", "remount,size=20m", str(small_disk)], check=True)
    assert main(["run", *SMALL, "--out", str(out)]) == 0
    whole = tmp_path / "whole"
    assert main(["run", *SMALL, "--out", str(whole)]) == 0
    assert (out / "summary.json").read_bytes() == (whole / "summary.json").read_bytes()
