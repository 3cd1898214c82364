"""summary.json (versioned, pydantic) from inspect logs, and leaderboard tables from summaries."""

from __future__ import annotations

import csv
import io
import math
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import yaml
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log, read_eval_log_sample_summaries
from pydantic import BaseModel, Field
from tabulate import tabulate

from harness.scoring import CORRUPTION_COUNTS, METRICS
from harness.variants import HEADLINE

#: 2: rates per accepted-or-rejected todo update; ending, matcher and cache metrics added
SCHEMA_VERSION = 2
SIM_NOTE = "simulated agent: demonstrates the harness, not evidence about real models"
Format = Literal["md", "html", "latex", "csv", "json"]

#: leaderboard tables: (caption, [(metric, header)])
TABLES = (
    (
        "Outcomes and corruption (per episode)",
        (
            ("task_success", "success"),
            ("pass_k", "pass^k"),
            ("false_completion", "false done"),
            ("false_completion_past_gate", "false done past gate"),
            ("gave_up", "gave up"),
            ("asked_user", "asked user"),
            ("dropped_todos", "dropped"),
            ("mutated_text", "mutated"),
            ("invented_todos", "invented"),
            ("id_churn", "id churn"),
            ("false_todo_completions", "false ticks"),
            ("unmatched_todos", "unmatched"),
            ("unsanctioned_deletes", "unasked deletes"),
            ("unsanctioned_renames", "unasked renames"),
            ("fake_tool_calls", "fake calls"),
            ("recovered_tool_calls", "recovered"),
        ),
    ),
    (
        "Price of safety and cost (per episode)",
        (
            ("rejected_updates", "rejected"),
            ("blocked_completions", "blocked"),
            ("budget_exhausted", "out of turns"),
            ("gate_exhausted", "gate held to end"),
            ("turns", "turns"),
            ("todo_tool_calls", "todo calls"),
            ("input_tokens", "in tok"),
            ("output_tokens", "out tok"),
            ("todo_output_tokens", "todo tok"),
            ("cost_usd", "cost $"),
        ),
    ),
)
COLUMNS = tuple(column for _, columns in TABLES for column in columns)


class Stat(BaseModel):
    """Mean over episodes and its standard error."""

    mean: float
    stderr: float


PRICES = Path(__file__).resolve().parent / "prices.yaml"


class Price(BaseModel):
    """USD per million tokens; `cache_read` prices prompt-cache hits where the provider has a
    rate for them (otherwise they cost `input`)."""

    input: float
    output: float
    cache_read: float | None = None

    def cost(self, input_tokens: float, cache_read_tokens: float, output_tokens: float) -> float:
        cached_rate = self.input if self.cache_read is None else self.cache_read
        fresh = input_tokens - cache_read_tokens
        return (
            fresh * self.input + cache_read_tokens * cached_rate + output_tokens * self.output
        ) / 1e6


def price_for(model: str, table: Path = PRICES) -> Price | None:
    """The longest price-table key that prefixes the model name, if any."""
    entries = yaml.safe_load(table.read_text(encoding="utf-8")) or {}
    keys = sorted((k for k in entries if model.startswith(k)), key=len, reverse=True)
    return Price.model_validate(entries[keys[0]]) if keys else None


class VariantSummary(BaseModel):
    variant: str
    episodes: int
    metrics: dict[str, Stat]
    cost_usd: Stat | None = Field(None, description="per episode, where the price is known")
    pass_k: Stat = Field(description="share of scenarios solved in all k epochs (pass^k)")
    per_100_todo_updates: dict[str, float]
    per_scenario_success: dict[str, float]


class Summary(BaseModel):
    """The published result of one run; the leaderboard is rendered from it."""

    schema_version: int = SCHEMA_VERSION
    model: str
    simulated: bool
    seed: int | None
    epochs: int
    scenarios: list[str]
    variants: list[VariantSummary]


def _stat(values: list[float]) -> Stat:
    n = len(values)
    mean = sum(values) / n if n else 0.0
    if n < 2:
        return Stat(mean=round(mean, 6), stderr=0.0)
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return Stat(mean=round(mean, 6), stderr=round(math.sqrt(variance / n), 6))


