"""summary.json's numbers from a run's episodes: means with standard errors clustered by
scenario and intervals within the metric's range, pass^k, rates per todo update, cost where a
price is known, and a run that is not complete saying so."""

from __future__ import annotations

import statistics
from pathlib import Path

from harness.metrics import METRICS
from harness.publishing.formats import leaderboard
from harness.results.summary import (
    SCHEMA_VERSION,
    EpisodeScores,
    Price,
    TaskResult,
    price_for,
    read_summary,
)
from harness.stats.aggregate import summarize
from harness.stats.intervals import pass_hat_k


def result(variant: str, successes: list[tuple[str, int, float]], dropped: float = 0) -> TaskResult:
    episodes = [
        EpisodeScores(
            scenario=s,
            epoch=e,
            values={
                **dict.fromkeys(METRICS, 0.0),
                "task_success": ok,
                "dropped_todos": dropped,
                # two of the six todo calls were list_todos reads: rates divide by updates
                "todo_tool_calls": 6,
                "todo_updates": 4,
            },
        )
        for s, e, ok in successes
    ]
    return TaskResult(variant=variant, model="sim/sloppy", epochs=2, episodes=episodes)


RUNS = [("a", 1, 1.0), ("a", 2, 1.0), ("b", 1, 1.0), ("b", 2, 0.0)]


def test_pass_hat_k_needs_every_trial_and_enough_trials() -> None:
    stat, scenarios = pass_hat_k({"a": [1.0, 1.0], "b": [1.0, 0.0]}, 2)
    assert (stat.mean, scenarios) == (0.5, 2)
    # a scenario with fewer than k epochs would count as "all passed" on one try: left out
    stat, scenarios = pass_hat_k({"a": [0.0, 0.0], "b": [1.0]}, 2)
    assert (stat.mean, scenarios) == (0.0, 1)


def test_standard_errors_are_clustered_by_scenario() -> None:
    from harness.stats.intervals import clustered

    values = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0] * 2
    clusters = ["a", "a", "a", "b", "b", "b", "c", "c", "c", "d", "d", "d"]
    naive = statistics.stdev(values) / len(values) ** 0.5
    stat = clustered(values, clusters)
    # epochs of a scenario agree, so the effective sample is 4 scenarios, not 12 episodes
    assert stat.stderr > 1.5 * naive
    assert stat.ci_low is not None and stat.ci_low < stat.mean - stat.stderr


def test_summary_means_stderr_rates_and_order() -> None:
    summary = summarize([result("L4-inject", RUNS), result("L0-rewrite", RUNS, dropped=2)], seed=1)
    assert [v.variant for v in summary.variants] == ["L0-rewrite", "L4-inject"]
    l0 = summary.variants[0]
    assert l0.metrics["task_success"].mean == 0.75
    assert l0.metrics["task_success"].stderr == 0.25
    assert l0.pass_k.mean == 0.5
    assert l0.per_100_todo_updates["dropped_todos"] == 50.0
    assert l0.per_scenario_success == {"a": 1.0, "b": 0.5}
    assert summary.schema_version == 3 and summary.simulated
    assert len(l0.per_episode) == 4 and summary.complete


def test_an_incomplete_run_says_so() -> None:
    summary = summarize(
        [result("L0-rewrite", RUNS)],
        problems=["L3: log error (boom)"],
        expected=["L0-rewrite", "L4"],
    )
    assert not summary.complete and "L4: no results" in summary.problems
    assert leaderboard(summary, "md").startswith("INCOMPLETE RUN")
    assert "INCOMPLETE RUN" in leaderboard(summary, "html")


def test_cost_where_a_price_is_known(tmp_path: Path) -> None:
    table = tmp_path / "prices.yaml"
    table.write_text("vendor/: {input: 1.0, output: 2.0}\nvendor/big: {input: 10, output: 20}\n")
    assert price_for("vendor/big-model", table) == Price(input=10, output=20)
    assert price_for("other/x", table) is None
    episode = result("L0-rewrite", RUNS)
    for e in episode.episodes:
        e.values.update(input_tokens=1_000_000, output_tokens=500_000)
    summary = summarize([episode], price=Price(input=1.0, output=2.0))
    assert summary.variants[0].cost_usd is not None
    assert summary.variants[0].cost_usd.mean == 2.0
    assert "cost $" in leaderboard(summary, "md")
    assert "cost $" not in leaderboard(summarize([result("L0-rewrite", RUNS)]), "md")


def test_intervals_stay_in_the_metrics_range() -> None:
    from harness.stats.intervals import clustered

    clusters = [f"s{i // 3}" for i in range(36)]
    skewed_count = clustered([0.0] * 30 + [9.0] + [0.0] * 5, clusters)
    assert skewed_count.ci_low == 0.0 and skewed_count.mean - 1.96 * skewed_count.stderr < 0
    nearly_all = clustered([1.0] * 34 + [0.0, 0.0], clusters)
    assert nearly_all.ci_high == 1.0 and nearly_all.mean + 1.96 * nearly_all.stderr > 1
    assert clustered([0.0] * 30 + [9.0] + [0.0] * 5, clusters) == skewed_count  # seeded


def test_every_committed_interval_lies_within_its_values() -> None:
    checked = 0
    for path in Path("results").rglob("summary.json"):
        summary = read_summary(path)
        if summary.schema_version != SCHEMA_VERSION or "bootstrap" not in summary.stderr_method:
            continue  # older summaries (real-model runs) keep the interval they were made with
        for variant in summary.variants:
            for metric, stat in variant.metrics.items():
                values = [e.values[metric] for e in variant.per_episode if metric in e.values]
                if values and stat.ci_low is not None and stat.ci_high is not None:
                    assert min(values) <= stat.ci_low <= stat.mean <= stat.ci_high <= max(values)
                    checked += 1
    assert checked > 1000
