"""Figures for the HTML leaderboard, drawn with matplotlib and embedded as PNG data URIs, so the
page needs nothing at view time."""

from __future__ import annotations

import base64
import io

import matplotlib

matplotlib.use("Agg")  # no display: files only

from matplotlib import pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from harness.results.summary import Stat, Summary  # noqa: E402


def _png(figure: Figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(figure)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def _errors(summary: Summary, metric: str) -> tuple[list[float], list[list[float]]]:
    means: list[float] = []
    spans: list[list[float]] = [[], []]
    for v in summary.variants:
        stat = v.metrics.get(metric)
        mean = stat.mean if stat else 0.0
        low = stat.ci_low if stat and stat.ci_low is not None else mean
        high = stat.ci_high if stat and stat.ci_high is not None else mean
        means.append(mean)
        spans[0].append(max(0.0, mean - low))
        spans[1].append(max(0.0, high - mean))
    return means, spans


def corruption_bars(summary: Summary) -> str:
    """Grouped bars of dropped, mutated and false completion per variant, with 95% intervals."""
    metrics = [
        ("dropped_todos", "dropped"),
        ("mutated_text", "mutated"),
        ("false_completion", "false done"),
    ]
    names = [v.variant for v in summary.variants]
    figure, axes = plt.subplots(figsize=(max(6.0, 1.1 * len(names)), 3.6))
    width = 0.8 / len(metrics)
    for k, (metric, label) in enumerate(metrics):
        means, spans = _errors(summary, metric)
        xs = [i + (k - 1) * width for i in range(len(names))]
        axes.bar(xs, means, width, yerr=spans, capsize=3, label=label)
    axes.set_xticks(range(len(names)), names, rotation=25, ha="right")
    axes.set_ylabel("per episode")
    axes.set_title("Corruption and false completion (95% intervals, clustered by scenario)")
    axes.legend()
    return _png(figure)


def success_vs_tokens(summary: Summary) -> str:
    """Task success against input tokens per episode, one point per variant."""
    figure, axes = plt.subplots(figsize=(6.0, 3.8))
    for v in summary.variants:
        success, tokens = v.metrics.get("task_success"), v.metrics.get("input_tokens")
        if success is None or tokens is None:
            continue

        def span(stat: Stat) -> list[list[float]]:
            low = stat.mean if stat.ci_low is None else stat.ci_low
            high = stat.mean if stat.ci_high is None else stat.ci_high
            return [[max(0.0, stat.mean - low)], [max(0.0, high - stat.mean)]]

        axes.errorbar(tokens.mean, success.mean, yerr=span(success), xerr=span(tokens), fmt="o")
        axes.annotate(
            v.variant,
            (tokens.mean, success.mean),
            fontsize=8,
            xytext=(4, 4),
            textcoords="offset points",
        )
    axes.set_xlabel("input tokens per episode")
    axes.set_ylabel("task success")
    axes.set_title("Success against cost (95% intervals)")
    return _png(figure)


def price_of_safety(summary: Summary) -> str:
    """What each design's safety costs: rejected updates and blocked claims per episode."""
    names = [v.variant for v in summary.variants]
    figure, axes = plt.subplots(figsize=(max(6.0, 1.1 * len(names)), 3.4))
    for k, (metric, label) in enumerate(
        [("rejected_updates", "rejected updates"), ("blocked_completions", "blocked claims")]
    ):
        means, spans = _errors(summary, metric)
        xs = [i + (k - 0.5) * 0.4 for i in range(len(names))]
        axes.bar(xs, means, 0.4, yerr=spans, capsize=3, label=label)
    axes.set_xticks(range(len(names)), names, rotation=25, ha="right")
    axes.set_ylabel("per episode")
    axes.set_title("The price of safety")
    axes.legend()
    return _png(figure)
