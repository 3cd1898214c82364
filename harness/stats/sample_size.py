"""How many scenarios (or epochs on a fixed set of scenarios) detect a minimum effect (`mde`) at
`alpha` with `power`, from paired differences clustered by scenario:

- closed form: statsmodels' one-sample t-test power on the paired differences (effect size
  mde / total standard deviation) gives the independent episodes needed; the design effect
  1 + (m - 1) * ICC of m epochs per scenario turns them into clustered episodes;
- simulation: resample the pilot (scenarios with replacement, then epochs within each, the
  two stages adjusted so that neither variance is counted twice: `adjusted_groups`), shift
  the differences so that their mean is the mde, test each simulated run with a t-test on the
  scenario means (the clustering kept), and find the fewest scenarios whose share of
  rejections reaches the power. Used where a closed form does not fit (counts, whose
  differences are skewed), or when asked; deterministic for a seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import stats as sps
from statsmodels.stats.power import TTestPower

from harness.stats.paired import variance_components

#: simulated runs per candidate size, and the largest number of scenarios searched
SIMULATIONS = 1000
MAX_SCENARIOS = 5000
MAX_EPOCHS = 1000


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
