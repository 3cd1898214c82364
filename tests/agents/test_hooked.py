"""A CLI row's hook switches: parsed into the product's fixes (refused where the product cannot
take them), and the hooks' journal checked against the ledger (fires and stays quiet)."""

from __future__ import annotations

import re

import pytest

from harness.agents.hooked import disagreements
from harness.episode.ledger import ClaimEvent, Ledger, TodoEvent
from harness.hooks.fixes import FIXES
from harness.hooks.journal import HookRecord
from harness.todo.clis import HOOK_SWITCHES
from harness.todo.variants import Variant, parse_variants


def test_every_hook_switch_names_a_fix_and_round_trips_through_its_label() -> None:
    assert set(HOOK_SWITCHES.values()) <= set(FIXES)
    for variant in parse_variants("agents-hooks"):
        assert Variant.parse(variant.label) == variant
    row = Variant.parse("cli/claude-code-todowrite+gate+whitelist").cli
    assert row is not None
    assert row.name == "cli/claude-code-todowrite+whitelist+gate"
    assert row.hooks == ("whitelist", "gate-oracle")


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("cli/claude-code-tasks+textlock", "takes no +textlock"),
        ("cli/claude-code-todowrite+gate+heuristic", "two gates"),
        ("cli/claude-code-todowrite+planner", "takes no +planner"),
        # the hooks are Claude Code's settings: Codex CLI's row takes none
        ("cli/codex+gate", "takes no +gate (its hook switches: none)"),
    ],
)
def test_a_switch_the_product_cannot_take_is_refused(name: str, said: str) -> None:
    with pytest.raises(ValueError, match=re.escape(said)):
        Variant.parse(name)


def _record(action: str, tool_use_id: str = "", agent_id: str = "") -> HookRecord:
    return HookRecord(
        time=0.0,
        session_id="s",
        event="Stop" if action == "blocked" else "PreToolUse",
        fixes=["whitelist"],
        action=action,
        text="",
        tool="TodoWrite" if action == "denied" else "",
        tool_use_id=tool_use_id,
        agent_id=agent_id,
    )


def _ledger(accepted: bool, blocked: int) -> Ledger:
    ledger = Ledger(scenario="x", variant="cli/claude-code-todowrite+whitelist")
    ledger.events.append(
        TodoEvent(
            turn=1,
            call_id="c1",
            tool="TodoWrite",
            op="rewrite",
            args={},
            accepted=accepted,
            before=[],
            after=[],
        )  # fmt: skip
    )
    ledger.events.extend(ClaimEvent(turn=2, blocked=True) for _ in range(blocked))
    return ledger


def test_the_journal_and_the_ledger_agree() -> None:
    records = [_record("denied", "c1"), _record("blocked"), _record("blocked", agent_id="sub")]
    assert disagreements(records, _ledger(accepted=False, blocked=1)) == []


def test_a_denial_the_product_did_not_honour_and_an_unseen_block_are_problems() -> None:
    problems = disagreements([_record("denied", "c1"), _record("blocked")], _ledger(True, 0))
    assert len(problems) == 2
    assert "denied TodoWrite call c1" in problems[0]
    assert "blocked 1 stop(s); the product went on after 0" in problems[1]
