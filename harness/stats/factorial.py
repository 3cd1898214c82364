"""`todo-bench factorial RUN`: the main effect of each switch of the seed's stack.

For a run of `--variants seed-factorial` (or any variants of one design that differ only in
their switches), each metric is regressed on one indicator per switch that varies (ordinary
least squares on every episode, statsmodels). Standard errors are clustered by scenario, as
everywhere else, with t-intervals on clusters - 1 degrees of freedom: episodes of one scenario
are correlated across epochs and variants. An effect is the metric's change when that switch is
on and the others are held fixed, under a main-effects model (no interactions). `planner` only
exists with `heuristic`, so its effect is that of adding the planner to the heuristic gate.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel
from statsmodels.regression.linear_model import OLS
from tabulate import tabulate

from harness.metrics import METRICS
from harness.results.summary import Summary
from harness.todo.variants import SWITCHES, Variant

DEFAULT_METRICS = (
    "task_success",
    "false_completion",
    "blocked_completions",
    "false_blocks",
    "turns",
    "input_tokens",
)


class Effect(BaseModel):
    metric: str
    factor: str
    effect: float
    stderr: float
    ci_low: float
    ci_high: float
    p_value: float


def main_effects(summary: Summary, metrics: Sequence[str] = DEFAULT_METRICS) -> list[Effect]:
    """One effect per metric and varying switch; ValueError if the variants are not one
    design's switch combinations or no switch varies."""
    unknown = sorted(set(metrics) - set(METRICS))
    if unknown:
        raise ValueError(f"unknown metric '{unknown[0]}' (see summary.json for the names)")
    factors = [name for name, switch in SWITCHES.items() if switch.factor]
    designs = set()
    rows: list[tuple[list[float], str, dict[str, float]]] = []
    for variant in summary.variants:
        parsed = Variant.parse(variant.variant)
        # the switches that are no factor make another design (+inject, +uncapped)
        designs.add((parsed.design, *(s for s in parsed.switches if s not in factors)))
        on = [float(parsed.has(f)) for f in factors]
        rows += [(on, e.scenario, e.values) for e in variant.per_episode]
    if len(designs) != 1:
        raise ValueError("the run mixes designs: a factorial compares switches on one design")
    x = np.asarray([on for on, _, _ in rows])
    varying = [i for i in range(len(factors)) if len(set(x[:, i])) > 1]
    if not varying:
        raise ValueError("no switch varies between the run's variants")
    design = np.column_stack([np.ones(len(rows)), x[:, varying]])
    clusters = sorted({s for _, s, _ in rows})
    groups = np.asarray([clusters.index(s) for _, s, _ in rows])
    out = []
    for metric in metrics:
        y = np.asarray([values.get(metric, 0.0) for _, _, values in rows])
        with warnings.catch_warnings():
            # a metric a switch never moves has a singular clustered covariance: NaN spreads
            warnings.simplefilter("ignore")
            fit = OLS(y, design).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
            params, bse = np.nan_to_num(fit.params), np.nan_to_num(fit.bse)
            pvalues, interval = fit.pvalues, fit.conf_int()
        # float noise grows with the metric's magnitude (token counts run to 1e5 and more)
        scale = max(1.0, float(np.abs(y).max(initial=0.0)))
        for k, i in enumerate(varying, start=1):
            coef = _clean(params[k], scale)
            # the clustered variance is a difference of terms of size scale², so its float noise
            # is about eps·scale² and the error's about sqrt(eps)·scale (1.5e-8·scale)
            se = _clean(bse[k], scale * SE_NOISE)
            if se > 0:
                low, high, p = float(interval[k][0]), float(interval[k][1]), float(pvalues[k])
            else:  # no spread to test against: certain if the difference is not zero
                low, high, p = coef, coef, 1.0 if coef == 0 else 0.0
            out.append(
                Effect(
                    metric=metric,
                    factor=factors[i],
                    effect=coef,
                    stderr=se,
                    ci_low=_clean(low),
                    ci_high=_clean(high),
                    p_value=_clean(p),
                )
            )
    return out


#: a standard error is float noise below 1e-9·SE_NOISE = 1e-7 of the metric's scale (main_effects)
SE_NOISE = 100.0


def _clean(value: float, scale: float = 1.0) -> float:
    """Six decimals; float noise (below 1e-9 of `scale`) and -0.0 as 0."""
    rounded = round(float(value), 6)
    return 0.0 if abs(rounded) < 1e-9 * scale else rounded


def effects_table(effects: Sequence[Effect], fmt: str = "github") -> str:
    rows = [
        [
            e.metric,
            f"+{e.factor}",
            f"{e.effect:+.3g}",
            f"[{e.ci_low:+.3g}, {e.ci_high:+.3g}]",
            f"{e.p_value:.3f}",
        ]
        for e in effects
    ]
    return tabulate(rows, headers=["metric", "switch", "effect", "95% CI", "p"], tablefmt=fmt)
