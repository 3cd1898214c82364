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
look where nothing varied is not certain. The critical value is the larger of two:

- the normal boundary carried to the t quantile of the pooled variance's degrees of freedom
  (n pairs - k scenarios + 1), which widens the early, small looks;
- the sign-flip bound (`sign_flip_bound`): the same studentized statistic under RESAMPLES
  random sign flips of the pairs (and the observed signs), each look's bound set so that the
  sign vectors whose path of looks first crosses by look j are at most alpha(j / K) of them.
  Under no difference (the two sides of a pair exchangeable, as in an A/A run) the observed
  signs are one more such vector, so the chance of any false decision is at most alpha,
  whatever the metric's distribution (for any number of vectors: fewer only make it
  coarser). Flipping pairs, not scenarios, answers the same fixed-suite question.

Why the second: the t quantile assumes the pooled variance has n - k + 1 degrees of freedom,
which holds when every scenario varies alike. A rare, clustered count does not: at the field
profile's rates L0-rewrite's dropped items come mostly from `compaction` and `long_list`, the
pooled variance is mostly one scenario's (Satterthwaite's count of its degrees of freedom is
a fraction of the n - k + 1 the t quantile was given), and the A/A false-alarm rate of the
gate with the t quantile alone was above alpha, the excess on dropped items and at the last
looks, not the first (results/power/study.md: the `t quantile alone` rows and the degrees of
freedom table; the boundaries themselves match the published values,
tests/stats/test_sequential.py). Where the t quantile is honest (a rate spread over the
scenarios) the two bounds are close and the decisions mostly as before; where it is not, the
sign-flip bound is the larger and keeps the alpha, at the power the data can give (a
difference carried by one pair can never be told from its flip). A randomization test rather
than a corrected degrees of freedom (Satterthwaite), because the counts' heavy tails break
the chi-square behind any such correction; rather than anytime-valid confidence sequences
(the `confseq` package), because those need bounded observations (a count is not) and pay
for looking after every episode. No maintained library computes a group-sequential
permutation bound, so it is here, in numpy, and tested against the alpha it must keep.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import get_args

import numpy as np
from pydantic import BaseModel, ConfigDict
from scipy import stats as sps
from scipy.optimize import brentq

from harness.metrics import BY_NAME
from harness.results.summary import Futility, Look, LookDecision, Spending, Summary, Verdict
from harness.stats.power import paired, variance_components

#: the spending functions `--spending` offers, by name: what the method line calls each
SPENDING_NAMES: dict[Spending, str] = {
    "obrien-fleming": "O'Brien-Fleming-type",
    "pocock": "Pocock-type",
}
assert set(SPENDING_NAMES) == set(get_args(Spending))
DEFAULT_SPENDING: Spending = "obrien-fleming"
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


#: grid points of the numerical integration between looks (odd, for Simpson's rule)
GRID = 801
#: sign vectors drawn per look besides the observed one (10,000 in all, as `compare`'s
#: permutation test), and the seed of their generator
RESAMPLES = 9_999
SEED = 0
#: a comparison: (base variant, new variant, metric)
Comparison = tuple[str, str, str]


def spending(fraction: float, alpha: float, kind: Spending = DEFAULT_SPENDING) -> float:
    """Two-sided alpha spent by information `fraction` (0 < t <= 1), alpha / 2 per side.
    O'Brien-Fleming-type (Lan and DeMets 1983): each side 2 - 2 Phi(z_{alpha/4} / sqrt(t)),
    almost nothing early; Pocock-type (Lan and DeMets 1983; gsDesign's sfLDPocock): alpha
    ln(1 + (e - 1) t), spent nearly evenly, so a large difference stops a run sooner at the
    price of a higher last bound (more looks are planned for the same power)."""
    if kind == "pocock":
        return alpha * math.log(1 + (math.e - 1) * fraction)
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
def boundaries(looks: int, alpha: float, kind: Spending = DEFAULT_SPENDING) -> tuple[float, ...]:
    """The |z| critical value of each of `looks` equally spaced looks, spending `alpha`
    (two-sided) by `spending` of `kind`. The probability of crossing at each look given no earlier
    crossing is integrated numerically over the score process's independent increments (the
    recursion of Armitage, McPherson and Rowe; Jennison and Turnbull 2000, ch. 19) and each
    value solved for with scipy's brentq."""
    fractions = [k / looks for k in range(1, looks + 1)]
    out: list[float] = []
    spent, before = 0.0, 0.0
    grid, mass = np.zeros(1), np.zeros(1)  # density of the score still inside, times weights
    for t in fractions:
        target = spending(t, alpha, kind) - spent
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


