"""The simulation study's arithmetic (harness/stats/power_study.py, with study_pool.py and
equal_power.py) on tiny synthetic pools whose truth is known; the study itself
(scripts/power_study.py) is not run here."""

from __future__ import annotations

import random

import pytest

from harness.results.summary import EpisodeScores, Futility, Stat, Summary, VariantSummary
from harness.stats.equal_power import fixed_power, sequential_on_suite
from harness.stats.power_study import (
    aa_sequential,
    ab_sequential,
    alarms_by_look,
    alarms_by_metric,
    board_sequential,
    pooled_df,
    right_way,
)
from harness.stats.sequential_looks import Rule
from harness.stats.study_pool import (
    Pool,
    paired_groups,
    pool_epochs,
    pool_of,
    rate,
    sequential_run,
    truth,
)


def synthetic(success: dict[str, float], scenarios: int, epochs: int, seed: int = 0) -> Pool:
    rng = random.Random(seed)
    return {
        variant: {
            f"s{k}": [{"task_success": float(rng.random() < p)} for _ in range(epochs)]
            for k in range(scenarios)
        }
        for variant, p in success.items()
    }


def test_a_rate_carries_its_clopper_pearson_interval() -> None:
    r = rate(0, 200)
    assert (r.hits, r.rate, r.ci_low) == (0, 0.0, 0.0)
    assert r.ci_high == pytest.approx(0.018267, abs=1e-5)  # 1 - 0.025 ** (1 / 200)
    half = rate(50, 100)
    assert half.ci_low < 0.5 < half.ci_high and half.text.startswith("0.500 [")


def test_a_pool_keeps_each_variants_episodes_by_scenario_in_epoch_order() -> None:
    episodes = [
        EpisodeScores(scenario=s, epoch=e, values={"task_success": float(e % 2)})
        for s in ("b", "a")
        for e in (3, 1, 2)
    ]
    none = Stat(mean=0.0, stderr=0.0)
    variant = VariantSummary(
        variant="V",
        episodes=6,
        metrics={},
        pass_k=none,
        per_100_todo_updates={},
        per_scenario_success={},
        per_episode=episodes,
    )
    summary = Summary(
        model="m", simulated=True, seed=0, epochs=3, scenarios=["a", "b"], variants=[variant]
    )
    pool = pool_of(summary)
    assert list(pool["V"]) == ["a", "b"]
    assert [v["task_success"] for v in pool["V"]["a"]] == [1.0, 0.0, 1.0]
    assert pool_epochs(pool) == 3


def test_truth_is_the_mean_paired_difference() -> None:
    pool: Pool = {
        "A": {"s": [{"task_success": 0.0}, {"task_success": 1.0}]},
        "B": {"s": [{"task_success": 1.0}, {"task_success": 1.0}]},
    }
    assert truth(pool, "A", "B", "task_success") == 0.5
    assert [list(g) for g in paired_groups(pool, "A", "B", "task_success")] == [[1.0, 0.0]]
    assert right_way("task_success", 0.5) == "better"
    assert right_way("dropped_todos", 0.5) == "worse"


def test_an_overwhelming_difference_is_decided_early_and_the_right_way() -> None:
    base = {f"s{k}": [{"task_success": 0.0}] * 10 for k in range(6)}
    new = {f"s{k}": [{"task_success": float(i % 10 != 0)} for i in range(10)] for k in range(6)}
    outcome = sequential_run(base, new, ["task_success"], batch=2, looks=5, alpha=0.05)
    assert outcome.verdicts == ["better"]
    assert outcome.looks < 5 and outcome.episodes == 2 * 6 * 2 * outcome.looks


def test_aa_repetitions_count_false_alarms_and_are_deterministic() -> None:
    pool = synthetic({"A": 0.5}, scenarios=4, epochs=8)
    first, outcomes = aa_sequential(pool, "A", ["task_success"], 12, 2, 2, 0.05, seed=1)
    again, _ = aa_sequential(pool, "A", ["task_success"], 12, 2, 2, 0.05, seed=1)
    assert first == again and first.reps == 12 and len(outcomes) == 12
    assert first.hits == sum(o.verdicts != ["undecided"] for o in outcomes)
    with pytest.raises(ValueError, match="needs 16 pool epochs"):
        aa_sequential(pool, "A", ["task_success"], 2, 2, 4, 0.05, seed=1)


def test_ab_repetitions_find_a_large_true_difference() -> None:
    pool = synthetic({"A": 0.1, "B": 0.9}, scenarios=6, epochs=10)
    power, episodes, wrong = ab_sequential(pool, "A", "B", "task_success", 20, 2, 3, 0.05, seed=2)
    assert power.rate == 1.0 and wrong.hits == 0
    assert 2 * 6 * 2 <= episodes <= 2 * 6 * 2 * 3
    fixed = fixed_power(pool, "A", "B", "task_success", 6, 2, 0.05, 200, seed=3)
    assert fixed.rate > 0.9 and fixed.reps == 200