def pass_hat_k(successes: dict[str, list[float]]) -> Stat:
    """pass^k (tau-bench, Yao et al. 2024): a scenario counts only if all k trials succeed."""
    return _stat([float(all(v == 1.0 for v in runs)) for runs in successes.values()])


def variant_order(name: str) -> tuple[int, str]:
    return (HEADLINE.index(name) if name in HEADLINE else len(HEADLINE), name)


class EpisodeScores(BaseModel):
    """One scored episode as read back from an inspect log."""

    scenario: str
    epoch: int
    values: dict[str, float]


class TaskResult(BaseModel):
    """The scored episodes of one variant's eval log."""

    variant: str
    model: str
    epochs: int
    episodes: list[EpisodeScores]


def read_results(log_dir: Path) -> list[TaskResult]:
    """The newest successful log per variant in a log directory, read as episode scores."""
    newest: dict[str, tuple[EvalLog, str]] = {}
    for info in list_eval_logs(str(log_dir), recursive=True):
        header = read_eval_log(info.name, header_only=True)
        if header.status != "success":
            continue
        # one result per variant: a resumed or repeated run leaves older logs beside newer ones
        key = str((header.eval.metadata or {}).get("variant", header.eval.task_id))
        if key not in newest or header.eval.created > newest[key][0].eval.created:
            newest[key] = (header, info.name)
    results = []
    for variant, (header, name) in sorted(newest.items()):
        episodes = []
        for sample in read_eval_log_sample_summaries(name):
            score = (sample.scores or {}).get("todo_scorer")
            if score is None or not isinstance(score.value, dict):
                continue
            values = {k: float(v) for k, v in score.value.items() if isinstance(v, int | float)}
            episodes.append(
                EpisodeScores(scenario=str(sample.id), epoch=sample.epoch, values=values)
            )
        results.append(
            TaskResult(
                variant=variant,
                model=header.eval.model,
                epochs=header.eval.config.epochs or 1,
                episodes=episodes,
            )
        )
    return results


def summarize(
    results: Iterable[TaskResult], seed: int | None = None, price: Price | None = None
) -> Summary:
    """Aggregate per-episode scores into per-variant means, stderrs, pass^k and rates."""
    values: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    success: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    model, epochs, scenarios = "", 1, set()
    for result in results:
        model, epochs = result.model, result.epochs
        for episode in sorted(result.episodes, key=lambda e: (e.scenario, e.epoch)):
            scenarios.add(episode.scenario)
            for metric in METRICS:
                values[result.variant][metric].append(episode.values.get(metric, 0.0))
            success[result.variant][episode.scenario].append(episode.values["task_success"])
    summaries = []
    for variant in sorted(values, key=variant_order):
        metrics = {m: _stat(values[variant][m]) for m in METRICS}
        # per accepted-or-rejected update: list_todos reads and malformed calls are not updates
        updates = sum(values[variant]["todo_updates"])
        rates = {
            m: round(100 * sum(values[variant][m]) / updates, 6) if updates else 0.0
            for m in CORRUPTION_COUNTS
        }
        cost = None
        if price is not None:
            cost = _stat(
                [
                    price.cost(i, c, o)
                    for i, c, o in zip(
                        values[variant]["input_tokens"],
                        values[variant]["cache_read_tokens"],
                        values[variant]["output_tokens"],
                        strict=True,
                    )
                ]
            )
        summaries.append(
            VariantSummary(
                variant=variant,
                episodes=len(values[variant]["task_success"]),
                metrics=metrics,
                cost_usd=cost,
                pass_k=pass_hat_k(success[variant]),
                per_100_todo_updates=rates,
                per_scenario_success={
                    s: round(sum(v) / len(v), 6) for s, v in sorted(success[variant].items())
                },
            )
        )
    return Summary(
        model=model,
        simulated=model.startswith("sim/"),
        seed=seed,
        epochs=epochs,
        scenarios=sorted(scenarios),
        variants=summaries,
    )


