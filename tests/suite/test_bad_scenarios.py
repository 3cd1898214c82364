"""Every broken scenario file gets one line naming the file and the field, and exit 2, from
`scenarios validate` and from `run`; no input makes the loader hang or blow up."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from harness.cli import main
from tests.helpers import DATA

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
