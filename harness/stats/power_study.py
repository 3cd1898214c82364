"""Proof by simulation (issue #42 item 4): repeated runs drawn from a pool of independent
episodes (`study_pool.py`), judged by the project's own decision code:

- `aa_sequential`: A/A repetitions: a variant against itself, the two sides drawn from disjoint
  pool epochs (independent seeds); a false alarm is any comparison decided better or worse;
  `alarms_by_metric` and `alarms_by_look` tell where they came from, and `pooled_df` what the
  last look's pooled variance rests on (the evidence for the sign-flip bound:
  sequential_bounds.py);
- `ab_sequential`: A/B repetitions: the two variants on the same pool epochs (paired); power is
  the share decided in the direction of the pool's mean difference (the truth);
- `board_sequential`: repetitions of a whole board, several comparisons watched at once, each
  judged against the pool's truth;

and the fixed-size run against the sequential one at equal power (`equal_power.py`).

Every rate carries its Clopper-Pearson 95% interval (statsmodels). Repetitions drawn from one
finite pool overlap, so they are not fully independent: the intervals assume they are (say so
where they are shown). Deterministic for a seed.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel

from harness.metrics import BY_NAME
from harness.stats.sequential_looks import DEFAULT_RULE, Rule
from harness.stats.study_pool import (
    Pool,
    Rate,
    SequentialOutcome,
    board_run,
    pool_epochs,
    rate,
    sequential_run,
    truth,
)


def _orders(pool: Pool, variant: str, reps: int, seed: int) -> list[dict[str, np.ndarray]]:
    """Per repetition, a random order of every scenario's pool epochs (deterministic)."""
    rng = np.random.default_rng(seed)
    scenarios = pool[variant]
    return [{s: rng.permutation(len(rows)) for s, rows in scenarios.items()} for _ in range(reps)]


def aa_sequential(
    pool: Pool,
    variant: str,
    metrics: list[str],
    reps: int,
    batch: int,
    looks: int,
    alpha: float,
    seed: int,
    rule: Rule = DEFAULT_RULE,
) -> tuple[Rate, list[SequentialOutcome]]:
    """A/A: `variant` against itself, each side batch x looks epochs per scenario drawn from
    disjoint pool epochs; the rate of runs with any comparison decided better or worse (the
    same draws for every `rule`)."""
    need = batch * looks
    if pool_epochs({variant: pool[variant]}) < 2 * need:
        raise ValueError(f"A/A needs {2 * need} pool epochs per scenario ({batch} x {looks} x 2)")
    outcomes = []
    for order in _orders(pool, variant, reps, seed):
        rows = pool[variant]
        a = {s: [rows[s][i] for i in order[s][:need]] for s in rows}
        b = {s: [rows[s][i] for i in order[s][need : 2 * need]] for s in rows}
        outcomes.append(sequential_run(a, b, metrics, batch, looks, alpha, rule))
    alarms = sum(any(alarm(v) for v in o.verdicts) for o in outcomes)
    return rate(alarms, reps), outcomes


class PooledDf(BaseModel):
    """What the last look's pooled within-scenario variance of one metric's A/A differences
    rests on, over the repetitions: the degrees of freedom its t quantile is given (n - k + 1),
    Satterthwaite's count of them (per scenario variances s_i^2 on m_i - 1 each:
    (sum s_i^2 (m_i - 1))^2 / sum s_i^4 (m_i - 1)), and the largest scenario's share of it;
    medians over the repetitions where anything varied."""

    variant: str
    metric: str
    df_given: int
    df_satterthwaite: float | None
    top_scenario_share: float | None


def pooled_df(pool: Pool, variant: str, metric: str, reps: int, epochs: int, seed: int) -> PooledDf:
    """`PooledDf` of `metric` at the last look of `aa_sequential`'s runs (the same draws for
    the same seed: `epochs` per side and scenario)."""
    rows = pool[variant]
    dfs, shares = [], []
    n = k = 0
    for order in _orders(pool, variant, reps, seed):
        ssw = []
        for s, r in rows.items():
            a = np.asarray([r[i].get(metric, 0.0) for i in order[s][:epochs]])
            b = np.asarray([r[i].get(metric, 0.0) for i in order[s][epochs : 2 * epochs]])
            ssw.append(float(((b - a - (b - a).mean()) ** 2).sum()))
        n, k = epochs * len(rows), len(rows)
        if sum(ssw) > 0:
            per = np.asarray(ssw) / (epochs - 1)  # s_i^2
            dfs.append(float((per * (epochs - 1)).sum() ** 2 / (per**2 * (epochs - 1)).sum()))
            shares.append(float(max(ssw) / sum(ssw)))
    return PooledDf(
        variant=variant,
        metric=metric,
        df_given=n - k + 1,
        df_satterthwaite=round(float(np.median(dfs)), 3) if dfs else None,
        top_scenario_share=round(float(np.median(shares)), 3) if shares else None,
    )


