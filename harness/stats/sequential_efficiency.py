"""What a group-sequential design can save at best: the theory the power study's pool results
are set against (`scripts/power_study.py`). For a normally distributed statistic with known
variance (the large-sample limit of any of the gate's comparisons), `efficiency` gives the
design of `looks` equally spaced looks spending two-sided `alpha` by a spending function that
reaches `power` against a difference a fixed run of information 1 detects with that power:
its largest information (the inflation factor a plan multiplies the fixed run by) and its
expected information when the difference is there (the average sample number under the
alternative), both as shares of the fixed run's. The crossing probabilities come from the same
recursion as the boundaries (`sequential_bounds.py`) with the score's drift added (Jennison
and Turnbull 2000, ch. 19), and the inflation factor is solved for with scipy's brentq.

What it shows (results/power/study.md): at power 0.8 no Lan-DeMets design of this kind saves
a quarter of the fixed run's episodes when the difference is real (O'Brien-Fleming-type about
16% at 4 looks and 22% at 14; Pocock-type about 20% and 22%); at power 0.9 they save a quarter
to a third, as the group-sequential literature reports.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from pydantic import BaseModel, ConfigDict
from scipy import stats as sps
from scipy.optimize import brentq

from harness.results.summary import Spending
from harness.stats.sequential_bounds import (
    DEFAULT_SPENDING,
    boundaries,
    crossing_chances,
    still_inside,
)

#: grid points between looks (odd, for Simpson's rule): fewer than the boundaries' GRID, as a
#: design's power and mean size agree with 801 points to five digits at 201, 40 times sooner
POINTS = 201


class Efficiency(BaseModel):
    """A sequential design against the fixed run of the same alpha and power, both in units of
    the fixed run's information (episodes)."""

    model_config = ConfigDict(frozen=True)

    looks: int
    spending: Spending
    alpha: float
    power: float
    #: the last look's information over the fixed run's (the inflation factor)
    largest: float
    #: the expected information at the stop, the difference being there, over the fixed run's
    expected: float

    @property
    def saved(self) -> float:
        """The share of the fixed run's episodes the design saves on average (negative: costs)."""
        return 1.0 - self.expected


def _outcome(bounds: tuple[float, ...], largest: float, drift: float) -> tuple[float, float]:
    """(power, expected information) of looks at information largest x j / K crossing
    `bounds`, the score drifting by `drift` per unit of information: power is the chance of
    stopping at the upper boundary, the right way."""
    looks = len(bounds)
    grid, mass = np.zeros(1), np.ones(1)
    right, expected, going = 0.0, 0.0, 1.0
    for j, c in enumerate(bounds, start=1):
        t, step = largest * j / looks, largest / looks
        edge, sd = c * math.sqrt(t), math.sqrt(step)
        upper, lower = crossing_chances(grid, mass, edge, sd, drift * step)
        right += upper
        if j < looks:
            expected += t * (upper + lower)
            going -= upper + lower
            grid, mass = still_inside(grid, mass, edge, sd, drift * step, POINTS)
    return right, expected + largest * going


@lru_cache(maxsize=128)
def efficiency(
    looks: int, alpha: float, power: float, kind: Spending = DEFAULT_SPENDING
) -> Efficiency:
    """The design of `looks` equally spaced looks spending `alpha` by `kind` that reaches
    `power` (the right way) against the difference a fixed two-sided test at `alpha` detects
    with `power` at information 1."""
    bounds = boundaries(looks, alpha, kind)
    drift = float(sps.norm.isf(alpha / 2) + sps.norm.isf(1 - power))
    largest = float(brentq(lambda r: _outcome(bounds, r, drift)[0] - power, 0.5, 3.0, xtol=1e-7))
    return Efficiency(
        looks=looks,
        spending=kind,
        alpha=alpha,
        power=power,
        largest=largest,
        expected=_outcome(bounds, largest, drift)[1],
    )
