"""`todo-bench power`: how many scenarios x epochs a run needs to detect a stated effect.

From a pilot run's per-episode values (kept in summary.json), for a pair of variants and a
metric: the paired differences (new - base, paired by scenario and epoch: `paired.py`), their
mean with the project's clustered interval (`harness.stats.intervals.clustered`: percentile
bootstrap over scenarios), their variance split into a between-scenario and a within-scenario
part (one-way random-effects ANOVA, method of moments), and the planned size of a run that
detects a minimum effect (`mde`) at `alpha` with `power`, in closed form or by simulation
(`sample_size.py`), with the range the pilot's own interval allows and what the run costs.

Pure functions over a `Summary`; `power_table.py` renders them.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel

from harness.metrics import BY_NAME
from harness.results.summary import Price, Stat, Summary, VariantSummary
from harness.stats.intervals import clustered
from harness.stats.paired import paired_differences, variance_components
from harness.stats.sample_size import (
    MAX_SCENARIOS,
    SIMULATIONS,
    closed_form_epochs,
    closed_form_scenarios,
    simulated_epochs,
    simulated_scenarios,
)

Method = Literal["auto", "closed form", "simulation"]


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
