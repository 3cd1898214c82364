"""`todo-bench power`: plan the size and cost of a run from a pilot run."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

from harness.commands.args import Commands, number_between, positive_at_most, read
from harness.errors import UsageError
from harness.metrics import DEFAULT_PAIRED_METRICS as DEFAULT_METRICS

if TYPE_CHECKING:
    from harness.results.summary import Summary

#: a pilot's epochs per scenario and seed when the pilot is a simulated agent's profile
PILOT_EPOCHS, PILOT_SEED = 3, 0


def _effect(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value == 0:
        raise argparse.ArgumentTypeError(
            f"must be a non-zero number (a minimum effect of 0 cannot be planned), got {text}"
        )
    return value


def _is_profile(pilot: str) -> bool:
    """`sim/field`, not a folder or file of that name."""
    return pilot.startswith("sim/") and not Path(pilot).exists()


def _pilot(args: argparse.Namespace) -> Summary:
    """The pilot's summary: read from a run folder or summary.json, or, for a simulated
    agent's profile (`sim/field`), from a pilot run made first, of the variants --pairs names
    (else `headline`) on --scenarios, as `todo-bench run` makes it: in results/runs/<run id>,
    so asking again reads it instead of running it again."""
    given = [n for n in ("scenarios", "pilot_epochs", "pilot_seed") if getattr(args, n) is not None]
    if not _is_profile(args.pilot):
        if given:
            flags = ", ".join("--" + name.replace("_", "-") for name in given)
            raise UsageError(f"{flags}: only with a sim/PROFILE pilot (a pilot run to make)")
        return read(args.pilot)
    from harness.run.benchmark import run_benchmark
    from harness.run.options import RunOptions
    from harness.stats.paired import parse_pairs

    named = [v for pair in parse_pairs(args.pairs) for v in pair] if args.pairs else []
    plan = RunOptions(
        model=args.pilot,
        variants=list(dict.fromkeys(named)) or "headline",
        scenarios=args.scenarios or "all",
        epochs=args.pilot_epochs or PILOT_EPOCHS,
        seed=PILOT_SEED if args.pilot_seed is None else args.pilot_seed,
        display="none",
    )
    result = run_benchmark(plan)
    if result.summary is None or not result.complete:
        problems = "; ".join(result.problems) or "it did not finish"
        raise UsageError(
            f"the pilot run on {args.pilot} is incomplete ({problems}); ask again to resume it "
            f"({result.run_dir})"
        )
    return result.summary


def cmd_power(args: argparse.Namespace) -> int:
    from harness.results.summary import price_for
    from harness.stats.paired import check_inputs, default_pairs, parse_pairs
    from harness.stats.power_plan import plan
    from harness.stats.power_table import render

    summary = _pilot(args)
    if not summary.variants:
        raise UsageError(f"{args.pilot}: the summary has no variants")
    pairs = parse_pairs(args.pairs) if args.pairs else default_pairs(summary)
    if not pairs:
        raise UsageError(f"{args.pilot}: one variant only; nothing to pair (--pairs A:B)")
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    if not metrics:
        raise UsageError("--metrics names no metric")
    check_inputs(summary, pairs, metrics)
    price = None
    if args.price:
        price = price_for(args.price)
        if price is None:
            raise UsageError(f"--price {args.price}: no price for that model in prices.yaml")
    plans = [
        plan(
            summary,
            base,
            new,
            metric,
            mde=args.mde,
            alpha=args.alpha,
            power=args.power,
            epochs=args.epochs,
            method="closed form" if args.method == "closed" else args.method,
            simulations=args.simulations,
            seed=args.seed,
            price=price,
        )
        for base, new in pairs
        for metric in metrics
    ]
    if args.format == "json":
        print(json.dumps([p.model_dump() for p in plans], indent=2))
    else:
        print(render(plans, summary.model, args.format), end="")
    return 0


def add(sub: Commands) -> None:
    """Plan a run's size and cost from a pilot."""
    power = sub.add_parser(
        "power",
        help="plan how many scenarios x epochs (and what cost) detect an effect, from a pilot run",
        description="From a pilot run's per-episode values: for each pair of variants and "
        "metric, the paired effect with its 95% interval, the between- and within-scenario "
        "variance of the paired differences, and the scenarios x epochs needed to detect "
        "--mde at --alpha with --power, the clustering of epochs in scenarios taken into "
        "account (closed form: statsmodels' t-test power with the design effect; simulation: "
        "resampling the pilot), with the planned run's episodes, tokens and dollars.",
    )
    power.add_argument(
        "pilot",
        help="run folder or summary.json of the pilot run, or a simulated agent's profile "
        "(sim/field, sim/sloppy, ...): its pilot run is made first (results/runs/, reused)",
    )
    power.add_argument(
        "--scenarios", help="with a sim/PROFILE pilot: the scenarios it runs (ids or tags; all)"
    )
    power.add_argument(
        "--pilot-epochs",
        type=positive_at_most(1000),
        help=f"with a sim/PROFILE pilot: its epochs per scenario ({PILOT_EPOCHS})",
    )
    power.add_argument(
        "--pilot-seed", type=int, help=f"with a sim/PROFILE pilot: its seed ({PILOT_SEED})"
    )
    power.add_argument(
        "--pairs", metavar="A:B,C:D", help="variant pairs (default: each against the first)"
    )
    power.add_argument(
        "--metrics", default=DEFAULT_METRICS, help=f"metrics to plan for ({DEFAULT_METRICS})"
    )
    power.add_argument(
        "--mde", type=_effect, help="minimum effect to detect, new - base (default: observed)"
    )
    power.add_argument("--alpha", type=number_between(0, 1), default=0.05, help="two-sided (0.05)")
    power.add_argument("--power", type=number_between(0, 1), default=0.8, help="target power (0.8)")
    power.add_argument(
        "--epochs", type=positive_at_most(1000), help="epochs per scenario planned (the pilot's)"
    )
    power.add_argument(
        "--method",
        default="auto",
        choices=["auto", "closed", "simulation"],
        help="auto: closed form for rates, simulation for counts",
    )
    power.add_argument(
        "--simulations",
        type=positive_at_most(100_000),
        default=1000,
        help="simulated runs per size tried (1000)",
    )
    power.add_argument("--seed", type=int, default=0, help="seed of the simulation (0)")
    power.add_argument(
        "--price",
        metavar="MODEL",
        help="price tokens as MODEL (prices.yaml) if the pilot has no cost",
    )
    power.add_argument("--format", default="text", choices=["text", "md", "json"])
    power.set_defaults(func=cmd_power)


__all__ = ["add"]
