"""A log's sample read as data: the store models the solver left in it, and the shipped
scenario it ran."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.util import StoreModel

from harness.suite.scenario import Scenario, ScenarioError, load_scenarios, select


def stored(sample: EvalSample, model: type[StoreModel]) -> dict[str, Any]:
    """A store model's fields in a log's sample, as plain data: a StoreModel built from a dict
    would write into inspect's current store."""
    prefix = f"{model.__name__}:"
    return {k.removeprefix(prefix): v for k, v in sample.store.items() if k.startswith(prefix)}


@functools.cache
def _shipped() -> tuple[Scenario, ...]:
    """The shipped suite, read once per process (a log has a sample per episode)."""
    return tuple(load_scenarios())


def the_scenario(sample: EvalSample) -> Scenario | str:
    """The shipped scenario a log's sample ran, capped at the sample's turns; or why not."""
    try:
        (scenario,) = select(list(_shipped()), [str(sample.id)])
    except ScenarioError as error:
        return str(error)
    turns = int(((sample.metadata or {}).get("scenario") or {}).get("max_turns") or 0)
    scenario = scenario.model_copy(update={"max_turns": min(turns, scenario.max_turns)})
    if not same_scenario(sample, scenario):
        return "scenario: the log's scenario is not this one's"
    return scenario


def same_scenario(sample: EvalSample, scenario: Scenario) -> bool:
    """The scenario a log's sample holds (its JSON, defaults left out) is this one."""
    try:
        return Scenario.model_validate((sample.metadata or {}).get("scenario")) == scenario
    except ValueError:
        return False


def scenario_episodes(
    log: EvalLog, where: str, problems: list[str]
) -> Iterator[tuple[EvalSample, str, Scenario]]:
    """Each sample of the log with its episode's name (led by `where`) and the shipped scenario
    it ran; a sample whose scenario is not that is one line in `problems` instead."""
    for sample in log.samples or []:
        episode = f"{where} {sample.id} epoch {sample.epoch}"
        scenario = the_scenario(sample)
        if isinstance(scenario, str):
            problems.append(f"rederive: {episode}: {scenario}")
            continue
        yield sample, episode, scenario
