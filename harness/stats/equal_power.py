"""The fixed-size run and the sequential run at equal power, both drawn from a pool
(`study_pool.py`): the planner's test on the pool's paired differences (`fixed_power`: the
fixed-size plan's test, `harness.stats.sample_size.simulated_power`: scenarios drawn with
replacement, epochs with replacement within each, t-test on the scenario means, not shifted:
the pool is the truth), the fewest epochs of a fixed run whose one look decides the comparison
the right way at a power (`fixed_on_suite`), and the fewest one-epoch looks of a sequential run
that do (`sequential_on_suite`), so what each spends can be set side by side (A/B repetitions
of `power_study.ab_sequential`)."""

from __future__ import annotations

import math

from pydantic import BaseModel

from harness.stats.power_study import ab_sequential
from harness.stats.sample_size import simulated_power, smallest
from harness.stats.sequential_looks import DEFAULT_RULE, Rule
from harness.stats.study_pool import Pool, Rate, paired_groups, rate


def fixed_power(
    pool: Pool,
    base: str,
    new: str,
    metric: str,
    scenarios: int,
    epochs: int,
    alpha: float,
    reps: int,
    seed: int,
) -> Rate:
    """The share of fixed runs of `scenarios` x `epochs` drawn from the pool whose t-test on
    the scenario means of the paired differences rejects at `alpha` (the planner's test)."""
    groups = paired_groups(pool, base, new, metric)
    share = simulated_power(groups, 0.0, scenarios, epochs, alpha, reps, seed)
    return rate(int(math.floor(share * reps + 0.5)), reps)


def fixed_on_suite(
    pool: Pool,
    base: str,
    new: str,
    metric: str,
    power: float,
    alpha: float,
    reps: int,
    most: int,
    seed: int,
) -> tuple[int | None, Rate | None]:
    """The fixed-size run that answers a sequential run's question (are the two designs
    different on these scenarios?): the fewest epochs of the pool's scenarios (1 to `most`)
    whose one look, the gate's own test at `alpha`, decides the comparison the right way in at
    least `power` of `reps` A/B draws; with that power. (None, None) when `most` do not. The
    same draws at every size (nested epochs), so the search sees one power curve."""
    found: dict[int, Rate] = {}

    def reaches(epochs: int) -> bool:
        found[epochs] = ab_sequential(pool, base, new, metric, reps, epochs, 1, alpha, seed)[0]
        return found[epochs].rate >= power

    epochs = smallest(reaches, 1, most)
    return epochs, None if epochs is None else found[epochs]


class SequentialDesign(BaseModel):
    """The smallest sequential run of one-epoch batches that reaches a power: its planned
    looks, its power, how often it decided the wrong way and its mean episodes."""

    looks: int
    power: Rate
    wrong_way: Rate
    mean_episodes: float


def sequential_on_suite(
    pool: Pool,
    base: str,
    new: str,
    metric: str,
    power: float,
    alpha: float,
    reps: int,
    most: int,
    seed: int,
    rule: Rule = DEFAULT_RULE,
) -> SequentialDesign | None:
    """The fewest planned looks of one epoch each (2 to `most`) whose sequential run, decided
    by `rule`, decides the comparison the right way in at least `power` of `reps` A/B draws
    (the same draws at every size, as `fixed_on_suite`); None when `most` do not."""
    found: dict[int, SequentialDesign] = {}

    def reaches(looks: int) -> bool:
        right, mean, wrong = ab_sequential(
            pool, base, new, metric, reps, 1, looks, alpha, seed, rule
        )
        found[looks] = SequentialDesign(
            looks=looks, power=right, wrong_way=wrong, mean_episodes=mean
        )
        return right.rate >= power

    looks = smallest(reaches, 2, most)
    return None if looks is None else found[looks]