def alarm(verdict: str) -> bool:
    """An A/A comparison decided a difference."""
    return verdict in ("better", "worse")


def alarms_by_metric(outcomes: list[SequentialOutcome], metrics: list[str]) -> dict[str, Rate]:
    """Per watched metric, the share of A/A runs in which it raised a false alarm."""
    return {
        m: rate(sum(alarm(o.verdicts[i]) for o in outcomes), len(outcomes))
        for i, m in enumerate(metrics)
    }


def alarms_by_look(outcomes: list[SequentialOutcome], looks: int) -> list[int]:
    """Per look, the A/A runs whose first false alarm was raised there."""
    out = [0] * looks
    for o in outcomes:
        first = [at for v, at in zip(o.verdicts, o.decided_at, strict=True) if alarm(v) and at]
        if first:
            out[min(first) - 1] += 1
    return out


def right_way(metric: str, effect: float) -> str:
    """The verdict a comparison with a true mean difference `effect` should reach."""
    higher_is_better = BY_NAME[metric].direction != "lower"
    return "better" if (effect > 0) == higher_is_better else "worse"


def ab_sequential(
    pool: Pool,
    base: str,
    new: str,
    metric: str,
    reps: int,
    batch: int,
    looks: int,
    alpha: float,
    seed: int,
    rule: Rule = DEFAULT_RULE,
) -> tuple[Rate, float, Rate]:
    """A/B: `base` against `new` on the same pool epochs, one comparison watched at `alpha`,
    decided by `rule`: (power: the share decided the right way, mean episodes used, the share
    decided the wrong way)."""
    need = batch * looks
    if pool_epochs({base: pool[base], new: pool[new]}) < need:
        raise ValueError(f"A/B needs {need} pool epochs per scenario ({batch} x {looks})")
    effect = truth(pool, base, new, metric)
    want = right_way(metric, effect)
    outcomes = []
    for order in _orders(pool, base, reps, seed):
        a = {s: [rows[i] for i in order[s][:need]] for s, rows in pool[base].items()}
        b = {s: [rows[i] for i in order[s][:need]] for s, rows in pool[new].items()}
        outcomes.append(sequential_run(a, b, [metric], batch, looks, alpha, rule))
    right = sum(o.verdicts[0] == want for o in outcomes)
    wrong = sum(o.verdicts[0] in ("better", "worse") and o.verdicts[0] != want for o in outcomes)
    mean_episodes = float(np.mean([o.episodes for o in outcomes]))
    return rate(right, reps), mean_episodes, rate(wrong, reps)


class BoardOutcome(BaseModel):
    """Repeated sequential runs of a whole board (several comparisons watched at once): per
    comparison the share decided the right way (a true difference: its direction; none: not
    decided better or worse) and the share decided the wrong way (a difference that is not
    there, or the opposite direction), the share of runs that stopped before their budget and
    the mean episodes."""

    right: list[Rate]
    wrong: list[Rate]
    stopped_early: Rate
    mean_episodes: float


def board_sequential(
    pool: Pool,
    comparisons: list[tuple[str, str, str]],
    reps: int,
    looks: int,
    alpha: float,
    seed: int,
    tolerance: dict[str, float],
    rule: Rule = DEFAULT_RULE,
) -> BoardOutcome:
    """`reps` sequential runs of one-epoch batches of every variant the comparisons name, on
    the same pool epochs (paired), against the pool's truth."""
    variants = sorted({v for b, n, _ in comparisons for v in (b, n)})
    effects = [truth(pool, b, n, m) for b, n, m in comparisons]
    outcomes = []
    for order in _orders(pool, variants[0], reps, seed):
        sides = {
            v: {s: [rows[i] for i in order[s][:looks]] for s, rows in pool[v].items()}
            for v in variants
        }
        outcomes.append(board_run(sides, comparisons, 1, looks, alpha, tolerance, rule))

    def right(effect: float, metric: str, verdict: str) -> bool:
        return not alarm(verdict) if effect == 0 else verdict == right_way(metric, effect)

    def wrong(effect: float, metric: str, verdict: str) -> bool:
        return alarm(verdict) and (effect == 0 or verdict != right_way(metric, effect))

    per = list(zip(effects, [m for _, _, m in comparisons], strict=True))
    return BoardOutcome(
        right=[
            rate(sum(right(e, m, o.verdicts[i]) for o in outcomes), reps)
            for i, (e, m) in enumerate(per)
        ],
        wrong=[
            rate(sum(wrong(e, m, o.verdicts[i]) for o in outcomes), reps)
            for i, (e, m) in enumerate(per)
        ],
        stopped_early=rate(sum(o.looks < looks for o in outcomes), reps),
        mean_episodes=float(np.mean([o.episodes for o in outcomes])),
    )
