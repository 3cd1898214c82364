"""The critical values of a sequential run's looks (`sequential_looks.py`): alpha spent over the
planned looks by a Lan-DeMets function (O'Brien-Fleming-type or Pocock-type), each look's
normal boundary, the sign-flip bound of its studentized statistic, and the conditional power a
futility stop reads. A look's critical value (`sequential_looks.decide`) is the larger of two:

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
tests/stats/test_sequential_looks.py). Where the t quantile is honest (a rate spread over the
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
from scipy import stats as sps
from scipy.optimize import brentq

from harness.results.summary import Spending

#: the spending functions `--spending` offers, by name: what the method line calls each
SPENDING_NAMES: dict[Spending, str] = {
    "obrien-fleming": "O'Brien-Fleming-type",
    "pocock": "Pocock-type",
}
assert set(SPENDING_NAMES) == set(get_args(Spending))
DEFAULT_SPENDING: Spending = "obrien-fleming"

#: grid points of the numerical integration between looks (odd, for Simpson's rule)
GRID = 801
#: sign vectors drawn per look besides the observed one (10,000 in all, as `compare`'s
#: permutation test), and the seed of their generator
RESAMPLES = 9_999
SEED = 0


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

    # both tails in one product, not `crossing_chances`' two: summed apart, the last bit of
    # some boundaries moves, and with it a decision at a tie
    def crossing(c: float) -> float:
        edge = c * math.sqrt(t)
        outside = sps.norm.cdf((-edge - grid) / sd) + sps.norm.sf((edge - grid) / sd)
        return float(mass @ outside) - target

    return float(brentq(crossing, 0.0, 50.0, xtol=1e-10))


def crossing_chances(
    grid: np.ndarray, mass: np.ndarray, edge: float, sd: float, shift: float
) -> tuple[float, float]:
    """The chance that the score, still inside at `grid` with `mass`, ends an increment of
    standard deviation `sd` and mean `shift` above +`edge`, and below -`edge`."""
    upper = float(mass @ sps.norm.sf((edge - grid - shift) / sd))
    lower = float(mass @ sps.norm.cdf((-edge - grid - shift) / sd))
    return upper, lower


def still_inside(
    grid: np.ndarray, mass: np.ndarray, edge: float, sd: float, shift: float, points: int = GRID
) -> tuple[np.ndarray, np.ndarray]:
    """The grid of `points` over (-`edge`, `edge`) and the score's mass on it (density times
    Simpson's weights) after an increment of standard deviation `sd` and mean `shift` from
    `grid`."""
    inside = np.linspace(-edge, edge, points)
    step = sps.norm.pdf((inside[:, None] - grid[None, :] - shift) / sd) / sd
    density: np.ndarray = step @ mass
    return inside, density * _simpson(inside)


@lru_cache(maxsize=32)
def boundaries(looks: int, alpha: float, kind: Spending = DEFAULT_SPENDING) -> tuple[float, ...]:
    """The |z| critical value of each of `looks` equally spaced looks, spending `alpha`
    (two-sided) by `spending` of `kind`. The probability of crossing at each look given no earlier
    crossing is integrated numerically over the score process's independent increments (the
    recursion of Armitage, McPherson and Rowe; Jennison and Turnbull 2000, ch. 19) and each
    value solved for with scipy's brentq."""
    out: list[float] = []
    spent, before = 0.0, 0.0
    # the score starts at 0 with certainty: a one-point grid of mass 1
    grid, mass = np.zeros(1), np.ones(1)
    for t in (k / looks for k in range(1, looks + 1)):
        target = spending(t, alpha, kind) - spent
        sd = math.sqrt(t - before)
        if not out:
            c = float(sps.norm.isf(target / 2))
        else:
            c = _next_boundary(grid, mass, t, sd, target)
        spent += target
        grid, mass = still_inside(grid, mass, c * math.sqrt(t), sd, 0.0)
        before = t
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
