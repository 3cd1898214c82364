"""A sequential run (`todo-bench run --until-decided`): batches of `--epochs` epochs, each an
ordinary run in its own sub-folder (`batch-01`, ... with seed + k - 1, so batch 1 is the fixed
run of the seed), a look at the watched comparisons after each (`harness/results/sequential.py`),
and a stop when every comparison is decided or a budget is hit. The run folder gets the merged
summary (every batch's episodes, epochs numbered on) with the looks and why it stopped.

Resumable as any run: each batch folder resumes by itself, and the looks are recomputed from the
batches' episodes, so a rerun of the same command continues where it stopped.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from harness import storage
from harness.errors import UsageError
from harness.metrics import BY_NAME
from harness.results.summary import (
    Futility,
    Look,
    SequentialRecord,
    Spending,
    StopReason,
    Summary,
    TaskResult,
)
from harness.run.benchmark import BenchmarkResult, run_benchmark, run_record
from harness.run.folder import RunFolder
from harness.run.options import RunOptions, sequential_defaults
from harness.run.prepare import Prepared, prepare


class Design(BaseModel):
    """A sequential run's plan, checked before the first batch."""

    comparisons: list[tuple[str, str, str]]
    looks: int
    #: which budget set the number of looks
    limit: Literal["max batches", "max episodes"]
    alpha_each: float
    tolerance: dict[str, float]
    batch_episodes: int
    #: how each look decides (`harness.results.sequential.Rule`)
    spending: Spending
    futility: Futility | None


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def run_sequential(plan: RunOptions, say: Callable[[str], None] = _stderr) -> BenchmarkResult:
    """Run batches until every comparison is decided or a budget is hit (module docstring)."""
    if not plan.until_decided:
        raise UsageError("run_sequential runs a plan with until_decided; use run_benchmark")
    ready = prepare(plan)
    design = plan_looks(plan, ready)
    folder = RunFolder.open(plan.out, f"{ready.run_id}-seq", fresh=plan.fresh)
    if plan.publish is not None:
        folder.check_publish(plan.publish)
    with folder.held():
        folder.start(run_record(plan, ready), fresh=plan.fresh)
        batches: list[Summary] = []
        looks: list[Look] = []
        elapsed = 0.0
        while True:
            k = len(batches) + 1
            result = run_benchmark(_batch_plan(plan, folder, k), say)
            elapsed += result.elapsed
            if result.summary is None:
                return BenchmarkResult(
                    run_dir=folder.path,
                    summary=None,
                    complete=False,
                    elapsed=elapsed,
                    problems=[f"batch {k}: {p}" for p in result.problems],
                )
            batches.append(result.summary)
            merged = _merge(batches, plan, ready)
            if not result.complete:
                why = f"batch {k} is incomplete; rerun the same command to resume"
                stop: tuple[StopReason, str] | None = ("incomplete", why)
            else:
                looks.append(_look(merged, design, looks, ready))
                stop = _stop(looks, design, plan)
            if stop is not None:
                break
        summary = merged.model_copy(update={"sequential": _record(plan, design, looks, stop)})
        folder.publish(summary)
        say(f"todo-bench: sequential run stopped ({stop[0]}): {stop[1]}")
        complete = result.complete and summary.complete
        if plan.publish is not None and complete:
            from harness.results.outputs import publish_set

            publish_set(summary, plan.publish, say)
        return BenchmarkResult(
            run_dir=folder.path,
            summary=summary,
            complete=complete,
            elapsed=elapsed,
            problems=list(summary.problems),
        )


