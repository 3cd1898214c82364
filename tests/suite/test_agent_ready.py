"""Which scenarios the shipping agents' rows take: a compaction keeps a scenario out of a row
whose product has no compaction command (with the product's reason), not out of Claude Code's
(its `/compact`); user turns do not (the product's own channel takes them), except on a row
whose oracle gate hook cannot follow them; `scenarios list` and `check` say so."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.agents.support import left_out, readiness
from harness.commands import main
from harness.products.catalog import PRODUCTS, with_hooks
from harness.suite.agent_ready import unsupported
from harness.suite.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2] / "scenarios"


@pytest.mark.parametrize(
    ("scenario", "why", "cell"),
    [
        ("excel_export", None, "yes"),
        ("main_and_test", None, "yes"),
        ("user_cancels", None, "yes"),
        ("compaction", "compaction", "claude-code only (compaction)"),
        ("config_migration", None, "yes"),
    ],
)
def test_a_compaction_keeps_a_scenario_out_of_a_product_without_a_compaction_command(
    scenario: str, why: str | None, cell: str
) -> None:
    loaded = load_scenario(ROOT / f"{scenario}.yaml")
    assert unsupported(loaded) == why
    assert unsupported(loaded, compacts=True) is None
    assert readiness(loaded) == cell


def test_each_row_leaves_out_what_its_product_cannot_take_with_the_product_s_reason() -> None:
    scenarios = [load_scenario(ROOT / f"{s}.yaml") for s in ("compaction", "excel_export")]
    for name in ("cli/claude-code-todowrite", "cli/claude-code-tasks"):
        assert left_out(PRODUCTS[name], scenarios) == {}
    for name in ("cli/codex", "cli/opencode"):
        (why,) = left_out(PRODUCTS[name], scenarios).values()
        assert why.startswith("compaction: its headless") and "no compaction command" in why
    (why,) = left_out(PRODUCTS["cli/gemini-cli"], scenarios).values()
    assert why.startswith("compaction: its headless") and "in the background" in why


def test_list_and_check_say_which_scenarios_the_cli_rows_take(
    capsys: pytest.CaptureFixture[str],
) -> None:
    files = [str(ROOT / f"{s}.yaml") for s in ("excel_export", "compaction")]
    assert main(["scenarios", "list", *files]) == 0
    rows = {line.split("|")[1].strip(): line for line in capsys.readouterr().out.splitlines()[2:]}
    assert "| yes " in rows["excel_export"]
    assert "| claude-code only (compaction) " in rows["compaction"]
    assert main(["scenarios", "check", *files]) == 0
    said = capsys.readouterr().err
    assert (
        "agent-ready (every cli/... row takes them): 1 of 2; not every row: compaction "
        "(claude-code only (compaction))" in said
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
