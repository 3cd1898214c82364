"""What a group-sequential design saves at best (`harness.stats.sequential_efficiency`): the
numerical integration against an independent Monte Carlo of the same design, and the limits
that hold whatever the arithmetic (one look is the fixed run)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from harness.results.summary import Spending
from harness.stats.sequential_bounds import boundaries
from harness.stats.sequential_efficiency import efficiency


def _simulated(looks: int, kind: Spending, largest: float, power: float) -> tuple[float, float]:
    """(power, expected information) of the design by simulating its score's Brownian path."""
    drift = sps.norm.isf(0.025) + sps.norm.isf(1 - power)
    steps = np.random.default_rng(7).standard_normal((200_000, looks))
    step = largest / looks
    score = np.cumsum(steps * math.sqrt(step) + drift * step, axis=1)
    z = score / np.sqrt(step * np.arange(1, looks + 1))
    crossed = np.abs(z) >= np.asarray(boundaries(looks, 0.05, kind))
    first = np.where(crossed.any(axis=1), crossed.argmax(axis=1), looks - 1)
    right = crossed.any(axis=1) & (z[np.arange(len(z)), first] > 0)
    return float(right.mean()), float(((first + 1) * step).mean())


@pytest.mark.parametrize(("looks", "kind"), [(4, "obrien-fleming"), (5, "pocock")])
def test_the_integration_agrees_with_a_simulation_of_the_design(looks: int, kind: Spending) -> None:
    design = efficiency(looks, 0.05, 0.8, kind)
    power, expected = _simulated(looks, kind, design.largest, 0.8)
    assert power == pytest.approx(0.8, abs=0.005)
    assert design.expected == pytest.approx(expected, abs=0.005)
    # and a design 5% smaller than solved for misses the power
    assert _simulated(looks, kind, design.largest * 0.95, 0.8)[0] < 0.79


def test_one_look_is_the_fixed_run() -> None:
    design = efficiency(1, 0.05, 0.8)
    assert design.largest == pytest.approx(1.0, abs=1e-4)
    assert design.saved == pytest.approx(0.0, abs=1e-4)


def test_what_the_designs_save_and_cost() -> None:
    """Pocock-type spending plans a larger largest run than O'Brien-Fleming-type for the same
    power; more looks and more power save more; at 0.8 neither saves a quarter by 14 looks."""
    obf, pocock = efficiency(4, 0.05, 0.8), efficiency(4, 0.05, 0.8, "pocock")
    assert 1 < obf.largest < pocock.largest
    assert efficiency(10, 0.05, 0.8).saved > obf.saved > 0
    assert efficiency(4, 0.05, 0.9).saved > obf.saved
    assert efficiency(14, 0.05, 0.8).saved < 0.25
    assert efficiency(14, 0.05, 0.8, "pocock").saved < 0.25
    assert efficiency(7, 0.05, 0.9).saved > 0.25
