"""Pairs of variants and their paired episodes: `--pairs` as written (`todo-bench power`, `run
--until-decided`), each variant against the first where none are named, the pairs and metrics
checked against a summary, and the paired differences (new - base by scenario and epoch) with
their variance split between and within scenarios (`power_plan.py` plans from them,
`sequential_looks.py` looks at them)."""

from __future__ import annotations

import numpy as np

from harness.errors import UsageError
from harness.metrics import BY_NAME
from harness.results.summary import Summary, VariantSummary


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


def pairs_against_first(names: list[str]) -> list[tuple[str, str]]:
    """Each variant against the first, in the order given."""
    return [(names[0], other) for other in names[1:]]


def default_pairs(summary: Summary) -> list[tuple[str, str]]:
    """Each variant against the first."""
    return pairs_against_first([v.variant for v in summary.variants])


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
