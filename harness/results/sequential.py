"""The statistics of a sequential run (`todo-bench run --until-decided`): group-sequential
looks with Lan-DeMets O'Brien-Fleming-type alpha spending and repeated confidence intervals.

After each batch of epochs, each watched comparison (new - base on a metric, paired by scenario
and epoch, as `todo-bench power` pairs them) gets a repeated confidence interval: its mean
paired difference +- the look's critical value x its standard error. The critical values
spend the comparison's alpha over the planned looks with the O'Brien-Fleming-type function
(Lan and DeMets 1983; per side, as gsDesign's sfLDOF and rpact's asOF do), so the intervals of
every look hold the true difference together with probability 1 - alpha whenever the run
stops. A comparison is decided once an interval excludes 0 (better or worse) or lies within
the metric's tolerance (within tolerance); its first decision stands.

The standard error treats the suite as fixed and the epochs as the draws: the pooled
within-scenario variance of the paired differences over the pairs (stratified by scenario, so
between-scenario differences are not noise), with one discordant pseudo-pair added so that a
look where nothing varied is not certain, and the critical value is carried to a t quantile of
its degrees of freedom, which widens the early, small looks.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy import stats as sps
from scipy.optimize import brentq

from harness.metrics import BY_NAME
from harness.results.power import paired_differences, variance_components
from harness.results.summary import Look, LookDecision, Summary, Verdict

METHOD = (
    "group-sequential: Lan-DeMets O'Brien-Fleming-type alpha spending over the planned looks, "
    "repeated confidence intervals (paired differences, pooled within-scenario variance, "
    "t-adjusted), Bonferroni across comparisons"
)
#: grid points of the numerical integration between looks (odd, for Simpson's rule)
GRID = 801
#: a comparison: (base variant, new variant, metric)
Comparison = tuple[str, str, str]


def spending(fraction: float, alpha: float) -> float:
    """Two-sided alpha spent by information `fraction` (0 < t <= 1): alpha / 2 per side, each
    side O'Brien-Fleming-type, 2 - 2 Phi(z_{alpha/4} / sqrt(t))."""
    return 2 * 2 * float(sps.norm.sf(sps.norm.isf(alpha / 4) / math.sqrt(fraction)))


def _simpson(grid: np.ndarray) -> np.ndarray:
    weights = np.ones(len(grid))
    weights[1:-1:2], weights[2:-1:2] = 4, 2
    out: np.ndarray = weights * float(grid[1] - grid[0]) / 3
    return out


def _next_boundary(grid: np.ndarray, mass: np.ndarray, t: float, sd: float, target: float) -> float:
    """The |z| value at information `t` that the score, still inside at `grid` with `mass`,
    crosses with probability `target` over an increment of standard deviation `sd`."""

    def crossing(c: float) -> float:
        edge = c * math.sqrt(t)
        outside = sps.norm.cdf((-edge - grid) / sd) + sps.norm.sf((edge - grid) / sd)
        return float(mass @ outside) - target

    return float(brentq(crossing, 0.0, 50.0, xtol=1e-10))


@lru_cache(maxsize=32)
def boundaries(looks: int, alpha: float) -> tuple[float, ...]:
    """The |z| critical value of each of `looks` equally spaced looks, spending `alpha`
    (two-sided) by `spending`. The probability of crossing at each look given no earlier
    crossing is integrated numerically over the score process's independent increments (the
    recursion of Armitage, McPherson and Rowe; Jennison and Turnbull 2000, ch. 19) and each
    value solved for with scipy's brentq."""
    fractions = [k / looks for k in range(1, looks + 1)]
    out: list[float] = []
    spent, before = 0.0, 0.0
    grid, mass = np.zeros(1), np.zeros(1)  # density of the score still inside, times weights
    for t in fractions:
        target = spending(t, alpha) - spent
        if not out:
            c = float(sps.norm.isf(target / 2))
        else:
            sd = math.sqrt(t - before)
            c = _next_boundary(grid, mass, t, sd, target)
        spent += target
        edge = c * math.sqrt(t)
        inside = np.linspace(-edge, edge, GRID)
        if not out:
            density = sps.norm.pdf(inside / math.sqrt(t)) / math.sqrt(t)
        else:
            step = sps.norm.pdf((inside[:, None] - grid[None, :]) / sd) / sd
            density = step @ mass
        grid, mass, before = inside, density * _simpson(inside), t
        out.append(c)
    return tuple(out)


