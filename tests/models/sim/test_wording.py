"""The simulated agent's own-words plans (`harness/models/sim/wording.py`): off by default without a
draw, each rate where it must and must not act, every wording still names its subtasks, and a
competent agent planning in its own words still finishes every shipped scenario."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.model import get_model

from harness.matcher import match_subtasks
from harness.models.sim.profiles import load_profile
from harness.models.sim.wording import candidates, word_plan
from harness.run.task import build_task
from harness.suite.scenario import SCENARIO_DIR, Scenario, load_scenarios

SCENARIOS = load_scenarios(SCENARIO_DIR)


def _fixed(scenario: Scenario) -> set[str]:
    return {t.subtask for t in scenario.user_turns if t.subtask}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_without_the_rates_the_plan_is_the_titles_and_draws_nothing(scenario: Scenario) -> None:
    rng = random.Random(7)
    state = rng.getstate()
    plan = word_plan(scenario, load_profile("sloppy"), rng)
    assert plan.texts == [s.title for s in scenario.initial_subtasks()]
    assert plan.omitted == []
    assert rng.getstate() == state  # the streams of the existing profiles are untouched


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
@pytest.mark.parametrize("seed", range(3))
def test_every_own_wording_names_exactly_its_subtasks(scenario: Scenario, seed: int) -> None:
    profile = load_profile("own-words", {"paraphrase": 1.0, "merge": 0.5, "omit": 0.3})
    plan = word_plan(scenario, profile, random.Random(seed))
    assert len(set(plan.texts)) == len(plan.texts)
    for text in plan.texts:
        named = [s.id for s in match_subtasks(text, scenario.subtasks)]
        assert named == plan.covers[text], text
    covered = [i for text in plan.texts for i in plan.covers[text]]
    assert sorted(covered + plan.omitted) == sorted(s.id for s in scenario.initial_subtasks())
    fixed = _fixed(scenario)
    for subtask in scenario.initial_subtasks():
        if subtask.id in fixed:  # the user names it by its title: never reworded or left out
            assert subtask.title in plan.texts


def test_paraphrase_rewords_where_it_can() -> None:
    scenario = next(s for s in SCENARIOS if s.id == "main_and_test")
    plan = word_plan(scenario, load_profile("oracle", {"paraphrase": 1.0}), random.Random(0))
    titles = [s.title for s in scenario.initial_subtasks()]
    assert all(text not in titles for text in plan.texts)
    subtask = scenario.initial_subtasks()[0]
    assert "Produce main.py" in candidates(subtask) and "写入 main.py" in candidates(subtask)


def test_merge_writes_two_steps_as_one_item_and_omit_leaves_steps_off() -> None:
    scenario = next(s for s in SCENARIOS if s.id == "rename_chain")
    merged = word_plan(scenario, load_profile("oracle", {"merge": 1.0}), random.Random(0))
    assert all(len(merged.covers[t]) == 2 for t in merged.texts[:1])
    assert merged.texts[0] == "Rename a.txt to b.txt and rename b.txt to c.txt"
    omitted = word_plan(scenario, load_profile("oracle", {"omit": 1.0}), random.Random(0))
    assert omitted.texts == [scenario.initial_subtasks()[0].title]  # the first always stays
    assert len(omitted.omitted) == len(scenario.initial_subtasks()) - 1


@pytest.mark.slow
@pytest.mark.parametrize(
    "rates", [{"paraphrase": 1.0, "merge": 1.0}, {"paraphrase": 1.0, "omit": 0.5}]
)
def test_a_competent_agent_in_its_own_words_still_finishes_every_scenario(
    rates: dict[str, float], tmp_path: Path
) -> None:
    for variant in ("L0-rewrite", "L4-inject+gate"):
        (log,) = eval(
            build_task(variant),
            model=get_model("sim/oracle", **rates),  # type: ignore[arg-type]
            display="none",
            log_dir=str(tmp_path / variant),
        )
        assert log.status == "success" and log.samples
        for sample in log.samples:
            value = sample.scores["todo_scorer"].value  # type: ignore[index]
            assert isinstance(value, dict)
            wrong = {
                k: value[k]
                for k in (
                    "dropped_todos",
                    "mutated_text",
                    "false_todo_completions",
                    "false_completion",
                    "blocked_completions",
                    "invented_todos",
                )
                if value[k]
            }
            assert value["task_success"] == 1 and not wrong, (variant, sample.id, wrong)
