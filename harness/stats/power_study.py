"""Proof by simulation (issue #42 item 4): repeated runs drawn from a pool of independent
episodes, judged by the project's own decision code.

A pool is one large run's per-episode values: for every variant and scenario, its episodes in
epoch order (`pool_of`). The variants of one pool epoch share the run's seed and scenario, so
episode e of two variants is a pair, as in a real run. From the pool:

- `sequential_run`: one `--until-decided` run: batches of `batch` epochs per scenario, up to
  `looks` looks, each look `harness.stats.sequential.look` (the code `run --until-decided`
  calls) on the episodes drawn so far, stopping when `undecided` is 0 (the same rule);
- `aa_sequential`: A/A repetitions: a variant against itself, the two sides drawn from disjoint
  pool epochs (independent seeds); a false alarm is any comparison decided better or worse;
  `alarms_by_metric` and `alarms_by_look` tell where they came from, and `pooled_df` what the
  last look's pooled variance rests on (the evidence for the sign-flip bound: sequential.py);
- `ab_sequential`: A/B repetitions: the two variants on the same pool epochs (paired); power is
  the share decided in the direction of the pool's mean difference (the truth);
- `fixed_power`: the fixed-size plan's test (`harness.stats.power.simulated_power`: scenarios
  drawn with replacement, epochs with replacement within each, t-test on the scenario means)
  on the pool's paired differences, not shifted: the pool is the truth.

Every rate carries its Clopper-Pearson 95% interval (statsmodels). Repetitions drawn from one
finite pool overlap, so they are not fully independent: the intervals assume they are (say so
where they are shown). Deterministic for a seed.
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel
from statsmodels.stats.proportion import proportion_confint

from harness.metrics import BY_NAME
from harness.results.summary import EpisodeScores, Look, Stat, Summary, VariantSummary
from harness.stats.power import simulated_power, smallest
from harness.stats.sequential import DEFAULT_RULE, Rule, final, look, undecided

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
    (Bonferroni), each look `harness.stats.sequential.look` with `tolerance` and `rule`,
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
