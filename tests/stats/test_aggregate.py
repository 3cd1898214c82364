"""Summaries, pass^k, leaderboard formats and the regression gate."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from harness.metrics import METRICS
from harness.publishing.formats import leaderboard
from harness.results.run_logs import cause
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


def test_leaderboard_formats_are_labelled() -> None:
    summary = summarize([result("L0-rewrite", RUNS)], seed=1)
    md = leaderboard(summary, "md")
    assert md.startswith("Model: sim/sloppy (simulated agent") and "| L0-rewrite" in md
    assert "0.75 ± 0.25" in md and "clustered by scenario" in md
    page = leaderboard(summary, "html")
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page
    assert "<style>" in page and "http" not in page  # nothing fetched at view time
    assert "The designs compared" in page and "Accepts any list" in page
    latex = leaderboard(summary, "latex")
    assert "\\begin{table}" in latex and "\\toprule" in latex and "\\caption{" in latex
    assert "pass$^{" in latex and "\\resizebox" not in latex  # no shrinking
    assert json.loads(leaderboard(summary, "json"))["model"] == "sim/sloppy"


def test_csv_numbers_parse_as_floats() -> None:
    import io

    import pandas as pd

    frame = pd.read_csv(io.StringIO(leaderboard(summarize([result("L0-rewrite", RUNS)]), "csv")))
    success = frame[frame.metric == "task_success"].iloc[0]
    assert (success["mean"], success["stderr"], success["n"]) == (0.75, 0.25, 4)
    assert frame["ci_low"].dtype == float


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


def test_a_summary_older_than_a_metric_still_renders() -> None:
    summary = summarize([result("L0-rewrite", RUNS)], seed=1)
    del summary.variants[0].metrics["recovered_tool_calls"]
    assert "n/a" in leaderboard(summary, "md")
    assert "recovered_tool_calls" not in leaderboard(summary, "csv")


def test_prompt_cache_reads_are_priced_at_the_cache_rate() -> None:
    price = Price(input=3.0, output=15.0, cache_read=0.3)
    # 1M input of which 0.5M cached, 0.1M output
    assert round(price.cost(1e6, 5e5, 1e5), 6) == round(1.5 + 0.15 + 1.5, 6)
    assert round(Price(input=3.0, output=15.0).cost(1e6, 5e5, 1e5), 6) == 4.5


def test_the_committed_json_schema_is_current_and_committed_summaries_follow_it() -> None:
    import jsonschema

    from harness.results.summary import Summary

    committed = json.loads(Path("results/summary.schema.json").read_text(encoding="utf-8"))
    # regenerate with: python -c "..." (see README, Publishing); a changed model needs both
    assert committed == json.loads(json.dumps(Summary.model_json_schema(), sort_keys=True))
    checked = 0
    for path in Path("results").rglob("summary.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("schema_version") == SCHEMA_VERSION:
            jsonschema.validate(data, committed)
            checked += 1
    assert checked >= 3  # latest, baseline and the committed sim runs


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


@pytest.mark.parametrize(
    ("message", "meaning"),
    [
        (
            "OverloadedError: Error code: 529 - {'type': 'overloaded_error'}",
            "overloaded (HTTP 529)",
        ),
        ("InternalServerError: Error code: 529 - overloaded", "overloaded (HTTP 529)"),
        ("APIStatusError: status code 429", "rate limited (HTTP 429)"),
        # a 500 from a server on a port, at a line number, with digits that read 529 or 429
        (
            "InternalServerError: Error code: 500 - boom (http://127.0.0.1:45291/v1, line 429)",
            "the model server failed (HTTP 5xx)",
        ),
        ("ValueError: request 52900 was refused", "ValueError: request 52900 was refused"),
    ],
)
def test_a_failed_log_s_cause_reads_status_codes_not_any_digits(message: str, meaning: str) -> None:
    assert meaning in cause(message)


def test_a_body_cut_short_is_a_truncated_response_not_a_connection_failure() -> None:
    cut = (
        "httpx.RemoteProtocolError: peer closed connection without sending complete message "
        "body (received 75 bytes, expected 150)\n...\nopenai.APIConnectionError: Connection error."
    )
    assert cause("APIConnectionError('Connection error.')", cut).startswith(
        "the model server's response was cut off"
    )  # 691d616: "cannot connect to the model server"
    refused = "httpx.ConnectError: [Errno 111] Connection refused\nopenai.APIConnectionError"
    assert cause("APIConnectionError('Connection error.')", refused).startswith(
        "cannot connect to the model server"
    )
