"""A pool of independent episodes and the sequential runs drawn from it: the material of the
simulation study (`power_study.py`).

A pool is one large run's per-episode values: for every variant and scenario, its episodes in
epoch order (`pool_of`). The variants of one pool epoch share the run's seed and scenario, so
episode e of two variants is a pair, as in a real run. `sequential_run` (and `board_run`, for
several comparisons) is one `--until-decided` run drawn from it: batches of `batch` epochs per
scenario, up to `looks` looks, each look `harness.stats.sequential_looks.look` (the code `run
--until-decided` calls) on the episodes drawn so far, stopping when `undecided` is 0 (the same
rule). `truth` is the pool's mean paired difference; `rate` a share of repetitions with its
Clopper-Pearson 95% interval (statsmodels).
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel
from statsmodels.stats.proportion import proportion_confint

from harness.results.summary import EpisodeScores, Look, Stat, Summary, VariantSummary
from harness.stats.sequential_looks import DEFAULT_RULE, Rule, final, look, undecided

#: variant -> scenario -> the values of its episodes, in epoch order
Pool = dict[str, dict[str, list[dict[str, float]]]]


class Rate(BaseModel):
    """A share of repetitions with its Clopper-Pearson 95% interval."""

    hits: int
    reps: int
    rate: float
    ci_low: float
    ci_high: float

    @property
    def text(self) -> str:
        return f"{self.rate:.3f} [{self.ci_low:.3f}, {self.ci_high:.3f}]"


class SequentialOutcome(BaseModel):
    """One simulated sequential run: each comparison's final verdict, and what it used."""

    verdicts: list[str]
    #: the look that decided each comparison (None: undecided)
    decided_at: list[int | None]
    looks: int
    episodes: int


def rate(hits: int, reps: int) -> Rate:
    """hits / reps with its exact (Clopper-Pearson) 95% interval."""
    low, high = proportion_confint(hits, reps, alpha=0.05, method="beta")
    return Rate(
        hits=hits,
        reps=reps,
        rate=round(hits / reps, 6),
        ci_low=round(float(np.nan_to_num(low, nan=0.0)), 6),
        ci_high=round(float(np.nan_to_num(high, nan=1.0)), 6),
    )


def pool_of(summary: Summary, variants: list[str] | None = None) -> Pool:
    """The per-episode values of a run by variant and scenario, in epoch order."""
    out: Pool = {}
    for v in summary.variants:
        if variants is not None and v.variant not in variants:
            continue
        by: dict[str, list[tuple[int, dict[str, float]]]] = {}
        for e in v.per_episode:
            by.setdefault(e.scenario, []).append((e.epoch, e.values))
        out[v.variant] = {
            s: [values for _, values in sorted(rows)] for s, rows in sorted(by.items())
        }
    return out


def pool_epochs(pool: Pool) -> int:
    """The fewest episodes any variant has of any scenario."""
    return min(len(rows) for by in pool.values() for rows in by.values())


def _summary(sides: dict[str, dict[str, list[dict[str, float]]]], epochs: int) -> Summary:
    """A summary holding only what a look reads (variants, their episodes, epochs); built
    without validation: its values come from a validated summary."""
    variants = [
        VariantSummary.model_construct(
            variant=label,
            metrics={},
            pass_k=Stat(mean=0.0, stderr=0.0),
            per_100_todo_updates={},
            per_scenario_success={},
            episodes=sum(len(rows) for rows in by.values()),
            per_episode=[
                EpisodeScores.model_construct(scenario=s, epoch=i + 1, values=values)
                for s, rows in by.items()
                for i, values in enumerate(rows)
            ],
        )
        for label, by in sides.items()
    ]
    scenarios = sorted({s for by in sides.values() for s in by})
    return Summary.model_construct(
        model="pool",
        simulated=True,
        seed=None,
        epochs=epochs,
        scenarios=scenarios,
        variants=variants,
    )


def sequential_run(
    base: dict[str, list[dict[str, float]]],
    new: dict[str, list[dict[str, float]]],
    metrics: list[str],
    batch: int,
    looks: int,
    alpha: float,
    rule: Rule = DEFAULT_RULE,
) -> SequentialOutcome:
    """One sequential run of `base` against `new` (each: scenario -> its drawn episodes in the
    order they would be run, at least batch x looks each) watching `metrics`, alpha shared
    equally by the comparisons (Bonferroni, as `run --until-decided` does), deciding by
    `rule`."""
    comparisons = [("base", "new", m) for m in metrics]
    return board_run({"base": base, "new": new}, comparisons, batch, looks, alpha, {}, rule)


def board_run(
    sides: dict[str, dict[str, list[dict[str, float]]]],
    comparisons: list[tuple[str, str, str]],
    batch: int,
    looks: int,
    alpha: float,
    tolerance: dict[str, float],
    rule: Rule = DEFAULT_RULE,
) -> SequentialOutcome:
    """One sequential run of several variants (`sides`: variant -> scenario -> its drawn
    episodes in run order) watching `comparisons` (base, new, metric), alpha shared equally
    (Bonferroni), each look `harness.stats.sequential_looks.look` with `tolerance` and `rule`,
    stopping when `undecided` is 0: the run `run --until-decided` makes."""
    done: list[Look] = []
    alpha_each = alpha / len(comparisons)
    for k in range(1, looks + 1):
        n = batch * k
        drawn = {v: {s: rows[:n] for s, rows in by.items()} for v, by in sides.items()}
        summary = _summary(drawn, n)
        done.append(look(summary, comparisons, k, looks, alpha_each, tolerance, done, None, rule))
        if undecided(done[-1]) == 0:
            break
    decisions = final(done)
    return SequentialOutcome(
        verdicts=[d.verdict for d in decisions],
        decided_at=[d.decided_at for d in decisions],
        looks=done[-1].look,
        episodes=done[-1].episodes,
    )


def truth(pool: Pool, base: str, new: str, metric: str) -> float:
    """The pool's mean paired difference, new - base (every pool epoch both have)."""
    diffs = paired_groups(pool, base, new, metric)
    return float(np.mean(np.concatenate(diffs)))


def paired_groups(pool: Pool, base: str, new: str, metric: str) -> list[np.ndarray]:
    """Per scenario, new - base of every pool epoch both variants have."""
    out = []
    for s, rows in pool[base].items():
        other = pool[new][s]
        n = min(len(rows), len(other))
        out.append(
            np.asarray([other[i].get(metric, 0.0) - rows[i].get(metric, 0.0) for i in range(n)])
        )
    return out
