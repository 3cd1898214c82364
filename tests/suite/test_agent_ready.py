"""Which scenarios the shipping agents' rows take: user turns and compactions keep a scenario
out (with the reason), a plain one is in; `scenarios list` and `check` say so."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.suite.agent_ready import readiness, unsupported
from harness.suite.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2] / "scenarios"


@pytest.mark.parametrize(
    ("scenario", "why"),
    [
        ("excel_export", None),
        ("main_and_test", None),
        ("user_cancels", "user turns"),
        ("compaction", "compaction"),
    ],
)
def test_a_feature_the_cli_episode_cannot_drive_keeps_a_scenario_out(
    scenario: str, why: str | None
) -> None:
    loaded = load_scenario(ROOT / f"{scenario}.yaml")
    assert unsupported(loaded) == why
    assert readiness(loaded) == ("yes" if why is None else f"no: {why}")


def test_list_and_check_say_which_scenarios_the_cli_rows_take(
    capsys: pytest.CaptureFixture[str],
) -> None:
    files = [str(ROOT / f"{s}.yaml") for s in ("excel_export", "user_renames")]
    assert main(["scenarios", "list", *files]) == 0
    rows = {line.split("|")[1].strip(): line for line in capsys.readouterr().out.splitlines()[2:]}
    assert "| yes " in rows["excel_export"] and "| no: user turns " in rows["user_renames"]
    assert main(["scenarios", "check", *files]) == 0
    said = capsys.readouterr().err
    assert (
        "agent-ready (the cli/... rows take them): 1 of 2; not yet: user_renames (user turns)"
        in said
    )
