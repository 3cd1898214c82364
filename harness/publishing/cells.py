"""What every leaderboard format shows the same way: the run's title and each variant's cells,
one number formatting for all of them, so the formats cannot disagree."""

from __future__ import annotations

from harness.metrics import TABLES
from harness.results.summary import Stat, Summary, VariantSummary

SIM_NOTE = "simulated agent: demonstrates the harness, not evidence about real models"

#: every leaderboard column, (metric, header), from the tables harness.metrics declares
COLUMNS = tuple(column for _, columns in TABLES for column in columns)


def parts(stat: Stat, metric: str) -> tuple[str, str | None]:
    """The mean and the standard error as printed (None: no spread), at the metric's digits."""
    digits = 0 if metric.endswith("tokens") else 4 if metric == "cost_usd" else 2
    spread = f"{stat.stderr:.{digits}f}" if stat.stderr else None
    return f"{stat.mean:.{digits}f}", spread


def cell(stat: Stat, metric: str) -> str:
    """`mean ± stderr`, or the mean alone when it has no spread."""
    mean, spread = parts(stat, metric)
    return mean if spread is None else f"{mean} ± {spread}"


def title(summary: Summary) -> str:
    note = f" ({SIM_NOTE})" if summary.simulated else ""
    seed = f", seed {summary.seed}" if summary.seed is not None else ""
    head = "INCOMPLETE RUN: " if not summary.complete else ""
    return (
        f"{head}Model: {summary.model}{note}; {len(summary.scenarios)} scenarios x "
        f"{summary.epochs} epochs{seed}; {versions(summary)}. "
        f"Cells: mean ± {summary.stderr_method}."
    )


def versions(summary: Summary) -> str:
    """Which task (and sim) version made the numbers: runs of different versions differ in
    meaning and are never mixed silently."""
    origin = summary.provenance
    task = f"task v{origin.task_version}" if origin.task_version else "task version not recorded"
    return task + (f", sim v{origin.sim_version}" if origin.sim_version is not None else "")


def stat_of(v: VariantSummary, metric: str) -> Stat | None:
    """A variant's statistic of one column (None: the summary predates this metric)."""
    if metric == "pass_k":
        return v.pass_k
    if metric == "cost_usd":
        return v.cost_usd
    return v.metrics.get(metric)


def shown(summary: Summary, columns: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """The columns a board shows: cost only where some variant was priced."""
    priced = any(v.cost_usd is not None for v in summary.variants)
    return columns if priced else tuple(c for c in columns if c[0] != "cost_usd")
