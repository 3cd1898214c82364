"""A CLI row's hook switches: parsed into the product's fixes (refused where the product cannot
take them), and the hooks' journal checked against the ledger (fires and stays quiet) and priced."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.agents.hooked import disagreements, injections, overridden
from harness.episode.ledger import ClaimEvent, Ledger, TodoEvent
from harness.hooks.fixes import FIXES
from harness.hooks.journal import HookRecord
from harness.products.catalog import HOOK_SWITCHES
from harness.todo.variants import Variant, parse_variants
from harness.tokens import text_tokens


def test_every_hook_switch_names_a_fix_and_round_trips_through_its_label() -> None:
    assert set(HOOK_SWITCHES.values()) <= set(FIXES)
    for variant in parse_variants("agents-hooks"):
        assert Variant.parse(variant.label) == variant
    row = Variant.parse("cli/claude-code-todowrite+gate+whitelist").cli
    assert row is not None
    assert row.name == "cli/claude-code-todowrite+whitelist+gate"
    assert row.hooks == ("whitelist", "gate-oracle")
    gemini = Variant.parse("cli/gemini-cli+whitelist").cli
    assert gemini is not None and gemini.hooks == ("whitelist",)


@pytest.mark.parametrize(
    ("name", "said"),
    [
        # Claude Code's Tasks row takes the oracle gate alone (the rest read a full list)
        ("cli/claude-code-tasks+textlock", "takes no +textlock (its hook switches: +gate)"),
        ("cli/claude-code-todowrite+gate+heuristic", "two gates"),
        ("cli/claude-code-todowrite+planner", "takes no +planner"),
        # Codex CLI's, OpenCode's and Gemini CLI's take every fix, as Claude Code's TodoWrite row
        ("cli/codex+heuristic+gate", "two gates"),
        ("cli/opencode+heuristic+gate", "two gates"),
        ("cli/gemini-cli+gate+heuristic", "two gates"),
    ],
)
def test_a_switch_the_product_cannot_take_is_refused(name: str, said: str) -> None:
    with pytest.raises(ValueError, match=re.escape(said)):
        Variant.parse(name)


def _record(
    action: str, tool_use_id: str = "", agent_id: str = "", time: float = 0.0
) -> HookRecord:
    return HookRecord(
        time=time,
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
    assert disagreements(records, _ledger(accepted=False, blocked=1), 9.0) == []


def test_a_denial_the_product_did_not_honour_and_an_unseen_block_are_problems() -> None:
    problems = disagreements([_record("denied", "c1"), _record("blocked")], _ledger(True, 0), 9.0)
    assert len(problems) == 2
    assert "denied TodoWrite call c1" in problems[0]
    assert "blocked 1 stop(s); the product went on after 0" in problems[1]


def test_a_withdrawn_block_is_no_stop_the_product_went_on_after() -> None:
    """OpenCode's plugin takes back a block whose text preceded tool calls: the ledger has no
    blocked claim for it, and the two agree; a block left standing is still a problem."""
    withdrawn = [_record("blocked"), _record("withdrawn"), _record("blocked")]
    assert disagreements(withdrawn, _ledger(accepted=False, blocked=1), 9.0) == []
    standing = [_record("blocked"), _record("blocked")]
    (problem,) = disagreements(standing, _ledger(accepted=False, blocked=1), 9.0)
    assert "blocked 2 stop(s); the product went on after 1" in problem


def _ended_on_a_claim(ledger: Ledger) -> Ledger:
    ledger.events.append(ClaimEvent(turn=3, blocked=False, ending="claimed_done"))
    ledger.end_reason = "claimed_done"
    return ledger


def test_a_last_block_the_product_overrode_is_no_disagreement_and_is_kept() -> None:
    """Claude Code ends a turn after its cap of Stop-hook blocks in a row: the journal's last
    block comes after the product's last model request, and the episode ends on that claim."""
    records = [_record("blocked", time=1.0), _record("blocked", time=5.0)]
    ledger = _ended_on_a_claim(_ledger(accepted=False, blocked=1))
    assert overridden(records, ledger, last_request=3.0)
    assert disagreements(records, ledger, last_request=3.0) == []


def test_a_block_honoured_then_a_stop_let_through_is_no_override() -> None:
    """The gate blocked once, the product went on, and the gate let the last stop through
    quietly: the journal's last record is that block, and it is no override."""
    records = [_record("blocked", time=1.0)]
    ledger = _ended_on_a_claim(_ledger(accepted=False, blocked=1))
    assert not overridden(records, ledger, last_request=3.0)
    assert disagreements(records, ledger, last_request=3.0) == []


def test_a_block_the_ledger_lacks_is_still_a_problem_unless_the_episode_ended_on_it() -> None:
    records = [_record("blocked", time=1.0), _record("blocked", time=2.0)]
    ledger = _ended_on_a_claim(_ledger(accepted=False, blocked=1))
    assert not overridden(records, ledger, last_request=3.0)  # both came before the last ask
    problems = disagreements(records, ledger, last_request=3.0)
    assert "blocked 2 stop(s); the product went on after 1" in problems[0]
    ledger = _ledger(accepted=False, blocked=1)
    ledger.end_reason = "budget_exhausted"
    assert not overridden(records, ledger, last_request=0.0)


@pytest.mark.parametrize(
    ("variant", "capped"),
    [("cli/claude-code-todowrite+gate", True), ("cli/claude-code-todowrite+whitelist", False)],
)
def test_a_gate_row_refuses_until_the_budget_and_lifts_the_product_s_cap_too(
    variant: str, capped: bool, tmp_path: Path
) -> None:
    from harness.agents.hooked import PRODUCT_BLOCK_CAP, install_hooks
    from harness.hooks.stop_gate import MAX_BLOCKS
    from harness.suite.scenario import load_scenarios, select

    (scenario,) = select(load_scenarios(), "long_list")
    product = Variant.parse(variant).cli
    assert product is not None
    (tmp_path / "ws").mkdir()
    env = install_hooks(product, scenario, tmp_path / "ws", tmp_path, tmp_path / "bin")
    budget = str(scenario.max_turns)
    assert (env.get(MAX_BLOCKS), env.get(PRODUCT_BLOCK_CAP)) == (
        (budget, budget) if capped else (None, None)
    )
    assert (tmp_path / "ws" / ".claude" / "settings.json").is_file()


def test_each_injected_context_is_priced_once_in_the_turn_that_first_carried_it() -> None:
    def injected(time: float, text: str, agent_id: str = "") -> HookRecord:
        return _record("injected", agent_id=agent_id, time=time).model_copy(
            update={"text": text, "event": "PostToolUse"}
        )

    records = [
        injected(1.0, "a" * 100),  # after turn 1's request: read in turn 2
        _record("denied", "c1", time=1.5),
        injected(2.5, "b" * 10, agent_id="sub"),  # a subagent's call: still context added
        injected(9.0, "c" * 7),  # after the last request: never read, still injected
    ]
    events = injections(records, [1.0, 2.0, 3.0])
    assert [(e.turn, e.source, e.chars, e.tokens) for e in events] == [
        (2, "hook", 100, text_tokens("a" * 100)),
        (3, "hook", 10, text_tokens("b" * 10)),
        (4, "hook", 7, text_tokens("c" * 7)),
    ]
    assert injections([_record("denied", "c1"), _record("blocked")], [1.0]) == []
