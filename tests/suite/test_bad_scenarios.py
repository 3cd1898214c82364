"""Every broken scenario file gets one line naming the file and the field, and exit 2, from
`scenarios validate` and from `run`; no input makes the loader hang or blow up."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
import yaml

from harness.commands import main
from harness.suite.scenario import MAX_FILE_BYTES
from tests.helpers import DATA, ROOT, todo_bench_bounded, unblocking

EXPECTED: dict[str, str] = yaml.safe_load((DATA / "bad_scenarios.yaml").read_text("utf-8"))
BROKEN = sorted((DATA / "bad_scenarios").glob("*.yaml"))


def test_the_corpus_is_complete() -> None:
    assert len(BROKEN) >= 30
    assert {p.stem for p in BROKEN} == set(EXPECTED)


@pytest.mark.parametrize("path", BROKEN, ids=[p.stem for p in BROKEN])
def test_validate_names_the_file_and_the_problem_in_one_line(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["scenarios", "validate", str(path)]) == 2
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith(f"ERR {path}: ") and EXPECTED[path.stem] in line, line


@pytest.mark.parametrize("path", BROKEN, ids=[p.stem for p in BROKEN])
def test_run_refuses_the_file_in_one_line(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "suite"
    folder.mkdir()
    shutil.copy(path, folder / path.name)
    args = ["run", "--scenario-dir", str(folder), "--out", str(tmp_path / "out")]
    assert main(args) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"todo-bench: error: {folder / path.name}: "), line
    assert EXPECTED[path.stem] in line
    assert not (tmp_path / "out").exists()


def test_validate_goes_on_after_a_broken_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # sorted first, the broken file must not stop the good one after it
    shutil.copy(DATA / "bad_scenarios" / "anchor_bomb.yaml", tmp_path)
    shutil.copy(Path("scenarios/main_and_test.yaml"), tmp_path)
    assert main(["scenarios", "validate", "--scenario-dir", str(tmp_path)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"ERR {tmp_path / 'anchor_bomb.yaml'}: ")
    assert out[1] == f"ok  {tmp_path / 'main_and_test.yaml'}"


#: paths that are not regular files: a fifo would block the reader forever, a device never ends
SPECIAL = {
    "pipe.yaml": "a named pipe (fifo), not a regular file",
    "zero.yaml": "a character device, not a regular file",
    "random.yaml": "a character device, not a regular file",
    "folder.yaml": "a folder, not a regular file",
}


def _special_files(folder: Path) -> None:
    os.mkfifo(folder / "pipe.yaml")
    (folder / "zero.yaml").symlink_to("/dev/zero")
    (folder / "random.yaml").symlink_to("/dev/urandom")
    (folder / "folder.yaml").mkdir()


def test_validate_refuses_fifos_devices_and_folders_without_reading_them(tmp_path: Path) -> None:
    # in a child process with bounded memory and time: before the fix, the fifo hung the
    # loader and /dev/zero was read until a MemoryError
    _special_files(tmp_path)
    started = time.monotonic()
    done = todo_bench_bounded(["scenarios", "validate", "--scenario-dir", str(tmp_path)], ROOT)
    assert time.monotonic() - started < 30
    assert done.returncode == 2, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(SPECIAL), done.stdout + done.stderr
    for line, (name, message) in zip(lines, sorted(SPECIAL.items()), strict=True):
        assert line == f"ERR {tmp_path / name}: {message}; a scenario is a YAML file"
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", ["check", "run"])
def test_check_and_run_refuse_a_fifo_in_one_line(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "suite"
    folder.mkdir()
    fifo = folder / "pipe.yaml"
    os.mkfifo(fifo)
    if command == "check":
        args = ["scenarios", "check", str(fifo)]
    else:
        args = ["run", "--scenario-dir", str(folder), "--out", str(tmp_path / "out")]
    with unblocking(fifo):
        assert main(args) == 2
    captured = capsys.readouterr()
    line = captured.out if command == "check" else captured.err.removeprefix("todo-bench: error: ")
    refusal = "a named pipe (fifo), not a regular file; a scenario is a YAML file"
    assert line.strip() == f"{fifo}: {refusal}"
    assert not (tmp_path / "out").exists()


def test_a_file_over_the_bound_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    assert main(["scenarios", "validate", str(big)]) == 2
    assert capsys.readouterr().out == f"ERR {big}: larger than {MAX_FILE_BYTES:,} bytes\n"
