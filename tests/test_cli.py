"""CLI errors are one clear line, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main


def test_scenarios_list_validate_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios", "list"]) == 0
    assert "excel_export" in capsys.readouterr().out
    assert main(["scenarios", "validate"]) == 0
    assert main(["scenarios", "schema"]) == 0
    assert '"title": "Scenario"' in capsys.readouterr().out


def test_invalid_scenario_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: bad\ntitle: x\n")
    assert main(["scenarios", "validate", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "bad.yaml: field 'prompt': Field required" in out and "Traceback" not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--variants", "L9-magic"], "unknown variant 'L9-magic'"),
        (["run", "--scenarios", "nope"], "unknown scenario id or tag: nope"),
        (["run", "--model", "sim/bogus"], "unknown sim profile 'bogus'"),
        (["run", "--model", "sim/sloppy", "-M", "drop"], "-M expects name=value"),
        (["run", "--model", "anthropic/claude-x"], "needs ANTHROPIC_API_KEY"),
        (["run", "--model", "openai-api/local/qwen"], "needs LOCAL_BASE_URL"),
        (["run", "--model", "recover/openai-api/local/qwen"], "needs LOCAL_BASE_URL"),
        (["run", "--model", "recover/qwen"], "named recover/<provider>/<model>"),
        (["leaderboard", "/nonexistent"], "no summary.json found"),
    ],
)
def test_bad_input_is_one_line(
    args: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("LOCAL_BASE_URL", raising=False)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
