"""The loop's switches are policies: each switch maps to its policy, the loop asks the policies
at its steps and reads no switch itself (a new switch is its declaration and its policy, not a
new branch)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from inspect_ai.model import Model

from harness.commands import main
from harness.episode import policies
from harness.episode.policies import (
    CompletionLoop,
    DeployFirstList,
    HeuristicGate,
    InjectList,
    IntentPlanner,
    Loop,
    LoopController,
    OracleGate,
    Policy,
    installed_by,
    policies_for,
)
from harness.run.runner import WorkerPlan, run_variant
from harness.todo.variants import SWITCHES, Switch, Variant
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


def test_a_new_switch_is_one_declaration_and_its_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A switch declared in SWITCHES and a policy installed by it: the run's help lists it, a
    label names it (after the design's), the log's Python form holds it, its composition rule
    refuses a variant without what it needs, and the episode runs its policy."""
    help_text = "a switch only this test declares"
    toy = Switch("toy", help_text, requires={"inject": "+toy reads the injected list"})
    monkeypatch.setitem(SWITCHES, "toy", toy)
    monkeypatch.setattr(policies, "INSTALLED", list(policies.INSTALLED))
    started: list[str] = []

    @installed_by("toy")
    class Toy(Policy):
        async def before_turns(self, loop: Loop, model: Model) -> None:
            started.append(loop.scenario.id)

    with pytest.raises(SystemExit):
        main(["run", "--help"])
    listed = " ".join(capsys.readouterr().out.split())
    assert f"+toy {help_text} (needs +inject)" in listed

    variant = Variant.parse("L3-granular+toy+inject")
    assert variant.label == "L4-inject+toy" and variant.has("toy")
    assert variant.model_dump()["toy"] is True
    assert Variant.model_validate(variant.model_dump()) == variant  # the solver's round trip
    with pytest.raises(ValueError, match=re.escape("'L3-granular+toy': +toy reads the injected")):
        Variant.parse("L3-granular+toy")
    assert [type(p) for p in policies_for(variant)] == [InjectList, Toy]

    plan = WorkerPlan(
        model="sim/sloppy",
        model_args={"seed": 0},
        variants=[variant],
        scenarios="excel_export",
        scenario_dir=None,
        epochs=1,
        log_root=str(tmp_path),
        display="none",
        generate={},
        retry_attempts=0,
    )
    assert run_variant(plan, variant, "none")
    assert started == ["excel_export"]


def test_a_policy_names_a_declared_switch() -> None:
    with pytest.raises(ValueError, match="no variant switch 'tyop' is declared"):
        installed_by("tyop")
    assert {switch for switch, _ in policies.INSTALLED} <= set(SWITCHES)


def test_the_policies_name_the_loop_by_what_they_use_not_by_import() -> None:
    """The loop imports its policies; they see it as a `Loop` protocol (no circle, not even
    one of types only)."""
    policies_source = (ROOT / "harness" / "episode" / "policies.py").read_text(encoding="utf-8")
    assert "harness.episode.loop" not in policies_source
