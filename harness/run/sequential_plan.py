"""A sequential run's plan (`todo-bench run --until-decided`): which of the run's options only a
sequential run reads, and those options checked, before the first batch, into the comparisons,
the looks, the alpha and the rule each look decides by (`Design`)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from harness.errors import UsageError
from harness.metrics import BY_NAME
from harness.results.summary import Futility, Spending
from harness.run.options import RunOptions

if TYPE_CHECKING:
    from harness.run.prepare import Prepared

#: the options only a sequential run reads (`harness/run/sequential.py`): those `_sequential` made
SEQUENTIAL = tuple(
    name
    for name, field in RunOptions.model_fields.items()
    if (field.description or "").startswith("with --until-decided: ")
)


def sequential_defaults() -> dict[str, Any]:
    """The sequential options at their defaults: what a batch, an ordinary run, gets."""
    return {name: RunOptions.model_fields[name].default for name in SEQUENTIAL}


def stray_sequential(plan: RunOptions) -> list[str]:
    """The sequential options given to a run without --until-decided, as flags."""
    if plan.until_decided:
        return []
    given = [n for n, d in sequential_defaults().items() if getattr(plan, n) != d]
    return ["--" + name.replace("_", "-") for name in given]


class Design(BaseModel):
    """A sequential run's plan, checked before the first batch."""

    comparisons: list[tuple[str, str, str]]
    looks: int
    #: which budget set the number of looks
    limit: Literal["max batches", "max episodes"]
    alpha_each: float
    tolerance: dict[str, float]
    batch_episodes: int
    #: how each look decides (`harness.stats.sequential_looks.Rule`)
    spending: Spending
    futility: Futility | None


def plan_looks(plan: RunOptions, ready: Prepared) -> Design:
    """The comparisons, the planned looks and the alpha of each comparison; bad input is one
    line (UsageError)."""
    from harness.stats.comparison import load_tolerances
    from harness.stats.paired import pairs_against_first, parse_pairs

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