@lru_cache(maxsize=64)
def _signs(epoch: int, rows: int, scenarios: int) -> np.ndarray:
    """The signs of epoch `epoch`'s pairs in `rows` sign vectors: row 0 the observed (+1), the
    rest drawn from a generator seeded by (SEED, epoch), so they are the same at every look."""
    drawn = np.random.default_rng([SEED, epoch]).integers(0, 2, (rows, scenarios))
    out: np.ndarray = (2 * drawn - 1).astype(np.int8)  # kept small in the cache
    out[0] = 1
    out.flags.writeable = False
    return out


def _path(pairs: list[tuple[str, int, float]], looks: int, signs: int) -> np.ndarray:
    """The studentized statistic of looks 1..`looks` (columns) under `signs` sign vectors
    (rows; row 0 the observed signs, the rest drawn).

    The statistic is the one the interval uses: the mean paired difference over its standard
    error (pooled within-scenario variance with the pseudo-pair). Look j sees the epochs of
    the first j of `looks` equal batches. A pair's sign depends on its epoch alone (`_signs`),
    so the sign vectors of an earlier look are the same at every later one: the earlier looks'
    crossings are recomputed identically."""
    scenarios = sorted({s for s, _, _ in pairs})
    column = {s: i for i, s in enumerate(scenarios)}
    epochs = sorted({e for _, e, _ in pairs})
    values = np.zeros((len(epochs), len(scenarios)))
    seen = np.zeros((len(epochs), len(scenarios)), dtype=bool)
    row = {e: i for i, e in enumerate(epochs)}
    for s, e, d in pairs:
        values[row[e], column[s]] = d
        seen[row[e], column[s]] = True
    cuts = [len(part) for part in np.array_split(np.arange(len(epochs)), looks)]
    total = np.zeros((signs, len(scenarios)))  # per scenario, the signed sum so far
    squares = np.zeros(len(scenarios))  # per scenario, the same under every sign
    count = np.zeros(len(scenarios))  # per scenario, its pairs so far
    out = np.zeros((signs, looks))
    e = 0
    for j, size in enumerate(cuts):
        for _ in range(size):
            total += _signs(epochs[e], signs, len(scenarios)) * values[e]
            squares += values[e] ** 2
            count += seen[e]
            e += 1
        n, k = int(count.sum()), int((count > 0).sum())
        ssw = (squares - np.divide(total**2, count, out=np.zeros_like(total), where=count > 0)).sum(
            axis=1
        )
        stderr = np.sqrt((np.maximum(ssw, 0.0) + 2.0) / (n - k + 1) / n)
        out[:, j] = total.sum(axis=1) / n / stderr
    return out


def sign_flip_bound(
    pairs: list[tuple[str, int, float]],
    number: int,
    planned: int,
    alpha: float,
    kind: Spending = DEFAULT_SPENDING,
) -> float:
    """The critical value of look `number` of `planned` for the studentized statistic, from its
    sign-flip distribution: with the observed signs and RESAMPLES drawn sign vectors, the
    vectors whose path first crosses by look j are at most floor(alpha(j / planned) x their
    number) for every j <= number, each look's bound the smallest that keeps this. Exact under
    the null that each pair's difference is symmetric about 0 (the two sides exchangeable, as
    in an A/A run): the observed signs are one of the vectors, exchangeable with the rest."""
    path = np.abs(_path(pairs, number, RESAMPLES + 1))
    alive = np.ones(len(path), dtype=bool)
    crossed = 0
    bound = 0.0
    for j in range(number):
        spent = spending((j + 1) / planned, alpha, kind)
        allowed = math.floor(spent * len(path) + 1e-9) - crossed
        left = np.sort(path[alive, j])[::-1]
        bound = float(left[allowed]) if allowed < len(left) else 0.0
        hit = alive & (path[:, j] > bound)
        alive &= ~hit
        crossed += int(hit.sum())
    return bound


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


def conditional_power(
    effect: float, last_stderr: float, critical: float, fraction: float, truth: float
) -> float:
    """The chance that the last look's statistic crosses +-`critical`, given the mean paired
    difference `effect` now, at information `fraction` of the last look's, were the rest of
    the run's differences of mean `truth` (Lan and Wittes 1988, the B-value: the last
    statistic is normal with mean (t effect + (1 - t) truth) / se_K and variance 1 - t, where
    se_K, `last_stderr`, is the last look's standard error)."""
    mean = (fraction * effect + (1 - fraction) * truth) / last_stderr
    spread = math.sqrt(1 - fraction)
    return float(
        sps.norm.sf((critical - mean) / spread) + sps.norm.cdf((-critical - mean) / spread)
    )


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
    if low > 0 or high < 0:
        higher_is_better = BY_NAME[metric].direction != "lower"
        verdict = "better" if (low > 0) == higher_is_better else "worse"
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
