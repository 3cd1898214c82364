"""`make perf`'s phase table: where each kind's CPU goes at 3 epochs, and the episodes' CPU per
added episode, as medians over the rounds (exact arithmetic on made-up rounds)."""

from __future__ import annotations

from typing import Any

from tests.helpers import load_script


def _run(cpu: float, before: float, episodes: float) -> dict[str, Any]:
    return {"cpu": cpu, "before": before, "episodes": episodes}


def test_phases_are_medians_and_differences_per_kind() -> None:
    perf = load_script("perf")
    rounds = []
    for slow in (0.0, 1.0, 5.0):  # one slow round moves no median
        rounds.append(
            {
                (1, "harness"): _run(6.0, 3.0, 2.5),
                (3, "harness"): _run(9.0 + slow, 3.0, 5.5 + slow),
                (1, "bare"): _run(4.0, 2.0, 1.9),
                (3, "bare"): _run(6.0, 2.0, 3.9),
                (1, "bare+same"): _run(4.5, 2.1, 2.0),
                (3, "bare+same"): _run(6.5, 2.1, 4.2),
            }
        )
    rows = perf.phase_rows(rounds, extra=24)
    assert rows == [
        ["3 epochs: before the first episode", "3.00 s", "2.00 s", "2.10 s", "+1.00 s", "+0.90 s"],
        ["3 epochs: the episodes", "6.50 s", "3.90 s", "4.20 s", "+2.60 s", "+2.30 s"],
        [
            "3 epochs: after them (summary, exit)",
            "0.50 s",
            "0.10 s",
            "0.20 s",
            "+0.40 s",
            "+0.30 s",
        ],
        [
            "episodes' CPU per added episode (1 -> 3)",
            "167 ms",
            "83 ms",
            "92 ms",
            "+83 ms",
            "+75 ms",
        ],
    ]
