"""The statistics of a sequential run: the alpha-spending boundaries against published values
and an independent computation, and the repeated confidence intervals' error rate under
repeated looks (A/A) and their early decision under a large effect (A/B), on synthetic runs."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import stats as sps

from harness.results.sequential import boundaries, decide, look, spending
from harness.results.summary import EpisodeScores, Look, Stat, Summary, VariantSummary

#: Lan-DeMets O'Brien-Fleming-type bounds, two-sided alpha 0.05, equally spaced looks: gsDesign
#: sfLDOF and rpact asOF give these; DeMets and Lan (1994, Stat Med 13:1341, table 1) print
#: 4.90, 3.35, 2.68, 2.29, 2.03 for five looks
PUBLISHED = {
    1: (1.960,),
    2: (2.963, 1.969),
    3: (3.710, 2.511, 1.993),
    4: (4.333, 2.963, 2.359, 2.014),
    5: (4.877, 3.357, 2.680, 2.290, 2.031),
}


@pytest.mark.parametrize("looks", sorted(PUBLISHED))
def test_boundaries_match_the_published_obrien_fleming_type_values(looks: int) -> None:
    assert [round(c, 3) for c in boundaries(looks, 0.05)] == list(PUBLISHED[looks])


def test_boundaries_spend_alpha_by_an_independent_computation() -> None:
    """scipy's multivariate normal (Genz) over the looks' z statistics, corr sqrt(t_i / t_j):
    the chance of staying inside every look's bound up to look k is 1 - alpha(t_k)."""
    bounds = np.asarray(boundaries(4, 0.05))
    t = np.arange(1, 5) / 4
    cov = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
    for k in range(1, 5):
        inside = sps.multivariate_normal.cdf(
            bounds[:k], np.zeros(k), cov[:k, :k], lower_limit=-bounds[:k], rng=0
        )
        assert inside == pytest.approx(1 - spending(k / 4, 0.05), abs=2e-5)


def _summary(values: dict[str, list[list[float]]], epochs: int) -> Summary:
    """A run whose variants have `values[variant][scenario][epoch]` as their one metric."""
    none = Stat(mean=0.0, stderr=0.0)
    variants = [
        VariantSummary(
            variant=name,
            episodes=sum(len(row) for row in rows),
            metrics={},
            pass_k=none,
            per_100_todo_updates={},
            per_scenario_success={},
            per_episode=[
                EpisodeScores(scenario=f"s{i}", epoch=e + 1, values={"task_success": v})
                for i, row in enumerate(rows)
                for e, v in enumerate(row)
            ],
        )
        for name, rows in values.items()
    ]
    scenarios = [f"s{i}" for i in range(len(next(iter(values.values()))))]
    return Summary(
        model="synthetic", simulated=True, seed=0, epochs=epochs, scenarios=scenarios,
        variants=variants,
    )  # fmt: skip


def _sequential(
    rng: np.random.Generator, p_base: np.ndarray, p_new: np.ndarray, looks: int, per_look: int
) -> list[Look]:
    """A run of up to `looks` looks of `per_look` epochs, stopped at its first decision."""
    base = rng.random((looks * per_look, len(p_base))) < p_base
    new = rng.random((looks * per_look, len(p_new))) < p_new
    done: list[Look] = []
    for k in range(1, looks + 1):
        n = k * per_look
        summary = _summary(
            {"A": base[:n].T.astype(float).tolist(), "B": new[:n].T.astype(float).tolist()}, n
        )
        done.append(look(summary, [("A", "B", "task_success")], k, looks, 0.05, {}, done, None))
        if done[-1].decisions[0].decided_at is not None:
            break
    return done


def test_repeated_looks_keep_the_error_rate_where_naive_looks_do_not() -> None:
    """A/A: 400 runs of five looks with no true difference (per-scenario success rates 0.2 to
    0.9). The spending boundaries declare a difference at most at alpha (the observed rate
    with its Clopper-Pearson interval); the same looks at the fixed-size 1.96 do so well above
    alpha, which is what the boundaries are for."""
    rng = np.random.default_rng(7)
    p = np.linspace(0.2, 0.9, 12)
    runs = 400
    alarms = sum(
        any(d.verdict != "undecided" for d in _sequential(rng, p, p, 5, 2)[-1].decisions)
        for _ in range(runs)
    )
    low = sps.binomtest(alarms, runs).proportion_ci(0.95).low
    assert low <= 0.05, f"{alarms}/{runs} false alarms"
    assert alarms / runs <= 0.07, alarms
    naive = 0
    for _ in range(runs):
        base = rng.random((10, 12)) < p
        new = rng.random((10, 12)) < p
        for k in range(1, 6):
            n = 2 * k
            summary = _summary(
                {"A": base[:n].T.astype(float).tolist(), "B": new[:n].T.astype(float).tolist()}, n
            )
            if decide(summary, ("A", "B", "task_success"), 1.96, 0.0).verdict != "undecided":
                naive += 1
                break
    assert naive / runs > 0.08, f"{naive}/{runs}: naive looks should overshoot alpha"


def test_a_large_effect_is_decided_before_the_last_look() -> None:
    rng = np.random.default_rng(3)
    looks = _sequential(rng, np.full(12, 0.3), np.full(12, 0.9), 5, 2)
    assert len(looks) < 5
    assert looks[-1].decisions[0].verdict == "better"
    assert looks[-1].decisions[0].decided_at == len(looks)


def test_no_variance_is_not_certainty_and_a_tolerance_decides_no_difference() -> None:
    """A look where nothing varied: a constant difference over few pairs, or no difference at
    all, decides nothing; over many pairs the interval closes in, and lies within a tolerance."""
    bound = boundaries(3, 0.05)[0]
    few = _summary({"A": [[0.0, 0.0]] * 3, "B": [[1.0, 1.0]] * 3}, 2)
    assert decide(few, ("A", "B", "task_success"), bound, 0.0).verdict == "undecided"
    same = _summary({"A": [[1.0, 1.0]] * 6, "B": [[1.0, 1.0]] * 6}, 2)
    assert decide(same, ("A", "B", "task_success"), bound, 0.1).verdict == "undecided"
    many = _summary({"A": [[1.0] * 40] * 12, "B": [[1.0] * 40] * 12}, 40)
    assert decide(many, ("A", "B", "task_success"), bound, 0.0).verdict == "undecided"
    assert decide(many, ("A", "B", "task_success"), bound, 0.1).verdict == "within tolerance"
    lots = _summary({"A": [[0.0] * 40] * 12, "B": [[1.0] * 40] * 12}, 40)
    assert decide(lots, ("A", "B", "task_success"), bound, 0.0).verdict == "better"


def test_the_board_says_how_the_run_stopped_in_text_and_html() -> None:
    from harness.results.sequential import final
    from harness.results.stopping import section
    from harness.results.summary import SequentialRecord

    rng = np.random.default_rng(3)
    looks = _sequential(rng, np.full(12, 0.3), np.full(12, 0.9), 5, 2)
    record = SequentialRecord(
        method="m", alpha=0.05, alpha_each=0.05, batch_epochs=2, planned_looks=5,
        looks=looks, decisions=final(looks), stopped="decided",
        reason=f"every comparison decided (look {len(looks)} of 5)",
    )  # fmt: skip
    text = section(record)
    assert text.startswith("Sequential run stopped: decided. Every comparison decided (look")
    assert re.search(rf"\| A -> B +\| task_success +\| better +\| {len(looks)} +\|", text)
    page = section(record, "html")
    assert "<p>Sequential run stopped: decided." in page and "<table>" in page
