"""`todo-bench scenarios check`: the shipped suite is sound; each broken scenario is caught."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.commands import main
from harness.suite.scenario_check import check_files

BROKEN = sorted(Path("tests/fixtures/broken_scenarios").glob("*.yaml"))


def expectation(path: Path) -> tuple[int, str]:
    """The `# expect: CODE TEXT` first line of a broken scenario."""
    match = re.match(r"# expect: (\d) (.*)", path.read_text(encoding="utf-8").splitlines()[0])
    assert match, path
    return int(match.group(1)), match.group(2)


def test_every_shipped_scenario_is_sound() -> None:
    # the generated stress families take longer: `make test` checks them with the CLI
    written = [
        p for p in sorted(Path("scenarios").glob("*.yaml")) if not p.stem.startswith("hard_")
    ]
    lines, code = check_files(written)
    assert (code, lines) == (0, [])


@pytest.mark.parametrize("path", BROKEN, ids=[p.stem for p in BROKEN])
def test_each_broken_scenario_is_caught_with_its_named_problem(path: Path) -> None:
    code, text = expectation(path)
    lines, found = check_files([path])
    assert found == code
    assert len(lines) == 1 and str(path) in lines[0]
    words = text.split()
    # the expected field and wording appear in the one line (field first, then the message)
    assert all(word.strip("':") in lines[0] for word in words), lines[0]


def test_the_corpus_covers_the_four_named_defects() -> None:
    names = {p.stem for p in BROKEN}
    assert {
        "failing_reference",
        "vacuous_check",
        "cancelled_left_done",
        "unknown_argument",
    } <= names


def test_cli_exit_codes_and_one_line_per_problem(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios", "check", "scenarios/excel_export.yaml"]) == 0
    assert main(["scenarios", "check", str(BROKEN[0]), "scenarios/excel_export.yaml"]) == 2
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and BROKEN[0].name in out[0]


def test_a_run_replays_a_reference_once_per_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import harness.run.checked_scenarios as check

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    replays: list[str] = []
    real = check.reference_problem
    monkeypatch.setattr(
        check,
        "reference_problem",
        lambda s: replays.append(s.id) or real(s),  # type: ignore[func-returns-value]
    )
    source = Path("scenarios/excel_export.yaml")
    copy = tmp_path / "excel_export.yaml"
    copy.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    check.load_verified(copy)
    check.load_verified(copy)
    assert replays == ["excel_export"]  # the second run start trusts the first verification
    copy.write_text(
        source.read_text(encoding="utf-8").replace("exports/1.xlsx", "exports/2.xlsx"),
        encoding="utf-8",
    )
    check.load_verified(copy)
    assert replays == ["excel_export", "excel_export"]  # changed content: replayed again
