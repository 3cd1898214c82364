"""`todo-bench power`: how many scenarios x epochs a run needs to detect a stated effect.

From a pilot run's per-episode values (kept in summary.json), for a pair of variants and a
metric: the paired differences (new - base, paired by scenario and epoch), their mean with the
project's clustered interval (`harness.stats.intervals.clustered`: percentile bootstrap over
scenarios), their variance split into a between-scenario and a within-scenario part (one-way
random-effects ANOVA, method of moments), and the planned size of a run that detects a minimum
effect (`mde`) at `alpha` with `power`:

- closed form: statsmodels' one-sample t-test power on the paired differences (effect size
  mde / total standard deviation) gives the independent episodes needed; the design effect
  1 + (m - 1) * ICC of m epochs per scenario turns them into clustered episodes;
- simulation: resample the pilot (scenarios with replacement, then epochs within each, the
  two stages adjusted so that neither variance is counted twice: `adjusted_groups`), shift
  the differences so that their mean is the mde, test each simulated run with a t-test on the
  scenario means (the clustering kept), and find the fewest scenarios whose share of
  rejections reaches the power. Used where a closed form does not fit (counts, whose
  differences are skewed), or when asked; deterministic for a seed.

Pure functions over a `Summary`; the CLI renders them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

import numpy as np
from pydantic import BaseModel
from scipy import stats as sps
from statsmodels.stats.power import TTestPower
from tabulate import tabulate

from harness.errors import UsageError
from harness.metrics import BY_NAME
from harness.results.summary import Price, Stat, Summary, VariantSummary
from harness.stats.intervals import clustered

Method = Literal["auto", "closed form", "simulation"]
#: simulated runs per candidate size, and the largest number of scenarios searched
SIMULATIONS = 1000
MAX_SCENARIOS = 5000
MAX_EPOCHS = 1000


class Plan(BaseModel):
    """One row: a pair of variants, a metric, what the pilot shows and the run it asks for."""

    base: str
    new: str
    metric: str
    pairs: int
    pilot_scenarios: int
    effect: float  # mean of new - base over the paired episodes
    ci_low: float | None
    ci_high: float | None
    var_between: float  # between-scenario variance of the paired differences
    var_within: float  # within-scenario variance of the paired differences
    icc: float
    mde: float
    alpha: float
    power: float
    epochs: int  # m, epochs per scenario in the planned run
    design_effect: float
    method: str  # "closed form" | "simulation" | "" when not plannable
    scenarios: int | None = None  # planned scenarios (each run for `epochs` epochs)
    #: or: epochs per scenario on the pilot's own scenarios (None: not reachable that way)
    epochs_on_pilot_scenarios: int | None = None
    episodes: int | None = None  # planned episodes of the pair (both variants)
    tokens: float | None = None  # input + output tokens of those episodes at the pilot's rate
    cost_usd: float | None = None  # their price at the pilot's cost per episode, if known
    note: str = ""
    #: planned from the observed effect: the scenarios (at `epochs`) were the true effect at
    #: the end of its 95% interval far from 0 (fewest) and at the end near 0 (most; None when
    #: the interval reaches 0, or past MAX_SCENARIOS): the pilot's own uncertainty in the plan
    range_fewest: int | None = None
    range_most: int | None = None


def paired(base: VariantSummary, new: VariantSummary, metric: str) -> list[tuple[str, int, float]]:
    """(scenario, epoch, new - base) for every episode both variants have, sorted by scenario
    and epoch."""
    a = {(e.scenario, e.epoch): e.values for e in base.per_episode}
    b = {(e.scenario, e.epoch): e.values for e in new.per_episode}
    return [
        (s, e, b[s, e].get(metric, 0.0) - a[s, e].get(metric, 0.0))
        for s, e in sorted(a.keys() & b.keys())
    ]


def paired_differences(
    base: VariantSummary, new: VariantSummary, metric: str
) -> tuple[list[float], list[str]]:
    """new - base for every episode both variants have (same scenario and epoch), with the
    scenario of each, in a stable order."""
    pairs = paired(base, new, metric)
    return [d for _, _, d in pairs], [s for s, _, _ in pairs]


def variance_components(values: list[float], clusters: list[str]) -> tuple[float, float]:
    """(between, within): one-way random-effects ANOVA estimates (method of moments; the
    between part floored at 0) of the variance of `values` grouped by `clusters`."""
    groups: dict[str, list[float]] = {}
    for v, c in zip(values, clusters, strict=True):
        groups.setdefault(c, []).append(v)
    n, k = len(values), len(groups)
    if n < 2 or k < 1:
        return 0.0, 0.0
    grand = float(np.mean(values))
    ssb = sum(len(g) * (float(np.mean(g)) - grand) ** 2 for g in groups.values())
    ssw = sum(float(((np.asarray(g) - np.mean(g)) ** 2).sum()) for g in groups.values())
    within = ssw / (n - k) if n > k else 0.0
    if k < 2:
        return 0.0, within
    msb = ssb / (k - 1)
    m0 = (n - sum(len(g) ** 2 for g in groups.values()) / n) / (k - 1)
    between = max(0.0, (msb - within) / m0) if m0 > 0 else 0.0
    return between, within


def closed_form_scenarios(
    mde: float, sd: float, icc: float, epochs: int, alpha: float, power: float
) -> tuple[int, float]:
    """(scenarios, design effect): statsmodels' paired (one-sample) t-test sample size for
    effect size mde / sd, inflated by the design effect 1 + (epochs - 1) * icc and divided into
    scenarios of `epochs` episodes."""
    n_independent = float(
        TTestPower().solve_power(
            effect_size=abs(mde) / sd, alpha=alpha, power=power, alternative="two-sided"
        )
    )
    design = 1.0 + (epochs - 1) * icc
    return max(2, math.ceil(n_independent * design / epochs)), design


def simulated_power(
    groups: list[np.ndarray],
    shift: float,
    scenarios: int,
    epochs: int,
    alpha: float,
    simulations: int,
    seed: int,
    constant_is_evidence: bool = True,
) -> float:
    """Share of simulated runs (scenarios drawn with replacement from `groups`, `epochs` epochs
    drawn with replacement within each, every value plus `shift`) whose t-test on the scenario
    means rejects a zero mean at `alpha`. A run whose scenario means are all the same nonzero
    value has no t statistic: drawn from observed episodes it is as clear as data gets (every
    pair one way) and rejects; drawn from a planner's adjusted pilot
    (`constant_is_evidence=False`) it is an artifact of the adjustment and does not."""
    rng = np.random.default_rng([seed, scenarios, epochs])
    sizes = np.asarray([len(g) for g in groups])
    padded = np.zeros((len(groups), int(sizes.max())))
    for i, g in enumerate(groups):
        padded[i, : len(g)] = g
    rejected = 0
    chunk = max(1, 2_000_000 // (scenarios * epochs))
    for start in range(0, simulations, chunk):
        s = min(chunk, simulations - start)
        pick = rng.integers(0, len(groups), size=(s, scenarios))
        within = (rng.random((s, scenarios, epochs)) * sizes[pick][..., None]).astype(int)
        means = padded[pick[..., None], within].mean(axis=2) + shift
        sd = means.std(axis=1, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = means.mean(axis=1) / (sd / math.sqrt(scenarios))
        p = 2 * sps.t.sf(np.abs(np.nan_to_num(t, nan=0.0, posinf=1e9, neginf=-1e9)), scenarios - 1)
        if not constant_is_evidence:
            # an adjusted pilot turns a scenario it saw no variation in into a constant at the
            # shifted grand mean; counted as certain, one discordant pair in 36 planned a run
            # of 2 scenarios
            p[sd <= 1e-12] = 1.0
        rejected += int((p < alpha).sum())
    return rejected / simulations


def adjusted_groups(values: list[float], clusters: list[str]) -> list[np.ndarray]:
    """The pilot's values by scenario, adjusted for a two-stage resampling (Davison and
    Hinkley's adjusted strategy): each scenario's mean is shrunk toward the grand mean so that
    the means vary by the between-scenario variance alone, and its residuals are scaled by
    sqrt(n / (n - 1)) so that drawing them with replacement has the within-scenario variance.
    Without it a resampled scenario mean counts the within-scenario noise twice (once in the
    pilot's scenario means, once in the epochs drawn), and the plan comes out too large."""
    by: dict[str, list[float]] = {}
    for v, c in zip(values, clusters, strict=True):
        by.setdefault(c, []).append(v)
    raw = [np.asarray(g, dtype=float) for g in by.values()]
    grand = float(np.mean(values))
    means = np.asarray([g.mean() for g in raw])
    between, _ = variance_components(values, clusters)
    spread = float(means.var(ddof=1)) if len(means) > 1 else 0.0
    shrink = math.sqrt(between / spread) if spread > 0 else 0.0
    out = []
    for g, mean in zip(raw, means, strict=True):
        scale = math.sqrt(len(g) / (len(g) - 1)) if len(g) > 1 else 0.0
        out.append(grand + shrink * (mean - grand) + (g - mean) * scale)
    return out


def smallest(reaches: Callable[[int], bool], first: int, limit: int) -> int | None:
    """The smallest size from `first` to `limit` that `reaches` (assumed monotone: doubling,
    then bisection), or None when `limit` does not."""
    if reaches(first):
        return first
    low, high = first, first * 2
    while high < limit and not reaches(high):
        low, high = high, high * 2
    if high >= limit:
        if not reaches(limit):
            return None
        high = limit
    while high - low > 1:  # low fails, high reaches
        mid = (low + high) // 2
        low, high = (low, mid) if reaches(mid) else (mid, high)
    return high


def closed_form_epochs(
    mde: float, sd: float, icc: float, scenarios: int, alpha: float, power: float
) -> int | None:
    """Epochs per scenario that detect `mde` on a fixed set of `scenarios` (the suite one has):
    from scenarios * m = n * (1 + (m - 1) * icc), m = n (1 - icc) / (scenarios - n icc); None
    when more epochs cannot make up for too few scenarios (scenarios <= n icc) or need more
    than MAX_EPOCHS."""
    n = float(
        TTestPower().solve_power(
            effect_size=abs(mde) / sd, alpha=alpha, power=power, alternative="two-sided"
        )
    )
    if scenarios <= n * icc:
        return None
    m = max(1, math.ceil(n * (1 - icc) / (scenarios - n * icc)))
    return m if m <= MAX_EPOCHS else None


def simulated_epochs(
    values: list[float],
    clusters: list[str],
    mde: float,
    scenarios: int,
    alpha: float,
    power: float,
    simulations: int = SIMULATIONS,
    seed: int = 0,
) -> int | None:
    """The fewest epochs (1 to MAX_EPOCHS) per scenario that reach `power` by simulation with
    `scenarios` scenarios; None when even the most do not."""
    groups = adjusted_groups(values, clusters)
    shift = mde - float(np.mean(values))

    def reaches(m: int) -> bool:
        share = simulated_power(groups, shift, scenarios, m, alpha, simulations, seed, False)
        return share >= power

    return smallest(reaches, 1, MAX_EPOCHS)


def simulated_scenarios(
    values: list[float],
    clusters: list[str],
    mde: float,
    epochs: int,
    alpha: float,
    power: float,
    simulations: int = SIMULATIONS,
    seed: int = 0,
) -> int | None:
    """The fewest scenarios (2 to MAX_SCENARIOS) whose simulated power reaches `power`, the
    pilot's differences shifted to mean `mde`; None when even the most does not."""
    groups = adjusted_groups(values, clusters)
    shift = mde - float(np.mean(values))

    def reaches(k: int) -> bool:
        share = simulated_power(groups, shift, k, epochs, alpha, simulations, seed, False)
        return share >= power

    return smallest(reaches, 2, MAX_SCENARIOS)


def choose_method(metric: str, method: Method) -> Literal["closed form", "simulation"]:
    """The method asked for; `auto`: closed form for a 0/1 rate, simulation for counts."""
    if method != "auto":
        return method
    return "closed form" if BY_NAME[metric].kind == "rate" else "simulation"


def cost_per_episode(variant: VariantSummary, price: Price | None) -> tuple[float, float | None]:
    """(tokens, dollars) per episode of a variant in the pilot: its mean input + output tokens,
    and its measured cost (or those tokens at `price`; None when neither is known)."""
    none = Stat(mean=0.0, stderr=0.0)
    read, cached, wrote = (
        variant.metrics.get(k, none).mean
        for k in ("input_tokens", "cache_read_tokens", "output_tokens")
    )
    if variant.cost_usd is not None:
        return read + wrote, variant.cost_usd.mean
    if price is not None:
        return read + wrote, price.cost(read, cached, wrote)
    return read + wrote, None


def plan(
    summary: Summary,
    base: str,
    new: str,
    metric: str,
    mde: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    epochs: int | None = None,
    method: Method = "auto",
    simulations: int = SIMULATIONS,
    seed: int = 0,
    price: Price | None = None,
) -> Plan:
    """The planned run for one pair and metric (see the module's docstring). A pair whose
    minimum effect is 0, or whose paired differences do not vary, is not plannable: the row
    says why and carries no size."""
    variants = {v.variant: v for v in summary.variants}
    a, b = variants[base], variants[new]
    diffs, clusters = paired_differences(a, b, metric)
    stat = clustered(diffs, clusters)
    between, within = variance_components(diffs, clusters)
    total = between + within
    icc = between / total if total > 0 else 0.0
    m = epochs or summary.epochs
    target = stat.mean if mde is None else mde
    row = Plan(
        base=base,
        new=new,
        metric=metric,
        pairs=len(diffs),
        pilot_scenarios=len(set(clusters)),
        effect=stat.mean,
        ci_low=stat.ci_low,
        ci_high=stat.ci_high,
        var_between=round(between, 6),
        var_within=round(within, 6),
        icc=round(icc, 6),
        mde=target,
        alpha=alpha,
        power=power,
        epochs=m,
        design_effect=round(1.0 + (m - 1) * icc, 6),
        method="",
    )
    if len(set(clusters)) < 2:
        return row.model_copy(update={"note": "not plannable: fewer than 2 paired scenarios"})
    if target == 0:
        why = "no observed effect; give --mde" if mde is None else "a minimum effect of 0"
        return row.model_copy(update={"note": f"not plannable: {why}"})
    if total == 0:
        return row.model_copy(
            update={"note": "not plannable: the paired differences do not vary in the pilot"}
        )
    chosen = choose_method(metric, method)
    k = len(set(clusters))
    sd = math.sqrt(total)

    def size(effect: float) -> int | None:
        if effect == 0 or effect * target < 0:  # no effect, or one the other way
            return None
        if chosen == "closed form":
            return closed_form_scenarios(effect, sd, icc, m, alpha, power)[0]
        return simulated_scenarios(diffs, clusters, effect, m, alpha, power, simulations, seed)

    scenarios = size(target)
    if chosen == "closed form":
        on_pilot = closed_form_epochs(target, sd, icc, k, alpha, power)
    else:
        on_pilot = simulated_epochs(diffs, clusters, target, k, alpha, power, simulations, seed)
    row = row.model_copy(update={"epochs_on_pilot_scenarios": on_pilot})
    if mde is None and stat.ci_low is not None and stat.ci_high is not None:
        far, near = (stat.ci_high, stat.ci_low) if target > 0 else (stat.ci_low, stat.ci_high)
        row = row.model_copy(update={"range_fewest": size(far), "range_most": size(near)})
    if scenarios is None:
        return row.model_copy(
            update={"method": chosen, "note": f"not reached with {MAX_SCENARIOS} scenarios"}
        )
    per_variant = scenarios * m
    (ta, ca), (tb, cb) = cost_per_episode(a, price), cost_per_episode(b, price)
    dollars = None if ca is None or cb is None else per_variant * (ca + cb)
    return row.model_copy(
        update={
            "method": chosen,
            "scenarios": scenarios,
            "episodes": 2 * per_variant,
            "tokens": round(per_variant * (ta + tb)),
            "cost_usd": None if dollars is None else round(dollars, 4),
        }
    )


def check_inputs(summary: Summary, pairs: list[tuple[str, str]], metrics: list[str]) -> None:
    """Raise ValueError (one line) for a variant not in the summary, a metric that is not a
    declared per-episode metric, or a summary without per-episode values."""
    names = [v.variant for v in summary.variants]
    for variant in (v for pair in pairs for v in pair):
        if variant not in names:
            raise ValueError(f"variant {variant!r} is not in the summary ({', '.join(names)})")
    for metric in metrics:
        if metric not in BY_NAME or not BY_NAME[metric].episode:
            raise ValueError(f"metric {metric!r} is not a declared per-episode metric")
    named = {v for pair in pairs for v in pair}
    if any(not v.per_episode for v in summary.variants if v.variant in named):
        raise ValueError(
            "the summary keeps no per-episode values (schema 3 does; rerun or rescore the pilot)"
        )


def default_pairs(summary: Summary) -> list[tuple[str, str]]:
    """Each variant against the first."""
    return pairs_against_first([v.variant for v in summary.variants])


def pairs_against_first(names: list[str]) -> list[tuple[str, str]]:
    """Each variant against the first, in the order given."""
    return [(names[0], other) for other in names[1:]]


def parse_pairs(text: str) -> list[tuple[str, str]]:
    """`A:B,C:D` as (base, new) pairs; anything else is one line (UsageError)."""
    out = []
    for item in (p.strip() for p in text.split(",") if p.strip()):
        base, sep, new = item.partition(":")
        if not sep or not base or not new:
            raise UsageError(f"--pairs expects BASE:NEW[,BASE:NEW...], got {item!r}")
        out.append((base, new))
    if not out:
        raise UsageError("--pairs names no pair")
    return out


HEADERS = [
    "base -> new",
    "metric",
    "pairs",
    "effect [95% CI]",
    "var between",
    "var within",
    "ICC",
    "MDE",
    "method",
    "scenarios x epochs",
    "if the effect is at its CI's ends",
    "or on the pilot's",
    "episodes",
    "tokens",
    "cost USD",
]


def _row(p: Plan) -> list[object]:
    interval = (
        f" [{p.ci_low:+.3f}, {p.ci_high:+.3f}]"
        if p.ci_low is not None and p.ci_high is not None
        else ""
    )
    size = f"{p.scenarios} x {p.epochs}" if p.scenarios is not None else p.note
    return [
        f"{p.base} -> {p.new}",
        p.metric,
        p.pairs,
        f"{p.effect:+.3f}{interval}",
        f"{p.var_between:.4f}",
        f"{p.var_within:.4f}",
        f"{p.icc:.2f}",
        f"{p.mde:+.3f}",
        p.method or "-",
        size,
        range_text(p),
        _on_pilot(p),
        f"{p.episodes:,}" if p.episodes is not None else "-",
        f"{p.tokens:,.0f}" if p.tokens is not None else "-",
        f"{p.cost_usd:,.2f}" if p.cost_usd is not None else "n/a",
    ]


def range_text(p: Plan) -> str:
    """The plan's scenarios were the effect at either end of its interval: "4 - 40", or
    "from 4" when the interval reaches 0 (no run size is then enough for every effect it
    allows)."""
    if p.scenarios is None or p.mde != p.effect or p.ci_low is None or p.ci_high is None:
        return "-"  # not plannable, or planned for a stated --mde
    fewest = "?" if p.range_fewest is None else str(p.range_fewest)
    if p.range_most is None:
        near = p.ci_low if p.effect > 0 else p.ci_high
        return f"from {fewest} ({'CI reaches 0' if near * p.effect <= 0 else 'past the search'})"
    return f"{fewest} - {p.range_most}"


def _on_pilot(p: Plan) -> str:
    if not p.method:
        return "-"
    if p.epochs_on_pilot_scenarios is None:
        return f"{p.pilot_scenarios} x (> {MAX_EPOCHS}): too few scenarios"
    return f"{p.pilot_scenarios} x {p.epochs_on_pilot_scenarios}"


def render(plans: list[Plan], model: str, fmt: Literal["text", "md"] = "text") -> str:
    """The plans as a table under a one-line title naming the pilot and the test."""
    first = plans[0] if plans else None
    head = (
        f"Planned runs from the pilot of {model}: paired differences (new - base) by scenario "
        f"and epoch; 95% interval: percentile bootstrap over scenarios (scipy); two-sided "
        f"alpha {first.alpha if first else '-'}, power {first.power if first else '-'}; "
        "closed form: statsmodels TTestPower x design effect 1 + (m-1) ICC; simulation: "
        "resampled pilot, t-test on scenario means. Episodes count both variants."
    )
    table = tabulate(
        [_row(p) for p in plans],
        headers=HEADERS,
        tablefmt="github" if fmt == "md" else "simple",
        disable_numparse=True,
    )
    return f"{head}\n\n{table}\n"
