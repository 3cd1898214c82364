"""Which scenarios the shipping agents' rows take: a compaction keeps a scenario out (with the
reason), user turns do not (the product's own channel takes them), except on a row whose oracle
gate hook cannot follow them; `scenarios list` and `check` say so."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.agents.support import left_out
from harness.cli import main
from harness.suite.agent_ready import readiness, unsupported
from harness.suite.scenario import load_scenario
from harness.todo.clis import PRODUCTS, with_hooks

ROOT = Path(__file__).resolve().parents[2] / "scenarios"


@pytest.mark.parametrize(
    ("scenario", "why"),
    [
        ("excel_export", None),
        ("main_and_test", None),
        ("user_cancels", None),
        ("compaction", "compaction"),
        ("config_migration", None),
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
    files = [str(ROOT / f"{s}.yaml") for s in ("excel_export", "compaction")]
    assert main(["scenarios", "list", *files]) == 0
    rows = {line.split("|")[1].strip(): line for line in capsys.readouterr().out.splitlines()[2:]}
    assert "| yes " in rows["excel_export"] and "| no: compaction " in rows["compaction"]
    assert main(["scenarios", "check", *files]) == 0
    said = capsys.readouterr().err
    assert (
        "agent-ready (the cli/... rows take them): 1 of 2; not yet: compaction (compaction)" in said
    )


def test_a_row_with_the_oracle_gate_hook_leaves_user_turns_out_and_says_why() -> None:
    scenarios = [load_scenario(ROOT / f"{s}.yaml") for s in ("user_cancels", "excel_export")]
    gated = with_hooks(PRODUCTS["cli/claude-code-todowrite"], ("gate",))
    assert left_out(gated, scenarios) == {
        "user_cancels": "the oracle gate judges the scenario's subtasks as written, not as the "
        "user changes them"
    }
    plain = with_hooks(PRODUCTS["cli/claude-code-todowrite"], ("heuristic",))
    assert left_out(plain, scenarios) == {}