def decide(
    summary: Summary,
    comparison: Comparison,
    boundary: float,
    tolerance: float,
) -> LookDecision:
    """One comparison at one look: the repeated confidence interval and what it shows. A
    comparison without a paired episode is a ValueError (a look is only taken at a complete
    batch, where every variant has every episode)."""
    base, new, metric = comparison
    variants = {v.variant: v for v in summary.variants}
    if base not in variants or new not in variants:
        raise ValueError(f"{base} -> {new}: a variant has no results to look at")
    diffs, clusters = paired_differences(variants[base], variants[new], metric)
    if not diffs:
        raise ValueError(f"{base} -> {new}: no paired episodes to look at")
    n, k = len(diffs), len(set(clusters))
    effect = float(np.mean(diffs))
    _, within = variance_components(diffs, clusters)
    # zero observed variance is not zero uncertainty: one discordant pseudo-pair (+1 and -1,
    # the smallest change a rate or a count shows) in the pooled variance keeps a look where
    # nothing varied from claiming certainty; its weight fades as pairs accumulate
    df = n - k + 1
    pooled = (within * (n - k) + 2.0) / df
    stderr = math.sqrt(pooled / n)
    # the normal boundary's nominal level, kept at the look's t quantile (Jennison and
    # Turnbull's significance-level approach): the first looks have few degrees of freedom
    level = float(sps.norm.sf(boundary))
    half = float(sps.t.isf(level, df)) * stderr
    low, high = effect - half, effect + half
    verdict: Verdict = "undecided"
    if low > 0 or high < 0:
        higher_is_better = BY_NAME[metric].direction != "lower"
        verdict = "better" if (low > 0) == higher_is_better else "worse"
    elif tolerance > 0 and -tolerance <= low and high <= tolerance:
        verdict = "within tolerance"
    return LookDecision(
        base=base,
        new=new,
        metric=metric,
        pairs=n,
        effect=round(effect, 6),
        stderr=round(stderr, 6),
        ci_low=round(low, 6),
        ci_high=round(high, 6),
        verdict=verdict,
    )


def look(
    summary: Summary,
    comparisons: list[Comparison],
    number: int,
    planned: int,
    alpha_each: float,
    tolerance: dict[str, float],
    earlier: list[Look],
    cost_usd: float | None,
) -> Look:
    """Look `number` of `planned` at the run so far; a comparison decided at an earlier look
    keeps that decision."""
    boundary = boundaries(planned, alpha_each)[number - 1]
    decisions = []
    for comparison in comparisons:
        first = next(
            (d for e in earlier for d in e.decisions if _key(d) == comparison and d.decided_at),
            None,
        )
        fresh = decide(summary, comparison, boundary, tolerance.get(comparison[2], 0.0))
        if first is not None:
            fresh = fresh.model_copy(update={"verdict": first.verdict})
        decided = first.decided_at if first else number if fresh.verdict != "undecided" else None
        decisions.append(fresh.model_copy(update={"decided_at": decided}))
    return Look(
        look=number,
        epochs=summary.epochs,
        episodes=sum(v.episodes for v in summary.variants),
        cost_usd=None if cost_usd is None else round(cost_usd, 6),
        boundary=round(boundary, 6),
        alpha_spent=round(spending(number / planned, alpha_each), 9),
        decisions=decisions,
    )


def final(looks: list[Look]) -> list[LookDecision]:
    """Each comparison's first decision, or its state at the last look."""
    last = looks[-1].decisions
    return [
        next((d for e in looks for d in e.decisions if _key(d) == _key(x) and d.decided_at), x)
        for x in last
    ]


def undecided(last: Look) -> int:
    """Comparisons still undecided after a look: a sequential run stops when there are none
    (or at its last planned look, or at a budget: `harness.run.sequential`)."""
    return sum(d.decided_at is None for d in last.decisions)


def _key(decision: LookDecision) -> Comparison:
    return decision.base, decision.new, decision.metric
