"""The loop's switches are policies: each switch maps to its policy, the loop asks the policies
at its steps and reads no switch itself (a new switch is its declaration and its policy, not a
new branch)."""

from __future__ import annotations

import re

import pytest

from harness.episode import policies
from harness.episode.policies import (
    CompletionLoop,
    DeployFirstList,
    HeuristicGate,
    InjectList,
    IntentPlanner,
    LoopController,
    OracleGate,
    installed_by,
    policies_for,
)
from harness.todo.variants import SWITCHES, Variant
from tests.helpers import ROOT


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("L3-granular", []),
        ("L4-inject", [InjectList]),
        ("L4-inject+gate", [InjectList, OracleGate]),
        ("L3-granular+heuristic", [DeployFirstList, HeuristicGate]),
        (
            "L4-inject+heuristic+planner+completion-loop+loop-controller",
            [InjectList, IntentPlanner, LoopController, DeployFirstList, CompletionLoop,
             HeuristicGate],
        ),
    ],
)  # fmt: skip
def test_each_switch_is_its_policy_in_the_loops_order(label: str, expected: list[type]) -> None:
    assert [type(p) for p in policies_for(Variant.parse(label))] == expected


def test_the_loop_reads_no_switch_itself() -> None:
    loop = (ROOT / "harness" / "episode" / "loop.py").read_text(encoding="utf-8")
    assert re.findall(r"self\.variant\.(\w+)", loop) == ["has"]
    # only the transcript's label of the oracle gate, which a viewer reads
    assert re.findall(r"self\.variant\.has\((.*?)\)", loop) == ['"gate"']


def test_a_policy_names_a_declared_switch() -> None:
    with pytest.raises(ValueError, match="no variant switch 'tyop' is declared"):
        installed_by("tyop")
    assert {switch for switch, _ in policies.INSTALLED} <= set(SWITCHES)
