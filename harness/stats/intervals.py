"""The statistics behind leaderboards and the regression gate, with the libraries made for them.

- Means carry standard errors clustered by scenario (statsmodels OLS on a constant with a
  cluster-robust covariance): epochs of one scenario are correlated, so treating every episode
  as independent understates the error. Confidence intervals are t-intervals with clusters - 1
  degrees of freedom.
- Two runs are compared on the episodes they share (same scenario and epoch): binary metrics with
  the exact McNemar test, counts with a paired sign-flip permutation test (scipy), and every
  p-value of a comparison is Holm-corrected across the metrics and variants tested.
"""

from __future__ import annotations

import gc
import math
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np
from pydantic import BaseModel
from scipy import stats as sps
from statsmodels.regression.linear_model import OLS
from statsmodels.stats import multitest
from statsmodels.stats.contingency_tables import mcnemar

from harness.results.summary import STDERR_METHOD as STDERR_METHOD
from harness.results.summary import Stat as Stat

#: permutation-test resamples and seed: fixed, so a comparison is reproducible
RESAMPLES = 9999
SEED = 0
#: cluster-bootstrap resamples for the 95% interval of every published mean
BOOTSTRAP_RESAMPLES = 2000


def _r(x: float) -> float:
    return round(float(x), 6)


def clustered(values: Sequence[float], clusters: Sequence[str]) -> Stat:
    """Mean with a standard error clustered by `clusters` (one label per value)."""
    n = len(values)
    if n == 0:
        return Stat(mean=0.0, stderr=0.0, n=0)
    y = np.asarray(values, dtype=float)
    mean = float(y.mean())
    groups = sorted(set(clusters))
    if n < 2 or len(groups) < 2 or float(y.std()) == 0.0:
        return Stat(mean=_r(mean), stderr=0.0, n=n, ci_low=_r(mean), ci_high=_r(mean))
    codes = np.asarray([groups.index(c) for c in clusters])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = OLS(y, np.ones((n, 1))).fit(cov_type="cluster", cov_kwds={"groups": codes})
    stderr = float(fit.bse[0])
    low, high = _cluster_interval(y, codes, len(groups))
    return Stat(mean=_r(mean), stderr=_r(stderr), n=n, ci_low=_r(low), ci_high=_r(high))


def _cluster_interval(y: np.ndarray, codes: np.ndarray, groups: int) -> tuple[float, float]:
    """95% percentile bootstrap over clusters (scipy) of the pooled mean: whole scenarios are
    resampled, so the interval keeps their correlation, and it stays inside the values' range
    (a rate in [0, 1], a count at or above 0), which a mean +- t * stderr does not."""
    sums = np.bincount(codes, weights=y, minlength=groups)
    counts = np.bincount(codes, minlength=groups).astype(float)
    result = sps.bootstrap(
        (sums, counts),
        lambda s, c, axis=-1: s.sum(axis=axis) / c.sum(axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=BOOTSTRAP_RESAMPLES,
        method="percentile",
        random_state=np.random.default_rng(SEED),
    )
    low, high = result.confidence_interval
    return float(low), float(high)


def pass_hat_k(successes: dict[str, list[float]], k: int) -> tuple[Stat, int]:
    """pass^k (tau-bench, Yao et al. 2024): a scenario counts only if all k trials succeed.

    Scenarios with fewer than k epochs are left out (they would inflate it); returns the stat and
    how many scenarios it rests on.
    """
    eligible = {s: runs[:k] for s, runs in successes.items() if len(runs) >= k}
    values = [float(all(v == 1.0 for v in runs)) for runs in eligible.values()]
    return clustered(values, list(eligible)), len(eligible)


class Test(BaseModel):
    """One paired comparison of a metric between two runs."""

    variant: str
    metric: str
    n: int
    base_mean: float
    new_mean: float
    delta: float  # new - base
    ci_low: float
    ci_high: float
    method: str
    p_value: float
    p_holm: float = 1.0


def paired_test(variant: str, metric: str, base: Sequence[float], new: Sequence[float]) -> Test:
    """Compare paired episode values; binary metrics by exact McNemar, others by permutation."""
    a, b = np.asarray(base, dtype=float), np.asarray(new, dtype=float)
    diff = b - a
    n = len(diff)
    delta = float(diff.mean()) if n else 0.0
    if n == 0 or not diff.any():
        p, method = 1.0, "no difference"
    elif set(np.unique(np.concatenate([a, b]))) <= {0.0, 1.0}:
        table = [
            [int(((a == 1) & (b == 1)).sum()), int(((a == 1) & (b == 0)).sum())],
            [int(((a == 0) & (b == 1)).sum()), int(((a == 0) & (b == 0)).sum())],
        ]
        p, method = float(mcnemar(table, exact=True).pvalue), "exact McNemar"
    else:
        result = sps.permutation_test(
            (diff,),
            np.mean,
            permutation_type="samples",
            n_resamples=RESAMPLES,
            random_state=SEED,
        )
        p, method = float(result.pvalue), "paired sign-flip permutation"
    if n > 1 and diff.std() > 0:
        half = float(sps.t.ppf(0.975, n - 1)) * float(diff.std(ddof=1)) / math.sqrt(n)
    else:
        half = 0.0
    return Test(
        variant=variant,
        metric=metric,
        n=n,
        base_mean=_r(a.mean()) if n else 0.0,
        new_mean=_r(b.mean()) if n else 0.0,
        delta=_r(delta),
        ci_low=_r(delta - half),
        ci_high=_r(delta + half),
        method=method,
        p_value=_r(min(1.0, p)),
    )


@contextmanager
def _no_forced_collection() -> Iterator[None]:
    """While open, `gc.collect()` collects nothing and returns 0; after, it is the real one again.

    statsmodels' Holm branch ends in a forced full `gc.collect()` (`import gc` in the function,
    so it calls the module's attribute), which costs more than the whole comparison in a large
    process (0.2-1 s per call); the arithmetic is unaffected, and the collector still runs on
    its own thresholds. Like any swap of a module attribute (and the `mock.patch` it replaces),
    not thread-safe."""
    collect = gc.collect
    gc.collect = _collect_nothing
    try:
        yield
    finally:
        gc.collect = collect


def _collect_nothing(generation: int = 2) -> int:
    return 0


def holm(tests: list[Test]) -> list[Test]:
    """The same tests with Holm-adjusted p-values across the family of real tests.

    A metric whose paired values are all equal carries no evidence either way (its p-value is 1
    by construction), so it is not counted in the family.
    """
    real = [i for i, t in enumerate(tests) if t.method != "no difference"]
    if not real:
        return list(tests)
    with _no_forced_collection():
        adjusted = multitest.multipletests([tests[i].p_value for i in real], method="holm")[1]
    out = list(tests)
    for i, p in zip(real, adjusted, strict=True):
        out[i] = tests[i].model_copy(update={"p_holm": _r(p)})
    return out
