"""A sequential run (`todo-bench run --until-decided`): batches of `--epochs` epochs, each an
ordinary run in its own sub-folder (`batch-01`, ... with seed + k - 1, so batch 1 is the fixed
run of the seed), a look at the watched comparisons after each
(`harness/stats/sequential_looks.py`), and a stop when every comparison is decided or a budget is
hit. The run folder gets the merged summary (every batch's episodes, epochs numbered on) with the
looks and why it stopped.

Resumable as any run: each batch folder resumes by itself, and the looks are recomputed from the
batches' episodes, so a rerun of the same command continues where it stopped.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from harness import storage
from harness.errors import UsageError
from harness.results.summary import (
    Look,
    SequentialRecord,
    StopReason,
    Summary,
    TaskResult,
)
from harness.run.benchmark import BenchmarkResult, run_benchmark, run_record
from harness.run.folder import RunFolder
from harness.run.options import RunOptions
from harness.run.prepare import Prepared, prepare
from harness.run.sequential_plan import Design, plan_looks, sequential_defaults


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
            from harness.publishing.outputs import publish_set

            publish_set(summary, plan.publish, say)
        return BenchmarkResult(
            run_dir=folder.path,
            summary=summary,
            complete=complete,
            elapsed=elapsed,
            problems=list(summary.problems),
        )


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
    from harness.stats.aggregate import summarize

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
    from harness.stats.sequential_looks import Rule, look

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
    from harness.stats.sequential_looks import undecided as count_undecided

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
    from harness.stats.sequential_bounds import DEFAULT_SPENDING
    from harness.stats.sequential_looks import final, method

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