def test_aa_false_alarms_are_told_by_metric_and_by_look() -> None:
    """The A/A breakdown: every run with a false alarm counts at exactly one look (its
    first), and each metric's hits are the runs where that metric raised one."""
    pool = synthetic({"A": 0.5}, scenarios=4, epochs=8)
    for values in pool["A"].values():
        for i, v in enumerate(values):
            v["dropped_todos"] = float(i % 3)
    metrics = ["task_success", "dropped_todos"]
    total, outcomes = aa_sequential(pool, "A", metrics, 30, 2, 2, 0.5, seed=4)
    by_look = alarms_by_look(outcomes, 2)
    assert sum(by_look) == total.hits > 0
    by_metric = alarms_by_metric(outcomes, metrics)
    assert max(r.hits for r in by_metric.values()) <= total.hits
    assert total.hits <= sum(r.hits for r in by_metric.values())


def test_the_pooled_variance_of_a_count_one_scenario_carries_rests_on_its_epochs_alone() -> None:
    """One scenario of 6 varies: the t quantile is given n - k + 1 = 6 x 4 - 6 + 1 = 19
    degrees of freedom, Satterthwaite counts that scenario's 3, and its share is all."""
    pool: Pool = {
        "A": {
            f"s{k}": [{"dropped_todos": float(k == 0) * (i % 4)} for i in range(8)]
            for k in range(6)
        }
    }
    pooled = pooled_df(pool, "A", "dropped_todos", 20, 4, seed=0)
    assert pooled.df_given == 19
    assert pooled.df_satterthwaite == 3.0 and pooled.top_scenario_share == 1.0
    spread = synthetic({"A": 0.5}, scenarios=6, epochs=40)
    df = pooled_df(spread, "A", "task_success", 20, 20, seed=0).df_satterthwaite
    assert df is not None and df > 80


def test_the_smallest_sequential_design_at_a_power_is_found_on_the_same_draws() -> None:
    """A clear difference reaches the power with few looks, and the design found is the
    smallest: one look fewer does not reach it (or is below the search's first size, 2)."""
    pool = synthetic({"A": 0.3, "B": 0.8}, scenarios=6, epochs=12, seed=5)
    found = sequential_on_suite(pool, "A", "B", "task_success", 0.8, 0.05, 30, 12, seed=6)
    assert found is not None and found.power.rate >= 0.8 and found.wrong_way.hits == 0
    if found.looks > 2:
        fewer, _, _ = ab_sequential(
            pool, "A", "B", "task_success", 30, 1, found.looks - 1, 0.05, seed=6
        )
        assert fewer.rate < 0.8
    same = synthetic({"A": 0.5, "B": 0.5}, scenarios=6, epochs=12, seed=5)
    assert sequential_on_suite(same, "A", "B", "task_success", 0.8, 0.05, 10, 6, seed=6) is None


def test_a_board_counts_right_and_wrong_per_comparison_and_a_tolerance_ends_a_null_one() -> None:
    """Three variants, two comparisons: A -> B a large difference, A -> C none at all (the
    same episodes). Without a tolerance the null comparison is never decided, so no run stops
    before its budget; with one at 0.3 it is decided within tolerance and runs stop sooner.
    Neither declares the null comparison, and the difference is found the right way."""
    pool = synthetic({"A": 0.2, "B": 0.95}, scenarios=6, epochs=12, seed=7)
    pool["C"] = pool["A"]
    comparisons = [("A", "B", "task_success"), ("A", "C", "task_success")]
    plain = board_sequential(pool, comparisons, 20, 10, 0.05, 8, {})
    assert plain.right[0].rate >= 0.9 and plain.right[1].rate == 1.0
    assert [w.hits for w in plain.wrong] == [0, 0]
    assert plain.stopped_early.hits == 0 and plain.mean_episodes == 3 * 6 * 10
    tolerant = board_sequential(pool, comparisons, 20, 10, 0.05, 8, {"task_success": 0.3})
    assert tolerant.stopped_early.hits > 0 and tolerant.mean_episodes < plain.mean_episodes
    assert [w.hits for w in tolerant.wrong] == [0, 0]
    # a futility stop at an MDE the rest of the run could never show ends it too
    futile = Rule(futility=Futility(threshold=0.1, mde={"task_success": 0.01}))
    stopped = board_sequential(pool, comparisons, 20, 10, 0.05, 8, {}, futile)
    assert stopped.mean_episodes < plain.mean_episodes and stopped.wrong[0].hits == 0
