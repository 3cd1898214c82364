"""The hook's own budget and its bounded reading: a check that outlasts the budget is answered
before the product's timeout, saying so and journaled; a long final message is judged from its
start and end, in well under a second."""

from __future__ import annotations

import time

from harness.hooks.budget import HOOK_BUDGET
from harness.hooks.stop_gate import READ_HEAD, READ_TAIL, readable
from tests.hooks.conftest import Hooks, todos

FIXES = "textlock,whitelist,inject,gate-heuristic"


def _template(count: int, verb: str = "Write section") -> list[str]:
    return [f"{verb} {i} of the quarterly report for region {i % 7}" for i in range(count)]


def test_a_check_past_the_budget_is_denied_in_time_and_journaled(hooks: Hooks) -> None:
    hooks.run(FIXES, hooks.todo_write("PostToolUse", todos(*_template(2000))))
    reworded = todos(*_template(2000, "Write the section"))  # every pair compared: about 20 s
    start = time.perf_counter()
    reply = hooks.run(FIXES, hooks.todo_write("PreToolUse", reworded), **{HOOK_BUDGET: "1"})
    assert time.perf_counter() - start < 10  # 691d616: no budget, about 60 s here
    assert reply.code == 0 and reply.answer is not None
    decision = reply.answer["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "longer than the hook's 1 s budget" in decision["permissionDecisionReason"]
    assert "2,000 items" in decision["permissionDecisionReason"]
    (record,) = hooks.journal()[-1:]
    assert (record.action, record.event) == ("denied", "PreToolUse")


def test_a_check_within_the_budget_is_the_fixes_own_answer(hooks: Hooks) -> None:
    hooks.run(FIXES, hooks.todo_write("PostToolUse", todos(*_template(1000))))
    ticked = todos(*_template(1000), done=tuple(_template(3)))
    reply = hooks.run(FIXES, hooks.todo_write("PreToolUse", ticked), **{HOOK_BUDGET: "5"})
    assert (reply.code, reply.answer) == (0, None)
    assert [r.action for r in hooks.journal()] == ["injected"]


def test_an_event_past_the_budget_goes_ahead_with_a_message(hooks: Hooks) -> None:
    # a state rebuilt from a transcript is pure Python; a budget of 1 ms cannot be met
    reply = hooks.run(FIXES, hooks.event("Stop", last_assistant_message="Done."), **{
        HOOK_BUDGET: "0.001"
    })  # fmt: skip
    assert reply.code == 0 and reply.answer is not None
    assert "the gate let this stop through unjudged" in reply.answer["systemMessage"]
    assert hooks.journal()[-1].action == "failed"


def test_the_gate_reads_a_long_messages_start_and_end() -> None:
    short = "x" * (READ_HEAD + READ_TAIL)
    assert readable(short) is short
    long = "a" * READ_HEAD + "b" * 10_000_000 + "c" * READ_TAIL
    assert readable(long) == "a" * READ_HEAD + "\n\n" + "c" * READ_TAIL


def test_a_20_mb_final_message_is_judged_in_under_a_second(hooks: Hooks) -> None:
    hooks.run(FIXES, hooks.todo_write("PostToolUse", todos("Write main.py")))
    output = "line of build output\n" * 1_000_000  # 21 MB
    start = time.perf_counter()
    claim = hooks.run(FIXES, hooks.event("Stop", last_assistant_message=output + "All done."))
    took = time.perf_counter() - start
    assert claim.answer is not None and claim.answer["decision"] == "block"  # must fire
    # the process's start and the 21 MB of JSON included; 691d616: 97 s
    assert took < 2.5
    admitted = hooks.run(
        FIXES, hooks.event("Stop", last_assistant_message=output + "I could not write main.py.")
    )
    assert admitted.answer is None  # must not fire: an admission at the end goes through