def plan_looks(plan: RunOptions, ready: Prepared) -> Design:
    """The comparisons, the planned looks and the alpha of each comparison; bad input is one
    line (UsageError)."""
    from harness.results.compare import load_tolerances
    from harness.results.power import pairs_against_first, parse_pairs

    labels = ready.labels
    pairs = parse_pairs(plan.pairs) if plan.pairs is not None else pairs_against_first(labels)
    if not pairs:
        raise UsageError("--until-decided compares variants: give two or more (--variants)")
    for variant in (v for pair in pairs for v in pair):
        if variant not in labels:
            raise UsageError(
                f"--pairs: variant {variant!r} is not in the run ({', '.join(labels)})"
            )
    if any(base == new for base, new in pairs):
        raise UsageError("--pairs: a variant against itself compares nothing")
    metrics = [m.strip() for m in plan.metrics.split(",") if m.strip()]
    if not metrics:
        raise UsageError("--metrics names no metric")
    for metric in metrics:
        known = BY_NAME.get(metric)
        if known is None or not known.episode or known.direction == "none":
            raise UsageError(
                f"--metrics: {metric!r} is not a per-episode metric with a better direction"
            )
    try:
        tolerance = load_tolerances(Path(plan.tolerance) if plan.tolerance else None)
    except ValueError as error:
        raise UsageError(str(error)) from error
    batch = ready.episodes * plan.epochs
    by_episodes = plan.max_episodes // batch if plan.max_episodes is not None else None
    if by_episodes == 0:
        raise UsageError(
            f"--max-episodes {plan.max_episodes} is less than one batch ({batch} episodes: "
            f"{len(labels)} variants x {len(ready.scenario_ids)} scenarios x {plan.epochs} epochs)"
        )
    if plan.max_cost is not None and ready.price is None:
        raise UsageError(
            f"--max-cost: {plan.model} has no price in {plan.prices}, so its cost is unknown"
        )
    comparisons = [(base, new, metric) for base, new in pairs for metric in metrics]
    limited = by_episodes is not None and by_episodes < plan.max_batches
    looks = by_episodes if by_episodes is not None and limited else plan.max_batches
    if plan.epochs * looks < 2:
        # one epoch per scenario in all: no look has a within-scenario variance to estimate
        # (with --epochs 1 the first look cannot decide; the second is the first that can)
        raise UsageError(
            "--until-decided needs two epochs per scenario in all: --epochs 2 or more, or "
            "--epochs 1 with two looks or more (--max-batches, --max-episodes)"
        )
    return Design(
        comparisons=comparisons,
        looks=looks,
        limit="max episodes" if limited else "max batches",
        alpha_each=plan.alpha / len(comparisons),
        tolerance=tolerance,
        batch_episodes=batch,
        spending=plan.spending,
        futility=_futility(plan, metrics),
    )


def _futility(plan: RunOptions, metrics: list[str]) -> Futility | None:
    """`--futility P --mde M=V,...` checked against the watched metrics; one line when not."""
    if plan.futility is None:
        if plan.mde is not None:
            raise UsageError("--mde is read by --futility: give both, or neither")
        return None
    if plan.mde is None:
        raise UsageError(
            "--futility needs --mde: the smallest difference worth finding per watched metric "
            f"(e.g. --mde {','.join(f'{m}=0.1' for m in metrics)})"
        )
    mde: dict[str, float] = {}
    for part in (p.strip() for p in plan.mde.split(",") if p.strip()):
        name, _, value = part.partition("=")
        name = name.strip()
        if name not in metrics:
            raise UsageError(
                f"--mde {part!r}: {name!r} is not a watched metric ({', '.join(metrics)})"
            )
        try:
            size = float(value)
        except ValueError:
            raise UsageError(f"--mde {part!r}: expected METRIC=NUMBER") from None
        if not math.isfinite(size) or size <= 0:
            raise UsageError(f"--mde {part!r}: the difference must be a number above 0")
        mde[name] = size
    missing = [m for m in metrics if m not in mde]
    if missing:
        raise UsageError(
            f"--mde gives no difference for {', '.join(missing)} (each watched metric needs one)"
        )
    return Futility(threshold=plan.futility, mde=mde)


