"""The statistics of a sequential run (`todo-bench run --until-decided`): group-sequential
looks with Lan-DeMets O'Brien-Fleming-type alpha spending and repeated confidence intervals,
each look's critical value also held to the sign-flip distribution of its statistic.

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
look where nothing varied is not certain. The critical value is the larger of two: the normal
boundary carried to the t quantile of the pooled variance's degrees of freedom, and the
sign-flip bound of the look's studentized statistic (both, and why, in `sequential_bounds.py`).
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, ConfigDict
from scipy import stats as sps

from harness.metrics import BY_NAME
from harness.results.summary import Futility, Look, LookDecision, Spending, Summary, Verdict
from harness.stats.paired import paired, variance_components
from harness.stats.sequential_bounds import (
    DEFAULT_SPENDING,
    SPENDING_NAMES,
    boundaries,
    conditional_power,
    sign_flip_bound,
    spending,
)

METHOD = (
    "group-sequential: Lan-DeMets O'Brien-Fleming-type alpha spending over the planned looks, "
    "repeated confidence intervals (paired differences, pooled within-scenario variance; "
    "critical value the larger of the t-adjusted bound and the sign-flip bound), Bonferroni "
    "across comparisons"
)


def method(kind: Spending = DEFAULT_SPENDING, futility: Futility | None = None) -> str:
    """The method line of a sequential record: METHOD for the default rule (the line every
    earlier run wrote), the spending function and the futility stop named otherwise."""
    text = METHOD.replace(SPENDING_NAMES[DEFAULT_SPENDING], SPENDING_NAMES[kind])
    if futility is not None:
        text += (
            f"; non-binding futility: a comparison stops undecided-for-good (futile) when its "
            f"conditional power at the last planned look, were the difference its MDE either "
            f"way, is below {futility.threshold:g}"
        )
    return text


#: the relative margin by which a statistic must clear its critical value to cross it
TIE = 1e-9

#: a comparison: (base variant, new variant, metric)
Comparison = tuple[str, str, str]


class Rule(BaseModel):
    """How a sequential run decides: its spending function, its futility stop (None: none)
    and whether the sign-flip bound is kept (False: the method before it, kept so that the
    power study can show what the bound changes)."""

    model_config = ConfigDict(frozen=True)

    spending: Spending = DEFAULT_SPENDING
    futility: Futility | None = None
    sign_flip: bool = True


#: the rule every run before `--spending` and `--futility` used
DEFAULT_RULE = Rule()


def _last_look(
    within: float, n: int, k: int, number: int, planned: int, alpha: float, rule: Rule
) -> tuple[float, float]:
    """The last planned look's standard error and t-adjusted critical value, its pairs
    projected from this look's (equal batches) and its within-scenario variance taken as this
    look's: the pseudo-pair weighs as it will then, not as it does now (the sign-flip bound
    of a look not yet taken is not known)."""
    pairs = round(n * planned / number)
    df = pairs - k + 1
    stderr = math.sqrt((within * (pairs - k) + 2.0) / df / pairs)
    level = float(sps.norm.sf(boundaries(planned, alpha, rule.spending)[-1]))
    return stderr, float(sps.t.isf(level, df))


def decide(
    summary: Summary,
    comparison: Comparison,
    number: int,
    planned: int,
    alpha: float,
    tolerance: float,
    rule: Rule = DEFAULT_RULE,
) -> LookDecision:
    """One comparison at look `number` of `planned` (spending `alpha` by `rule`): the repeated
    confidence interval and what it shows. A comparison without a paired episode is a
    ValueError (a look is only taken at a complete batch, where every variant has every
    episode).

    With a futility stop, a comparison the interval leaves undecided before the last look is
    futile when, were the difference its metric's MDE in either direction from here on, the
    last look would decide it with a chance below the threshold (`conditional_power`). The stop
    is non-binding: the efficacy bounds are those without it, so it can only lower the chance
    of a false decision."""
    base, new, metric = comparison
    variants = {v.variant: v for v in summary.variants}
    if base not in variants or new not in variants:
        raise ValueError(f"{base} -> {new}: a variant has no results to look at")
    pairs = paired(variants[base], variants[new], metric)
    if not pairs:
        raise ValueError(f"{base} -> {new}: no paired episodes to look at")
    diffs = [d for _, _, d in pairs]
    n, k = len(diffs), len({s for s, _, _ in pairs})
    effect = float(np.mean(diffs))
    _, within = variance_components(diffs, [s for s, _, _ in pairs])
    # zero observed variance is not zero uncertainty: one discordant pseudo-pair (+1 and -1,
    # the smallest change a rate or a count shows) in the pooled variance keeps a look where
    # nothing varied from claiming certainty; its weight fades as pairs accumulate
    df = n - k + 1
    pooled = (within * (n - k) + 2.0) / df
    stderr = math.sqrt(pooled / n)
    # the normal boundary's nominal level, kept at the look's t quantile (Jennison and
    # Turnbull's significance-level approach), and the sign-flip bound: the larger of the two
    level = float(sps.norm.sf(boundaries(planned, alpha, rule.spending)[number - 1]))
    critical = float(sps.t.isf(level, df))
    if rule.sign_flip:
        critical = max(critical, sign_flip_bound(pairs, number, planned, alpha, rule.spending))
    half = critical * stderr
    low, high = effect - half, effect + half
    verdict: Verdict = "undecided"
    power: float | None = None
    # the interval excludes 0 when the statistic crosses the critical value; one equal to it
    # does not cross (the sign-flip bound is the statistic of the most extreme sign vectors
    # allowed, the observed among them when every pair differs the same way), and the two are
    # computed apart, so a crossing must clear the bound by more than rounding
    if abs(effect) > half * (1 + TIE):
        higher_is_better = BY_NAME[metric].direction != "lower"
        verdict = "better" if (effect > 0) == higher_is_better else "worse"
    elif tolerance > 0 and -tolerance <= low and high <= tolerance:
        verdict = "within tolerance"
    elif rule.futility is not None and number < planned and metric in rule.futility.mde and n > k:
        # n > k: a look with one pair per scenario has no within-scenario variance to project
        last_stderr, last = _last_look(within, n, k, number, planned, alpha, rule)
        mde = rule.futility.mde[metric]
        fraction = number / planned
        power = max(
            conditional_power(effect, last_stderr, last, fraction, truth) for truth in (mde, -mde)
        )
        if power < rule.futility.threshold:
            verdict = "futile"
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
        conditional_power=None if power is None else round(power, 6),
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
    rule: Rule = DEFAULT_RULE,
) -> Look:
    """Look `number` of `planned` at the run so far, deciding by `rule`; a comparison decided
    at an earlier look keeps that decision."""
    boundary = boundaries(planned, alpha_each, rule.spending)[number - 1]
    decisions = []
    for comparison in comparisons:
        first = next(
            (d for e in earlier for d in e.decisions if _key(d) == comparison and d.decided_at),
            None,
        )
        fresh = decide(
            summary,
            comparison,
            number,
            planned,
            alpha_each,
            tolerance.get(comparison[2], 0.0),
            rule,
        )
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
        alpha_spent=round(spending(number / planned, alpha_each, rule.spending), 9),
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
