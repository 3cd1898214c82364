"""`scripts/scaling.py`'s fitted exponents: right on a known power law, and a clear cell (no
traceback) where a run gives too few points to fit, as a real model that quits early does."""

from __future__ import annotations

import math
from types import ModuleType

import pandas as pd
import pytest

from tests.helpers import load_script


def _scaling() -> ModuleType:
    return load_script("scaling")


def _frame(points: list[tuple[int, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"variant": "V", "n": n, "todo_output_tokens": todo, "input_tokens": tokens}
            for n, todo, tokens in points
        ]
    )


def test_the_exponent_of_a_known_power_law_is_recovered_with_an_interval() -> None:
    sizes = [5, 10, 20, 50]
    frame = _frame([(n, 3.0 * n**2, 7.0 * n**1.5) for n in sizes])
    row = _scaling().slopes(frame).iloc[0]
    assert row["todo out exponent"] == pytest.approx(2.0)
    assert row["input exponent"] == pytest.approx(1.5)
    assert row["todo out 95% CI"] == "[2.00, 2.00]"


def test_too_few_points_are_said_not_fitted() -> None:
    # one size with todo tokens (the other episode never touched its list), two sizes of input
    frame = _frame([(4, 0.0, 2500.0), (7, 42.0, 3200.0)])
    row = _scaling().slopes(frame).iloc[0]
    assert math.isnan(row["todo out exponent"])
    assert row["todo out 95% CI"] == "too few points (1 episodes with tokens)"
    assert row["input exponent"] == pytest.approx(math.log(3200 / 2500) / math.log(7 / 4))
    assert row["input 95% CI"] == "none (exact fit through 2 points)"