def _batch_plan(plan: RunOptions, folder: RunFolder, k: int) -> RunOptions:
    """Batch k: an ordinary run of `--epochs` epochs with seed + k - 1 in its own folder."""
    return plan.model_copy(
        update={
            "until_decided": False,
            **sequential_defaults(),
            "seed": plan.seed + k - 1,
            "out": storage.join(folder.path, f"batch-{k:02d}"),
            "fresh": False,  # --fresh emptied the whole folder already
            "publish": None,
        }
    )


def _merge(batches: list[Summary], plan: RunOptions, ready: Prepared) -> Summary:
    """One summary of every batch's episodes, batch k's epochs numbered after batch k - 1's."""
    from harness.results.report import summarize

    epochs = plan.epochs * len(batches)
    results = [
        TaskResult(
            variant=variant.variant,
            model=batch.model,
            epochs=epochs,
            episodes=[
                e.model_copy(update={"epoch": k * plan.epochs + e.epoch})
                for e in variant.per_episode
            ],
        )
        for k, batch in enumerate(batches)
        for variant in batch.variants
    ]
    return summarize(
        results,
        seed=plan.seed,
        price=ready.price,
        provenance=ready.origin,
        problems=[f"batch {k + 1}: {p}" for k, b in enumerate(batches) for p in b.problems],
        expected=ready.labels,
    )


def _cost(summary: Summary) -> float | None:
    """Dollars so far at the run's price; None when any variant's cost is unknown."""
    costs = [v.cost_usd.mean * v.episodes if v.cost_usd else None for v in summary.variants]
    return None if not costs or None in costs else sum(c for c in costs if c is not None)


def _look(summary: Summary, design: Design, looks: list[Look], ready: Prepared) -> Look:
    from harness.results.sequential import Rule, look

    return look(
        summary,
        design.comparisons,
        number=len(looks) + 1,
        planned=design.looks,
        alpha_each=design.alpha_each,
        tolerance=design.tolerance,
        earlier=looks,
        cost_usd=_cost(summary),
        rule=Rule(spending=design.spending, futility=design.futility),
    )


def _stop(looks: list[Look], design: Design, plan: RunOptions) -> tuple[StopReason, str] | None:
    """Why to stop after the last look, or None to run another batch."""
    from harness.results.sequential import undecided as count_undecided

    last = looks[-1]
    undecided = count_undecided(last)
    where = f"look {last.look} of {design.looks}, {last.episodes:,} episodes"
    if not undecided:
        return "decided", f"every comparison decided ({where})"
    left = f"{undecided} of {len(last.decisions)} comparisons undecided"
    if last.look >= design.looks:
        if design.limit == "max episodes":
            why = f"another batch of {design.batch_episodes:,} would pass --max-episodes"
            return "max episodes", f"{why} {plan.max_episodes:,} ({where}); {left}"
        return "max batches", f"--max-batches {plan.max_batches} reached ({where}); {left}"
    if plan.max_cost is not None and last.cost_usd is not None:
        next_batch = last.cost_usd / last.look
        if last.cost_usd + next_batch > plan.max_cost:
            return "max cost", (
                f"${last.cost_usd:,.2f} spent; another batch (about ${next_batch:,.2f}) would "
                f"pass --max-cost {plan.max_cost:g} ({where}); {left}"
            )
    return None


def _record(
    plan: RunOptions, design: Design, looks: list[Look], stop: tuple[StopReason, str]
) -> SequentialRecord:
    from harness.results.sequential import DEFAULT_SPENDING, final, method

    return SequentialRecord(
        method=method(design.spending, design.futility),
        alpha=plan.alpha,
        alpha_each=round(design.alpha_each, 9),
        batch_epochs=plan.epochs,
        planned_looks=design.looks,
        max_episodes=plan.max_episodes,
        max_cost=plan.max_cost,
        tolerance=design.tolerance,
        looks=looks,
        decisions=final(looks) if looks else [],
        stopped=stop[0],
        reason=stop[1],
        spending=None if design.spending == DEFAULT_SPENDING else design.spending,
        futility=design.futility,
    )