def write_summary(summary: Summary, path: Path) -> None:
    path.write_text(summary.model_dump_json(indent=2) + "\n", encoding="utf-8")


def read_summary(path: Path) -> Summary:
    return Summary.model_validate_json(path.read_text(encoding="utf-8"))


def _cell(stat: Stat, metric: str) -> str:
    digits = 0 if metric.endswith("tokens") else 4 if metric == "cost_usd" else 2
    if stat.stderr:
        return f"{stat.mean:.{digits}f} ± {stat.stderr:.{digits}f}"
    return f"{stat.mean:.{digits}f}"


def title(summary: Summary) -> str:
    note = f" ({SIM_NOTE})" if summary.simulated else ""
    seed = f", seed {summary.seed}" if summary.seed is not None else ""
    return (
        f"Model: {summary.model}{note}; {len(summary.scenarios)} scenarios x "
        f"{summary.epochs} epochs{seed}. Cells: mean ± standard error per episode."
    )


def _stat_of(v: VariantSummary, metric: str) -> Stat | None:
    if metric == "pass_k":
        return v.pass_k
    if metric == "cost_usd":
        return v.cost_usd
    return v.metrics.get(metric)  # None: the summary predates this metric


def _rows(summary: Summary, columns: tuple[tuple[str, str], ...]) -> list[list[object]]:
    rows: list[list[object]] = []
    for v in summary.variants:
        cells = []
        for metric, _ in columns:
            stat = _stat_of(v, metric)
            cells.append("n/a" if stat is None else _cell(stat, metric))
        rows.append([v.variant, v.episodes, *cells])
    return rows


def _columns(summary: Summary, columns: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    priced = any(v.cost_usd is not None for v in summary.variants)
    return columns if priced else tuple(c for c in columns if c[0] != "cost_usd")


def leaderboard(summary: Summary, fmt: Format = "md") -> str:
    """One row per variant, one column per headline metric, labelled with the model."""
    if fmt == "json":
        return summary.model_dump_json(indent=2)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        columns = _columns(summary, COLUMNS)
        writer.writerow(["model", "variant", "episodes", *(m for m, _ in columns)])
        writer.writerows([summary.model, *row] for row in _rows(summary, columns))
        return buffer.getvalue()
    table_format = {"md": "github", "html": "html", "latex": "latex"}[fmt]
    parts = []
    for caption, all_columns in TABLES:
        columns = _columns(summary, all_columns)
        headers = ["variant", "episodes", *(h for _, h in columns)]
        table = tabulate(
            _rows(summary, columns), headers=headers, tablefmt=table_format, disable_numparse=True
        )
        if fmt == "md":
            parts.append(f"**{caption}**\n\n{table}")
        elif fmt == "html":
            parts.append(f"<h3>{caption}</h3>\n{table}")
        else:
            parts.append(f"% {caption}\n{table}")
    heading = {
        "md": f"{title(summary)}\n",
        "html": f"<p>{title(summary)}</p>",
        "latex": f"% {title(summary)}",
    }[fmt]
    return heading + "\n" + "\n\n".join(parts) + "\n"


def compare(base: Summary, new: Summary, z: float = 2.0) -> list[str]:
    """Significant regressions from base to new (difference beyond z combined stderrs)."""
    worse_if_lower = {"task_success"}
    watched = ("task_success", "false_completion", *CORRUPTION_COUNTS)
    base_by_name = {v.variant: v for v in base.variants}
    problems = []
    for variant in new.variants:
        old = base_by_name.get(variant.variant)
        if old is None:
            continue
        for metric in watched:
            a, b = old.metrics[metric], variant.metrics[metric]
            delta = b.mean - a.mean
            if metric in worse_if_lower:
                delta = -delta
            noise = z * math.sqrt(a.stderr**2 + b.stderr**2)
            if delta > 0 and delta > noise:
                problems.append(
                    f"{variant.variant}: {metric} {a.mean:.3f} -> {b.mean:.3f} "
                    f"(threshold {noise:.3f})"
                )
    return problems
