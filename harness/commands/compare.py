"""`todo-bench compare`: the regression gate between two runs."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from harness.commands.args import Commands, read
from harness.errors import UsageError


def cmd_compare(args: argparse.Namespace) -> int:
    from harness.stats.comparison import compare, junit, load_tolerances, mismatches, render

    base, new = read(args.base), read(args.new)
    problems = mismatches(base, new, statistical=args.statistical)
    if problems and not args.allow_mismatch:
        raise UsageError(
            f"{args.base} and {args.new} are not comparable: {'; '.join(problems)} "
            "(--allow-mismatch to compare anyway)"
        )
    tolerance = load_tolerances(Path(args.tolerance) if args.tolerance else None)
    exact = False if args.statistical else None
    result = compare(base, new, alpha=args.alpha, tolerance=tolerance, exact=exact)
    # the reports are written before the verdict is printed: a verdict is never followed by
    # a failure to record it
    if args.junit:
        _write(args.junit, "--junit", junit(result), "w")
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        _write(step_summary, "GITHUB_STEP_SUMMARY", render(result, "md") + "\n", "a")
    print(render(result, args.format, everything=args.all), end="")
    return 1 if result.failed else 0


def _write(path: str, option: str, text: str, mode: str) -> None:
    try:
        with Path(path).open(mode, encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        reason = error.strerror or str(error)
        raise UsageError(f"{option} {path}: cannot write there ({reason})") from None


def add(sub: Commands) -> None:
    """The regression gate between two runs."""
    comp = sub.add_parser(
        "compare",
        help="regression gate: exit 1 if NEW is worse than BASE, 2 if they are not comparable",
        description="Pairs the episodes of two runs by scenario and epoch. A deterministic model "
        "(the simulated agent) is compared exactly: any change in a watched metric fails. "
        "Otherwise each metric is tested (exact McNemar for binary metrics, a paired "
        "permutation test for counts) with Holm correction across metrics and variants.",
    )
    comp.add_argument("base", help="run folder or summary.json of the baseline")
    comp.add_argument("new", help="run folder or summary.json to judge")
    comp.add_argument("--alpha", type=float, default=0.05, help="significance after Holm (0.05)")
    comp.add_argument("--tolerance", metavar="FILE", help="YAML: metric -> tolerated change")
    comp.add_argument(
        "--format", default="text", choices=["text", "md"], help="md for a pull-request comment"
    )
    comp.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report")
    comp.add_argument("--all", action="store_true", help="show unchanged metrics too")
    comp.add_argument(
        "--allow-mismatch", action="store_true", help="compare runs of other models or suites"
    )
    comp.add_argument(
        "--statistical",
        action="store_true",
        help="use the statistical tests even for a deterministic model",
    )
    comp.set_defaults(func=cmd_compare)
